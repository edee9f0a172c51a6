#!/usr/bin/env bash
# docker-ha-try.sh: runs the topology of docker/compose-ha.yml with podman, by hand (no compose
# tool here): 3 etcd, 3 Patroni/PostgreSQL (docker/ha/Containerfile), 2 cityd (docker/Dockerfile),
# nginx. It plays a game through nginx, kills the Patroni leader's container (SIGKILL) mid-game,
# and prints how long orders failed, the new leader, and whether every acknowledged order is in
# the game's replay; then starts the killed node again and waits for it to rejoin as a replica.
# Not part of `make test` (docs/deploy.md, "Past one machine", says why: its cost). Images come
# from the same Debian base as `make docker-test` (run that once first: it makes
# localhost/city-test/debian:bookworm-slim and the cityd and nginx images). Every phase prints
# its seconds. Containers, network and volumes are removed on exit unless CITY_DOCKER_KEEP=1.
# shellcheck disable=SC2016 # the single-quoted programs are jq's and perl's
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="$root/build/docker"
mkdir -p "$out"
: >"$out/podman-ha.log"
compose=docker/compose-ha.yml
me=docker-ha-try
pm_log=podman-ha.log
api_timeout=20
# shellcheck source=scripts/podman-lib.sh
. scripts/podman-lib.sh

id="cityha-$$"
podman_flags "$id" || fail "runc is not installed"
img_ha=localhost/city-test/ha:latest
podman image exists "$img_base" || fail "no $img_base: run make docker-test once first"
podman image exists "$img_lb" || fail "no $img_lb: run make docker-test once first"
net="$id-net"
work=$(mktemp -d "${TMPDIR:-/tmp}/city-ha.XXXXXX")
bg_pids=()
nodes=(etcd1 etcd2 etcd3 pg1 pg2 pg3 city1 city2 lb)

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for p in "${bg_pids[@]}"; do
        pkill -TERM -P "$p" 2>/dev/null || true
        kill "$p" 2>/dev/null || true
    done
    if [ "$status" != 0 ]; then
        for c in "${nodes[@]}"; do
            podman container exists "$id-$c" 2>/dev/null || continue
            say "last lines of $c:" >&2
            podman logs --tail 8 "$id-$c" 2>&1 | sed 's/^/    /' >&2 || true
        done
    fi
    if [ "${CITY_DOCKER_KEEP:-0}" != 1 ]; then
        local left
        for _ in 1 2; do
            left=$(podman ps -aq --filter "label=city-test=$id" 2>/dev/null || true)
            [ -z "$left" ] && break
            # shellcheck disable=SC2086 # -v: the image's anonymous data volume in the etcd ones
            podman rm -f -v -t 0 $left >/dev/null 2>&1 || true
        done
        podman network rm -f "$net" >/dev/null 2>&1 || true
        for v in etcd1 etcd2 etcd3 pg1 pg2 pg3; do podman volume rm -f "$id-$v" >/dev/null 2>&1 || true; done
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- images --------------------------------------------------------------------------------
phase "images (ha from docker/ha/Containerfile; cityd rebuilt from cache)"
podman build "${build_flags[@]}" -f docker/ha/Containerfile -t "$img_ha" \
    --build-arg BASE_IMAGE="$img_base" docker/ha >"$out/build-ha.log" 2>&1 ||
    { tail -n 30 "$out/build-ha.log" >&2; fail "the ha image did not build"; }
podman build "${build_flags[@]}" --jobs 2 -f docker/Dockerfile -t "$img_city" \
    --build-arg BUILD_IMAGE="$img_base" --build-arg RUNTIME_IMAGE="$img_base" . \
    >"$out/build-cityd-ha.log" 2>&1 ||
    { tail -n 30 "$out/build-cityd-ha.log" >&2; fail "the cityd image did not build"; }

