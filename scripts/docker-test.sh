#!/usr/bin/env bash
# docker-test.sh: `make docker-test`: proves the container deployment with podman. It makes a
# Debian base image with mmdebstrap (cached in build/docker/base.tar, made only when missing),
# builds docker/Dockerfile (the cityd image) and the suite's PostgreSQL and nginx images
# (docker/db/, docker/lb/) from it, runs the topology of docker/compose.yml as containers (db,
# city1, city2, lb, with the environment compose.yml gives them) and then, through nginx's
# published port only, plays a game to the end while one cityd container is killed and
# restarted, follows its event stream through the proxy, restarts the database container under
# a second game, and checks the image (non-root, HEALTHCHECK, no compiler, size). Every phase
# prints its seconds. Where podman cannot run here it prints "docker-test: skipped: REASON" and
# exits 0. Containers, the network and the volume are removed on exit, failed or not; the
# images stay in podman's store as the next run's layer cache.
#
# Environment: CITY_DOCKER_KEEP=1 leaves the run's containers, network and volume in place for
# a look (the containers carry the label city-test=citytest-PID; remove them with podman rm -f,
# podman network rm and podman volume rm).
# shellcheck disable=SC2016 # the single-quoted programs are jq's, not the shell's
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="$root/build/docker"
me=docker-test
pm_log=podman.log
compose=docker/compose.yml
# shellcheck source=scripts/podman-lib.sh
. scripts/podman-lib.sh

skip() {
    say "skipped: $*"
    exit 0
}

# ---- can podman run here? ------------------------------------------------------------------
command -v podman >/dev/null 2>&1 ||
    skip "podman is not installed (as root: apt-get install podman runc mmdebstrap)"
[ "$(id -u)" = 0 ] ||
    skip "needs root: the test runs rootful podman and mmdebstrap (not set up for rootless use)"
command -v mmdebstrap >/dev/null 2>&1 || skip "mmdebstrap is not installed (apt-get install mmdebstrap)"
id="citytest-$$"
podman_flags "$id" || skip "runc is not installed (apt-get install runc)"
command -v yq >/dev/null 2>&1 || skip "yq is not installed (apt-get install yq): it reads compose.yml"
yq -r .name docker/compose.yml >/dev/null 2>&1 ||
    skip "this yq does not take jq's language (Debian's yq package, a jq wrapper, does)"
if ! info=$(podman info --format '{{.Host.NetworkBackend}}' 2>&1); then
    skip "podman info fails: $(printf '%s' "$info" | head -n 1)"
fi

mkdir -p "$out"
: >"$out/podman.log"

net="$id-net"
vol="$id-pgdata"
img_db=localhost/city-test/postgres:15
work=$(mktemp -d "${TMPDIR:-/tmp}/city-docker.XXXXXX")
bg_pids=()

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    # The background jobs (builds, players, stream followers) and their children (curl, podman).
    for p in "${bg_pids[@]}"; do
        pkill -TERM -P "$p" 2>/dev/null || true
        kill "$p" 2>/dev/null || true
    done
    for p in "${bg_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "$status" != 0 ]; then
        for c in db city1 city2 lb; do
            if podman container exists "$id-$c" 2>/dev/null; then
                say "last lines of $c's output:" >&2
                podman logs --tail 15 "$id-$c" 2>&1 | sed 's/^/    /' >&2 || true
            fi
        done
    fi
    if [ "$status" != 0 ] && [ -s "$out/podman.log" ]; then
        say "podman's messages ($out/podman.log):" >&2
        tail -n 10 "$out/podman.log" | sed 's/^/    /' >&2
    fi
    if [ "${CITY_DOCKER_KEEP:-0}" != 1 ]; then
        # By label, twice: a podman command cut short by the same signal may still hold one.
        local left
        for _ in 1 2; do
            left=$(podman ps -aq --filter "label=city-test=$id" 2>/dev/null || true)
            [ -z "$left" ] && break
            # shellcheck disable=SC2086 # a list of ids
            podman rm -f -t 0 $left >/dev/null 2>&1 || true
        done
        podman network rm -f "$net" >/dev/null 2>&1 || true
        podman volume rm -f "$vol" >/dev/null 2>&1 || true
        if podman ps -aq --filter "label=city-test=$id" 2>/dev/null | grep -q .; then
            say "could not remove every container labelled city-test=$id" >&2
        fi
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM



