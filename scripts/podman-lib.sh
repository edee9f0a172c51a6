# podman-lib.sh: what scripts/docker-test.sh and scripts/docker-ha-try.sh share, sourced by both:
# their output lines and phase timing, podman with its chatter logged, polling, a service's place
# on the test network as Docker would give it, and a curl client of the API. Not run alone.
#
# The sourcing script sets, before it calls these: `me` (the prefix of every line it prints),
# `out` (the directory of podman's log), `pm_log` (that log's file name in it), `compose` (the
# compose file read for addresses), `net` (the network's name), `work` (a private temporary
# directory) and, before it calls api(), `H` (the proxy's base URL). api_timeout (seconds, 10 by
# default) bounds each API call.
# shellcheck shell=bash
# shellcheck disable=SC2016,SC2034,SC2154 # jq programs; flags and names its sourcer uses; variables its sourcer sets

# This sandbox's quirks: crun refuses the machine's hybrid cgroups (runc does not), and raising
# the default rlimits is refused, so every container gets explicit ones. podman_flags ID sets
# run_flags (containers labelled city-test=ID, for the clean-up) and build_flags; false when
# runc is missing.
podman_flags() {
    runc=$(command -v runc || command -v /usr/sbin/runc || true)
    [ -n "$runc" ] || return 1
    local limits=(--ulimit nofile=16384:16384 --ulimit nproc=4096:4096)
    run_flags=(--runtime "$runc" "${limits[@]}" --label "city-test=$1")
    build_flags=(--runtime "$runc" "${limits[@]}" --network host --pull=never --format docker)
}

# The images both scripts use (made by docker-test.sh from one mmdebstrap base).
img_base=localhost/city-test/debian:bookworm-slim
img_city=localhost/city-test/cityd:latest
img_lb=localhost/city-test/nginx:1.22

say() { printf '%s: %s\n' "$me" "$*"; }
fail() {
    say "FAILED: $*" >&2
    exit 1
}

# Phase timing: `phase NAME` closes the previous phase, printing its seconds.
t_start=$EPOCHREALTIME
t_phase=$t_start
phase_name=""
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
phase() {
    if [ -n "$phase_name" ]; then
        say "$(printf '%-56s %6ss' "$phase_name" "$(secs "$t_phase" "$EPOCHREALTIME")")"
    fi
    phase_name=$1
    t_phase=$EPOCHREALTIME
}

# mark WHAT: a line with the seconds since the phase began.
mark() { say "$(printf '  %6ss  %s' "$(secs "$t_phase" "$EPOCHREALTIME")" "$*")"; }

# podman's own chatter (healthcheck timers it cannot make without systemd, syslog) goes to a
# log, shown when the test fails.
pm() { podman "$@" 2>>"$out/$pm_log"; }

# Polls CMD... every 0.1 s until it succeeds, for at most SECONDS; false when it never did.
wait_for() {
    local limit=$1
    shift
    local until=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$until" ] || return 1
        sleep 0.1
    done
}

# ip_of SERVICE: its fixed address in the compose file.
ip_of() { yq -r --arg s "$1" '.services[$s].networks.city.ipv4_address' "$compose"; }

# Docker derives a container's MAC address from its IP address (02:42 and the four bytes), so a
# restarted container comes back with both; podman picks a new random MAC, and its peers would
# send to the old one for as long as their ARP entry stays fresh (up to 45 s). So the MAC is
# pinned as Docker would.
# net_of SERVICE: the arguments that put a container on the network as SERVICE (its alias and
# host name, its address and MAC), one a line.
net_of() {
    local ip
    ip=$(ip_of "$1")
    local IFS=.
    # shellcheck disable=SC2086 # split on the dots
    printf -- '--network\n%s\n--network-alias\n%s\n--hostname\n%s\n--ip\n%s\n--mac-address\n02:42:%02x:%02x:%02x:%02x\n' \
        "$net" "$1" "$1" "$ip" $ip
}

# api METHOD PATH [BODY [TOKEN]]: prints "CODE BODY" (CODE 000 when nothing answered).
api() {
    # Each call its own reply file: a player, a stream follower and the checks call this at
    # once, and a shared file was read half-written by another call (CI: jq's "Invalid numeric
    # literal", then "game 2 did not reach round 2").
    local reply
    reply=$(mktemp -p "$work" reply.XXXXXX)
    local args=(-sS -o "$reply" -w '%{http_code}' --max-time "${api_timeout:-10}" -X "$1")
    [ -n "${3:-}" ] && args+=(-H 'Content-Type: application/json' --data "$3")
    [ -n "${4:-}" ] && args+=(-H "Authorization: Bearer $4")
    local code
    code=$(curl "${args[@]}" "$H/api/v1$2" 2>/dev/null) || true
    printf '%s %s\n' "${code:-000}" "$(cat "$reply" 2>/dev/null)"
    rm -f "$reply"
}

# round_at_least GAME N: the game's public round is N or more (or it is finished).
round_at_least() {
    local reply
    reply=$(api GET "/games/$1")
    [ "${reply%% *}" = 200 ] &&
        jq -e --argjson n "$2" '.status == "finished" or (.round // 0) >= $n' <<<"${reply#* }" \
            >/dev/null
}