# ---- reading compose-ha.yml -----------------------------------------------------------------
# ${VAR:-default} as compose expands it.
expand() { perl -pe 's/\$\{(\w+):-([^}]*)\}/$ENV{$1} \/\/ $2/ge'; }
env_of() {
    yq -r --arg s "$1" '.services[$s].environment // {} | to_entries[] | "-e\n\(.key)=\(.value)"' \
        "$compose" | expand
}
cmd_of() { yq -r --arg s "$1" '.services[$s].command // [] | .[]' "$compose"; }
check_of() { yq -r --arg s "$1" '.services[$s].healthcheck.test // [] | .[1:] | .[]' "$compose"; }
vol_of() { yq -r --arg s "$1" '.services[$s].volumes // [] | .[]' "$compose"; }
# start SERVICE IMAGE [extra podman args...]: compose's environment, network, named volumes and
# command for SERVICE.
start() {
    local s=$1 img=$2
    shift 2
    local args v
    mapfile -t args < <(net_of "$s")
    local envs cmd vols=()
    mapfile -t envs < <(env_of "$s")
    mapfile -t cmd < <(cmd_of "$s")
    while IFS= read -r v; do
        [ -n "$v" ] || continue
        case $v in
        ./*) vols+=(-v "$root/docker/${v#./}") ;;
        *) vols+=(-v "$id-$v") ;;
        esac
    done < <(vol_of "$s")
    pm run -d --name "$id-$s" "${run_flags[@]}" "${args[@]}" "${envs[@]}" "${vols[@]}" "$@" \
        "$img" "${cmd[@]}" >/dev/null
}
healthy() { # SERVICE: compose's healthcheck, else the image's
    local c
    mapfile -t c < <(check_of "$1")
    if [ "${#c[@]}" -gt 0 ]; then
        podman exec "$id-$1" "${c[@]}"
    else
        pm healthcheck run "$id-$1"
    fi
}

phase "etcd x3 healthy"
pm network create --subnet "$(yq -r '.networks.city.ipam.config[0].subnet' "$compose")" "$net" >/dev/null
for e in etcd1 etcd2 etcd3; do start "$e" "$img_ha"; done
for e in etcd1 etcd2 etcd3; do wait_for 60 healthy "$e" || fail "$e is not healthy"; done

phase "patroni x3: a leader and a sync standby"
for p in pg1 pg2 pg3; do start "$p" "$img_ha"; done
plist() { podman exec "$id-pg1" patronictl -c /etc/patroni/patroni.yml list -f json 2>/dev/null ||
    podman exec "$id-pg2" patronictl -c /etc/patroni/patroni.yml list -f json 2>/dev/null ||
    podman exec "$id-pg3" patronictl -c /etc/patroni/patroni.yml list -f json; }
ready() {
    local l
    l=$(plist) || return 1
    jq -e '([.[] | select(.Role == "Leader" and .State == "running")] | length) == 1
           and ([.[] | select(.Role == "Sync Standby" and (.State == "streaming" or .State == "running"))] | length) >= 1' \
        <<<"$l" >/dev/null
}
wait_for 120 ready || { plist >&2 || true; fail "no leader with a sync standby"; }
mark "ready"
podman exec "$id-pg1" patronictl -c /etc/patroni/patroni.yml list | sed 's/^/    /'
for p in pg1 pg2 pg3; do wait_for 60 healthy "$p" || fail "$p is not healthy"; done

phase "city1, city2 healthy; lb answering"
start city1 "$img_city"
start city2 "$img_city"
for c in city1 city2; do wait_for 60 pm healthcheck run "$id-$c" || fail "$c is not healthy"; done
lb_port_inside=$(yq -r '.services.lb.ports[0]' "$compose" | cut -d: -f2)
start lb "$img_lb" -p "127.0.0.1::$lb_port_inside"
H="http://127.0.0.1:$(podman port "$id-lb" "$lb_port_inside" | head -n 1 | sed 's/.*://')"
wait_for 30 curl -fsS -o /dev/null --max-time 2 "$H/healthz" || fail "nginx does not answer"
for _ in 1 2 3 4; do curl -sS -o /dev/null -w 'healthz through nginx: %{http_code}\n' "$H/healthz"; done | sort | uniq -c | sed 's/^/    /'

# ---- a game through nginx while the leader's container is killed ---------------------------
# play GAME TOKEN: sends each pending decision's suggestion until the game is finished; logs
# "TIME 202 ORDER" per acknowledged order into $work/acks and "TIME CODE what" per failure into
# $work/fails.
play() {
    local game=$1 tok=$2 until=$((SECONDS + 240)) reply code body pending key order last=""
    while [ "$SECONDS" -lt "$until" ]; do
        reply=$(api GET "/games/$game/hand" "" "$tok")
        code=${reply%% *} body=${reply#* }
        if [ "$code" != 200 ]; then
            echo "$EPOCHREALTIME $code hand" >>"$work/fails"
            sleep 0.1
            continue
        fi
        pending=$(jq -c '.pending // empty' <<<"$body")
        if [ -z "$pending" ]; then
            reply=$(api GET "/games/$game")
            [ "${reply%% *}" = 200 ] && [ "$(jq -r .status <<<"${reply#* }")" = finished ] && return 0
            sleep 0.1
            continue
        fi
        key=$(jq -r '"\(.round)/\(.step)/\(.turn // "")"' <<<"$pending")
        if [ "$key" = "$last" ] || [ "$(jq -r 'has("order")' <<<"$body")" = true ]; then
            sleep 0.1
            continue
        fi
        order=$(jq -c .suggestion <<<"$pending")
        t0=$EPOCHREALTIME
        reply=$(api POST "/games/$game/orders" "$order" "$tok")
        code=${reply%% *}
        echo "$t0 $EPOCHREALTIME $code" >>"$work/posts"
        case $code in
        202)
            echo "$order" >>"$work/acks"
            echo "$EPOCHREALTIME" >>"$work/ack_times"
            last=$key
            ;;
        409) ;;
        5* | 000)
            echo "$EPOCHREALTIME $code order $(jq -r '.code // empty' <<<"${reply#* }" 2>/dev/null)" >>"$work/fails"
            sleep 0.1
            ;;
        *)
            echo "order $order answered $reply" >&2
            return 1
            ;;
        esac
    done
    echo "play: game $game did not finish within 240 s" >&2
    return 1
}
: >"$work/acks"
: >"$work/ack_times"
: >"$work/fails"
: >"$work/posts"
leader() { plist | jq -r '.[] | select(.Role == "Leader") | .Member'; }

phase "game through nginx; the leader's container killed mid-game"
reply=$(api POST /games '{"name":"A","seats":3,"bots":["greedy","greedy"]}')
[ "${reply%% *}" = 201 ] || fail "create: $reply"
read -r game tok < <(jq -r '"\(.id) \(.token)"' <<<"${reply#* }")
mark "game $game created"
play "$game" "$tok" &
p1=$!
bg_pids+=("$p1")
wait_for 60 round_at_least "$game" 2 || fail "the game did not reach round 2"
old=$(leader)
n_before=$(wc -l <"$work/acks")
t_kill=$EPOCHREALTIME
pm kill "$id-$old" >/dev/null
mark "leader $old killed (SIGKILL) at $(date -u +%T.%N | cut -c1-12) with $n_before orders acknowledged"
new_leader() {
    local l
    l=$(leader) && [ -n "$l" ] && [ "$l" != "$old" ]
}
wait_for 60 new_leader || fail "no new leader after killing $old"
mark "new leader: $(leader) ($(secs "$t_kill" "$EPOCHREALTIME") s after the kill)"
acked_after() { awk -v t="$t_kill" '$1 > t' "$work/ack_times" | grep -q .; }
wait_for 60 acked_after || fail "no order acknowledged after the kill"
t_first=$(awk -v t="$t_kill" '$1 > t { print; exit }' "$work/ack_times")
mark "first order acknowledged after the kill: $(secs "$t_kill" "$t_first") s after it"
hz() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$H/healthz")" = 200 ]; }
wait_for 30 hz || fail "/healthz through nginx is not 200 after the failover"
mark "/healthz through nginx 200"
podman exec "$id-$(leader)" patronictl -c /etc/patroni/patroni.yml list | sed 's/^/    /'

phase "the killed node started again, rejoins as a replica"
t_restart=$EPOCHREALTIME
pm start "$id-$old" >/dev/null
# Patroni 3.0.2 calls a replica "running" (not "streaming") even before it has rewound: it has
# rejoined once it is on the leader's timeline with a known lag.
rejoined() {
    plist | jq -e --arg o "$old" '([.[] | select(.Role == "Leader") | .TL][0]) as $tl
        | .[] | select(.Member == $o and .Role != "Leader" and .State == "running"
                       and .TL == $tl and (."Lag in MB" | type) == "number")' >/dev/null
}
if wait_for 90 rejoined; then
    mark "$old a replica on the new timeline again ($(secs "$t_restart" "$EPOCHREALTIME") s)"
else
    mark "$old did NOT rejoin within 90 s"
fi
podman exec "$id-$(leader)" patronictl -c /etc/patroni/patroni.yml list | sed 's/^/    /'

phase "game played to the end; acknowledged orders in the replay"
wait "$p1" || fail "the game was not played to the end"
reply=$(api GET "/games/$game/replay")
[ "${reply%% *}" = 200 ] || fail "replay: $reply"
printf '%s\n' "${reply#* }" >"$work/replay.json"
lost=$(jq -n --slurpfile r "$work/replay.json" --slurpfile a "$work/acks" '
    [$a[] | . as $o | select([$r[0].decisions[] | select(.seat == 0) | del(.seat)] | index([$o]) | not)] | length')
# Orders around the kill: the longest gap between two acknowledged orders after it (the time
# orders failed or waited), against the longest before it; and the POSTs that failed or took
# over a second.
gap=$(awk -v t="$t_kill" 'NR > 1 && $1 > t { if ($1 - prev > g) g = $1 - prev } { prev = $1 } END { printf "%.1f", g }' "$work/ack_times")
gap0=$(awk -v t="$t_kill" 'NR > 1 && $1 <= t { if ($1 - prev > g) g = $1 - prev } { prev = $1 } END { printf "%.1f", g }' "$work/ack_times")
slow=$(awk -v t="$t_kill" '$3 != 202 || $2 - $1 > 1 { printf " [%+.1fs: %s after %.1fs]", $1 - t, $3, $2 - $1 }' "$work/posts")
say "  order POSTs failed or slow (start relative to the kill):${slow:- none}"
say "  game $game: $(wc -l <"$work/acks") orders acknowledged, $lost missing from the replay;" \
    "longest gap between acknowledged orders: $gap s after the kill, $gap0 s before; failed requests: $(wc -l <"$work/fails")$(awk '{ print $2, $3, $4 }' "$work/fails" | sort | uniq -c | awk '{ printf " [%s x%s]", $2" "$3" "$4, $1 }')"
events=$(api GET "/games/$game/events?after=0")
say "  events readable through nginx: ${events%% *}, $(jq '.events | length' <<<"${events#* }" 2>/dev/null) on the first page"
[ "$lost" = 0 ] || fail "$lost acknowledged orders are not in the replay"

phase ""
say "passed in $(secs "$t_start" "$EPOCHREALTIME") s"