# ---- the base image ------------------------------------------------------------------------
# A minimal Debian bookworm laid out like debian:bookworm-slim (docker/base-hook.sh), from the
# same package sources as this machine when it runs bookworm, else from Debian's default mirror.
# (The hook trims the tree after the fact: dpkg's path-exclude options given to mmdebstrap
# itself doubled its time.)
phase "base image (mmdebstrap, cached in build/docker)"
if [ ! -s "$out/base.tar" ]; then
    sources=()
    if grep -qs '^Suites:.*bookworm' /etc/apt/sources.list.d/debian.sources; then
        sources=(/etc/apt/sources.list.d/debian.sources)
    fi
    # merged-usr: /usr merged as debootstrap does it, without the usrmerge package (which
    # would leave the whole of perl in the base, 50 MB, and convert the tree after the fact).
    mmdebstrap --verbose --variant=minbase --format=tar \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --customize-hook="sh '$root/docker/base-hook.sh' \"\$1\"" \
        bookworm "$out/base.tar.part" "${sources[@]}" 2>&1 |
        while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME%????}" "$line"; done \
            >"$out/mmdebstrap.log" ||
        { tail -n 20 "$out/mmdebstrap.log" >&2; fail "mmdebstrap could not make the base"; }
    mv "$out/base.tar.part" "$out/base.tar"
    rm -f "$out/base.id"
fi
if [ ! -s "$out/base.id" ] || [ "$out/base.tar" -nt "$out/base.id" ] ||
    ! podman image exists "$(cat "$out/base.id")" || ! podman image exists "$img_base"; then
    podman import -q --change 'CMD ["bash"]' "$out/base.tar" "$img_base" >"$out/base.id"
fi
if ! probe=$(podman run --rm "${run_flags[@]}" --network none "$img_base" true 2>&1); then
    skip "podman cannot run a container here: $(printf '%s' "$probe" | head -n 1)"
fi

# ---- the images ----------------------------------------------------------------------------
# The three builds run at once: they spend most of their time downloading and unpacking
# packages. --jobs 2 builds the Dockerfile's two stages side by side.
phase "images (cityd, postgres, nginx; built at once)"
build() { # NAME LOG ARGS...
    local name=$1 log=$2
    shift 2
    if ! podman build "${build_flags[@]}" "$@" >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "build of $name failed (log: $log)" >&2
        return 1
    fi
}
build cityd "$out/build-cityd.log" --jobs 2 -f docker/Dockerfile -t "$img_city" \
    --build-arg BUILD_IMAGE="$img_base" --build-arg RUNTIME_IMAGE="$img_base" . &
b1=$!
build postgres "$out/build-db.log" -f docker/db/Containerfile -t "$img_db" \
    --build-arg BASE_IMAGE="$img_base" docker/db &
b2=$!
build nginx "$out/build-lb.log" -f docker/lb/Containerfile -t "$img_lb" \
    --build-arg BASE_IMAGE="$img_base" docker/lb &
b3=$!
bg_pids+=("$b1" "$b2" "$b3")
bad=0
for b in $b1 $b2 $b3; do wait "$b" || bad=1; done
[ "$bad" = 0 ] || fail "an image did not build"

# ---- the topology of docker/compose.yml ----------------------------------------------------
# The environment, the subnet and the fixed address of each service are read from compose.yml
# itself; the names compose gives (db, city1, city2, lb) are aliases on a network of this
# run's own.
phase "topology up (db healthy, city1+city2 healthy, lb answering)"
env_of() { # SERVICE -> -e KEY=VALUE arguments, one a line
    yq -r --arg s "$1" '.services[$s].environment // {} | to_entries[] | "-e\n\(.key)=\(.value)"' \
        docker/compose.yml
}
mapfile -t db_env < <(env_of db)
mapfile -t city_env < <(env_of city1)
[ "${#city_env[@]}" -gt 0 ] || fail "compose.yml gives city1 no environment"
db_check=$(yq -r '.services.db.healthcheck.test[1]' docker/compose.yml)

subnet=$(yq -r '.networks.city.ipam.config[0].subnet' docker/compose.yml)
pm network create --subnet "$subnet" "$net" >/dev/null ||
    fail "could not make a network on compose.yml's subnet $subnet (is another using it?)"
pm volume create "$vol" >/dev/null
mapfile -t net_args < <(net_of db)
pm run -d --name "$id-db" "${run_flags[@]}" "${net_args[@]}" \
    "${db_env[@]}" -v "$vol:/var/lib/postgresql/data" --health-cmd "$db_check" "$img_db" >/dev/null
wait_for 60 pm healthcheck run "$id-db" || fail "PostgreSQL did not become healthy"
mark "db healthy"

# Each instance is started as the README's `docker run -e DATABASE_URL=... -p 8080:8080 cityd`
# (the port published on loopback, at a port podman picks), with compose.yml's environment.
start_city() {
    mapfile -t net_args < <(net_of "$1")
    pm run -d --name "$id-$1" "${run_flags[@]}" "${net_args[@]}" \
        "${city_env[@]}" -p 127.0.0.1::8080 "$img_city" >/dev/null
}
port_of() { podman port "$id-$1" "$2" | head -n 1 | sed 's/.*://'; }
healthz() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$(port_of "$1" 8080)/healthz"; }
start_city city1
start_city city2
wait_for 60 healthz city1 || fail "city1 did not answer /healthz"
wait_for 60 healthz city2 || fail "city2 did not answer /healthz"
mark "city1 and city2 answer /healthz"

lb_conf_target=$(yq -r '.services.lb.volumes[0]' docker/compose.yml | cut -d: -f2)
lb_port_inside=$(yq -r '.services.lb.ports[0]' docker/compose.yml | cut -d: -f2)
mapfile -t net_args < <(net_of lb)
pm run -d --name "$id-lb" "${run_flags[@]}" "${net_args[@]}" \
    -v "$root/docker/nginx.conf:$lb_conf_target:ro" -p "127.0.0.1::$lb_port_inside" \
    "$img_lb" >/dev/null
H="http://127.0.0.1:$(port_of lb "$lb_port_inside")"
wait_for 30 curl -fsS -o /dev/null --max-time 2 "$H/healthz" || fail "nginx does not answer"

# ---- the client: plays through nginx only --------------------------------------------------

# play GAME TOKEN ACKS RETRIES: plays the seat by sending each pending decision's suggestion
# until the game is finished. Every order answered 202 is appended to ACKS; every 5xx or
# unanswered request (an instance or the database going away) is retried after 0.1 s and
# counted in RETRIES. Gives up after 150 s.
play() {
    local game=$1 tok=$2 acks=$3 retries=$4 until=$((SECONDS + 150))
    local reply code body pending key order last=""
    : >"$acks"
    : >"$retries"
    while [ "$SECONDS" -lt "$until" ]; do
        reply=$(api GET "/games/$game/hand" "" "$tok")
        code=${reply%% *} body=${reply#* }
        if [ "$code" != 200 ]; then
            echo "hand $code" >>"$retries"
            sleep 0.1
            continue
        fi
        pending=$(jq -c '.pending // empty' <<<"$body")
        if [ -z "$pending" ]; then
            reply=$(api GET "/games/$game")
            if [ "${reply%% *}" = 200 ] &&
                [ "$(jq -r .status <<<"${reply#* }")" = finished ]; then
                return 0
            fi
            sleep 0.1
            continue
        fi
        key=$(jq -r '"\(.round)/\(.step)/\(.turn // "")"' <<<"$pending")
        if [ "$key" = "$last" ] || [ "$(jq -r 'has("order")' <<<"$body")" = true ]; then
            sleep 0.1 # sent already: the step waits for someone else
            continue
        fi
        order=$(jq -c .suggestion <<<"$pending")
        reply=$(api POST "/games/$game/orders" "$order" "$tok")
        code=${reply%% *}
        case $code in
        202)
            echo "$order" >>"$acks"
            last=$key
            ;;
        409) ;; # the step moved on meanwhile: read the hand again
        5* | 000)
            echo "order $code" >>"$retries"
            sleep 0.1
            ;;
        *)
            echo "order $order answered $reply" >&2
            return 1
            ;;
        esac
    done
    echo "play: game $game did not finish within 150 s" >&2
    return 1
}

# follow GAME FILE: the game's event stream through nginx into FILE, reconnecting with
# Last-Event-ID (as a browser's EventSource does) when the instance holding it goes away,
# until the game_over event.
follow() {
    local game=$1 file=$2 last=0 until=$((SECONDS + 150))
    : >"$file"
    : >"$file.reconnects"
    while [ "$SECONDS" -lt "$until" ]; do
        curl -sSN --max-time 60 -H "Last-Event-ID: $last" \
            "$H/api/v1/games/$game/stream" >>"$file" 2>/dev/null || true
        grep -q '^event: game_over' "$file" && return 0
        last=$(sed -n 's/^id: //p' "$file" | tail -n 1)
        last=${last:-0}
        echo "reconnect after $last" >>"$file.reconnects"
        sleep 0.2
    done
    return 1
}

# lines_at_least FILE N: FILE has N lines or more.
lines_at_least() { [ "$(wc -l <"$1")" -ge "$2" ]; }


# check_game GAME ACKS STREAM: every acknowledged order is among the published decisions
# (replay), and the stream saw every event of the log, in order.
check_game() {
    local game=$1 acks=$2 stream=$3 reply
    reply=$(api GET "/games/$game/replay")
    [ "${reply%% *}" = 200 ] || fail "replay of $game: $reply"
    printf '%s\n' "${reply#* }" >"$work/replay.json"
    local lost
    lost=$(jq -n --slurpfile r "$work/replay.json" --slurpfile a "$acks" '
        [$a[] | . as $o | select([$r[0].decisions[] | select(.seat == 0) | del(.seat)]
                                 | index([$o]) | not)] | length')
    [ "$lost" = 0 ] || fail "$lost acknowledged orders of game $game are not in its replay"
    local after=0 page n
    : >"$work/log.ids"
    while :; do
        reply=$(api GET "/games/$game/events?after=$after")
        [ "${reply%% *}" = 200 ] || fail "events of $game: $reply"
        page=${reply#* }
        n=$(jq '.events | length' <<<"$page")
        [ "$n" -gt 0 ] || break
        jq -r '.events[].seq' <<<"$page" >>"$work/log.ids"
        after=$(tail -n 1 "$work/log.ids")
    done
    sed -n 's/^id: //p' "$stream" | awk '!seen[$0]++' >"$work/stream.ids"
    cmp -s "$work/log.ids" "$work/stream.ids" ||
        fail "the stream of $game through nginx saw $(wc -l <"$work/stream.ids") events, the log has $(wc -l <"$work/log.ids")"
    say "  game $game: $(wc -l <"$acks") orders acknowledged, all in the replay;" \
        "the stream saw all $(wc -l <"$work/log.ids") events" \
        "($(wc -l <"$stream.reconnects" 2>/dev/null || echo 0) reconnects);" \
        "$(wc -l <"${acks%.acks}.retries") requests retried$(sort "${acks%.acks}.retries" |
            uniq -c | awk '{ printf "%s %s %s x%s", (NR == 1 ? ":" : ","), $2, $3, $1 }')"
}

new_game() { # SEATS BOTS_JSON -> "ID TOKEN"
    local reply
    reply=$(api POST /games "{\"seats\": $1, \"bots\": $2, \"name\": \"Ada\"}")
    [ "${reply%% *}" = 201 ] || fail "create: $reply"
    jq -r '"\(.id) \(.token)"' <<<"${reply#* }"
}

# ---- a game through nginx while a cityd container is killed and restarted -----------------
# The instance killed is the one that holds the game's event stream, so that the stream must
# resume on the other one (Last-Event-ID) and still see every event.
# streams_on NAME: the event streams open on that instance (its /metrics, direct).
streams_on() {
    curl -fsS --max-time 2 "http://127.0.0.1:$(port_of "$1" 8080)/metrics" |
        awk '$1 == "city_streams{state=\"open\"}" { print $2 }'
}
stream_held() { [ "$(streams_on city1)" -ge 1 ] || [ "$(streams_on city2)" -ge 1 ]; }

phase "game 1: played to the end, its stream's instance killed + restarted"
read -r g1 t1 < <(new_game 3 '["greedy", "greedy"]')
follow "$g1" "$work/g1.sse" &
f1=$!
bg_pids+=("$f1")
wait_for 30 stream_held || fail "no instance holds the stream of game 1"
victim=city1
[ "$(streams_on city1)" -ge 1 ] || victim=city2
play "$g1" "$t1" "$work/g1.acks" "$work/g1.retries" &
p1=$!
bg_pids+=("$p1")
wait_for 30 round_at_least "$g1" 2 || fail "game 1 did not reach round 2"
pm kill "$id-$victim" >/dev/null
mark "$victim (holding the stream) killed (SIGKILL) with $(wc -l <"$work/g1.acks") orders acknowledged"
acked=$(wc -l <"$work/g1.acks")
# The game goes on through the other instance alone: three more acknowledged orders (or the
# rest of the game, if it ends sooner).
through_other() { lines_at_least "$work/g1.acks" $((acked + 3)) || ! kill -0 "$p1" 2>/dev/null; }
if ! wait_for 30 through_other || ! lines_at_least "$work/g1.acks" $((acked + 1)); then
    fail "no orders acknowledged while $victim was down"
fi
mark "$(($(wc -l <"$work/g1.acks") - acked)) orders acknowledged through the other instance alone; starting $victim"
t_back=$(date -u +%Y-%m-%dT%H:%M:%SZ)
pm start "$id-$victim" >/dev/null
wait_for 60 healthz "$victim" || fail "$victim did not come back"
mark "$victim healthy again"
wait "$p1" || fail "game 1 was not played to the end"
mark "game 1 finished"
wait "$f1" || fail "the stream of game 1 did not reach game_over"
mark "its stream reached game_over"
check_game "$g1" "$work/g1.acks" "$work/g1.sse"

# ---- a game while the database restarts ----------------------------------------------------
phase "game 2: database restarted, both instances reconnect"
read -r g2 t2 < <(new_game 2 '["greedy"]')
follow "$g2" "$work/g2.sse" &
f2=$!
play "$g2" "$t2" "$work/g2.acks" "$work/g2.retries" &
p2=$!
bg_pids+=("$f2" "$p2")
wait_for 30 round_at_least "$g2" 2 || fail "game 2 did not reach round 2"
t_db=$EPOCHREALTIME
mark "restarting the database container with $(wc -l <"$work/g2.acks") orders acknowledged"
pm restart -t 10 "$id-db" >/dev/null
wait_for 60 pm healthcheck run "$id-db" || fail "PostgreSQL did not come back"
mark "database healthy again"
wait_for 60 healthz city1 || fail "city1 did not reconnect to the database"
wait_for 60 healthz city2 || fail "city2 did not reconnect to the database"
mark "both instances answer /healthz again ($(secs "$t_db" "$EPOCHREALTIME") s after the restart began)"
wait "$p2" || fail "game 2 was not played to the end after the database restart"
mark "game 2 finished"
wait "$f2" || fail "the stream of game 2 did not reach game_over"
mark "its stream reached game_over"
check_game "$g2" "$work/g2.acks" "$work/g2.sse"
# The restarted instance is back in nginx's rotation: it serves game requests sent to nginx
# (nginx keeps an instance that failed out for fail_timeout, 10 s, so this may take a while).
served_since_back() {
    api GET "/games/$g2" >/dev/null
    api GET "/games/$g2" >/dev/null
    back=$(podman logs --since "$t_back" "$id-$victim" 2>&1 | grep -c '/api/v1/games/' || true)
    [ "$back" -ge 1 ]
}
wait_for 30 served_since_back || fail "nginx sent no request to $victim after its restart"
mark "$victim served $back game requests through nginx since its restart"
served=$(podman logs "$id-lb" 2>/dev/null | sed -n 's/.*upstream=\([^ ,]*\).*/\1/p' |
    grep -v '^-$' | sort -u | wc -l)
[ "$served" -ge 2 ] || fail "nginx sent every request to one instance"

# ---- the image -----------------------------------------------------------------------------
phase "image checks"
user=$(podman image inspect --format '{{.Config.User}}' "$img_city")
case $user in "" | root | 0 | 0:*) fail "the image runs as '${user:-root}'" ;; esac
uid=$(podman exec "$id-city2" id -u)
[ "$uid" != 0 ] || fail "cityd runs as root inside the container"
podman image inspect --format '{{json .Config.Healthcheck}}' "$img_city" | grep -q healthz ||
    fail "the image has no HEALTHCHECK (built without --format docker?)"
pm healthcheck run "$id-city2" >/dev/null || fail "the HEALTHCHECK of city2 fails"
# PORT (README) sets the port: no --port in the image's command would override it.
cmd=$(podman image inspect --format '{{json .Config.Cmd}}' "$img_city")
case $cmd in *--port*) fail "the image's command fixes the port ($cmd), so PORT does nothing" ;; esac
health=$(podman inspect --format '{{.State.Health.Status}}' "$id-city2" 2>/dev/null ||
    podman inspect --format '{{.State.Healthcheck.Status}}' "$id-city2")
[ "$health" = healthy ] || fail "city2's health is '$health'"
compilers=$(podman exec "$id-city2" sh -c \
    'for c in gcc cc c99 cpp clang tcc as ld make; do command -v "$c"; done; true')
[ -z "$compilers" ] || fail "the image holds build tools: $compilers"
size=$(podman image inspect --format '{{.Size}}' "$img_city")
say "  image: user $user (uid $uid), HEALTHCHECK $health, no compiler, $((size / 1000000)) MB"

phase ""
say "passed in $(secs "$t_start" "$EPOCHREALTIME") s"
