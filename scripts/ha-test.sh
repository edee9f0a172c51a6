#!/usr/bin/env bash
# ha-test.sh: `make ha-test`, the proof that no acknowledged order is lost when the database
# fails over (docs/deploy.md, "Past one machine"). On loopback, in a temp directory: 3 etcd
# members, 3 Patroni nodes over PostgreSQL 15 in strict synchronous mode, 2 cityd instances on
# the multi-host DATABASE_URL; tests/ha/client.mjs plays games on both with a steady order load
# while this script kills -9 the primary's postmaster (HA_KILLS times), makes one planned
# switchover and kills one etcd member. Then: every order that got a 202 is in its game's events
# (as a "submitted" event of its seat, round and step), every game's replay (seed and
# decisions) ends where the stored game is, both daemons answer /healthz 200. Prints what was
# tried and measured and ends with the line
#   ha: engine=patroni failovers=N acknowledged=N lost=N max_unavailable_s=X orders_per_sec_before=X orders_per_sec_after=X
# Exits non-zero when an order is lost or a check fails. Every wait is bounded; on exit every
# process it started is stopped and the temp directory removed.
#
# Usage: scripts/ha-test.sh [BUILD_DIR]  (default build; needs BUILD_DIR/cityd, node, patroni,
# etcd; PostgreSQL's processes run as `postgres` when started as root). Settings: HA_SECONDS
# (the most seconds of load, default 300; the load stops 8 s after the last fault), HA_GAMES
# (games at once, default 12), HA_KILLS (default 3), HA_GAP (seconds of load between two faults,
# once the cluster is whole again; default 3), HA_REJOIN (seconds a failed node may take to
# rejoin past the 45 s a new leader with a sync standby may take; default 120: the test fails
# beyond), HA_KEEP=1 (keep the temp directory and its logs).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cityd="$root/$build/cityd"
seconds=${HA_SECONDS:-300}
ngames=${HA_GAMES:-12}
kills=${HA_KILLS:-3}
gap=${HA_GAP:-3}
rejoin=${HA_REJOIN:-120}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
psql="$pgbin/psql" # not /usr/bin/psql: Debian's Perl wrapper costs ~50 ms a call

for need in "$cityd" "$pgbin/postgres"; do
    [ -x "$need" ] || { echo "ha-test: $need is missing" >&2; exit 1; }
done
for cmd in patroni patronictl etcd etcdctl node curl python3 setpriv; do
    command -v "$cmd" >/dev/null || {
        echo "ha-test: $cmd is missing (apt-get install patroni etcd-server etcd-client nodejs curl)" >&2
        exit 1
    }
done

t0=$(date +%s%N)
ms() { echo $(( $(date +%s%N) / 1000000 )); }
say() { printf 'ha-test: [%5.1f s] %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/city-ha.XXXXXX")
chmod 755 "$tmp"
if [ "$(id -u)" = 0 ]; then
    pguser=postgres
    chown "$pguser" "$tmp"
    as_pg() { setpriv --reuid="$pguser" --regid="$pguser" --init-groups "$@"; }
else
    pguser=$(id -un)
    as_pg() { "$@"; }
fi

pids=() # every background process, stopped on exit
cleanup() {
    set +e
    local c0
    c0=$(date +%s%N)
    # Patroni first (so it restarts nothing), then each PostgreSQL at once (its data is thrown
    # away), then etcd and the rest.
    for i in 1 2 3; do [ -n "${patroni_pid[$i]:-}" ] && kill -9 "${patroni_pid[$i]}" 2>/dev/null; done
    local stops=()
    for i in 1 2 3; do
        if [ -f "$tmp/pg$i/postmaster.pid" ]; then
            (cd / && as_pg "$pgbin/pg_ctl" -D "$tmp/pg$i" -m immediate -w -t 10 stop >/dev/null 2>&1) &
            stops+=($!)
        fi
    done
    [ ${#stops[@]} = 0 ] || wait "${stops[@]}"
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    if [ -n "${HA_KEEP:-}" ]; then echo "ha-test: kept $tmp" >&2; else rm -rf "$tmp"; fi
    echo "ha-test: teardown $(( ($(date +%s%N) - c0) / 1000000 )) ms" >&2
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
    echo "ha-test: FAILED: $*" >&2
    for f in "$tmp"/*.log; do
        [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
    done
    exit 1
}

# Fourteen free loopback ports: etcd client and peer, PostgreSQL, Patroni's REST API, cityd.
free_ports() {
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}
read -r -a ports <<<"$(free_ports 14)"
declare -A etcd_client etcd_peer pg_port rest_port patroni_pid etcd_pid
for i in 1 2 3; do
    etcd_client[$i]=${ports[$((i - 1))]}
    etcd_peer[$i]=${ports[$((i + 2))]}
    pg_port[$i]=${ports[$((i + 5))]}
    rest_port[$i]=${ports[$((i + 8))]}
done
city_port=(${ports[12]} ${ports[13]})
scope="city-ha-$$"
endpoints="127.0.0.1:${etcd_client[1]},127.0.0.1:${etcd_client[2]},127.0.0.1:${etcd_client[3]}"

# ---- etcd ------------------------------------------------------------------------------------
cluster=""
for i in 1 2 3; do cluster+="${cluster:+,}e$i=http://127.0.0.1:${etcd_peer[$i]}"; done
for i in 1 2 3; do
    (cd "$tmp" && exec setpriv --reuid="$pguser" --regid="$pguser" --init-groups \
        etcd --name "e$i" --data-dir "$tmp/etcd$i" \
        --listen-client-urls "http://127.0.0.1:${etcd_client[$i]}" \
        --advertise-client-urls "http://127.0.0.1:${etcd_client[$i]}" \
        --listen-peer-urls "http://127.0.0.1:${etcd_peer[$i]}" \
        --initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer[$i]}" \
        --initial-cluster "$cluster" --initial-cluster-state new \
        --initial-cluster-token "$scope") >"$tmp/etcd$i.log" 2>&1 &
    etcd_pid[$i]=$!
    pids+=($!)
    disown $! # killed on purpose: no "Killed" notice
done
etcdctl_() { ETCDCTL_API=3 etcdctl --endpoints="$endpoints" --dial-timeout=1s --command-timeout=2s "$@"; }
ok=""
for _ in $(seq 100); do
    etcdctl_ endpoint health >/dev/null 2>&1 && { ok=1; break; }
    sleep 0.2
done
[ -n "$ok" ] || fail "etcd did not become healthy in 20 s"
say "etcd: 3 members healthy"

# ---- Patroni ---------------------------------------------------------------------------------
for i in 1 2 3; do
    cat >"$tmp/patroni$i.yml" <<EOF
scope: $scope
namespace: /city-ha/
name: pg$i
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${rest_port[$i]}
  connect_address: 127.0.0.1:${rest_port[$i]}
etcd3:
  hosts: $endpoints
bootstrap:
  dcs:
    ttl: 5
    loop_wait: 1
    retry_timeout: 2
    maximum_lag_on_failover: 1048576
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      use_slots: false
      parameters:
        wal_log_hints: 'on'
        wal_retrieve_retry_interval: 500ms
        max_connections: 200
        synchronous_commit: 'on'
  initdb:
  - encoding: UTF8
  - locale: C
  pg_hba:
  - local all all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${pg_port[$i]}
  connect_address: 127.0.0.1:${pg_port[$i]}
  data_dir: $tmp/pg$i
  bin_dir: $pgbin
  pgpass: $tmp/pgpass$i
  authentication:
    superuser: {username: postgres, password: postgres}
    replication: {username: postgres, password: postgres}
    rewind: {username: postgres, password: postgres}
  parameters:
    unix_socket_directories: '$tmp'
  # Written by Patroni on every start, not only at bootstrap: a pg_rewind cut short (its source,
  # the new primary, killed mid-copy) leaves the configuration files empty.
  pg_hba:
  - local all all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
  # A rewind that fails (its source died, or the timelines cannot be joined) starts the node
  # again from a fresh base backup instead of leaving it down for good.
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
watchdog:
  mode: 'off'
EOF
done
for i in 1 2 3; do
    (cd "$tmp" && exec setpriv --reuid="$pguser" --regid="$pguser" --init-groups \
        patroni "$tmp/patroni$i.yml") >"$tmp/patroni$i.log" 2>&1 &
    patroni_pid[$i]=$!
    pids+=($!)
    disown $!
done

# The cluster as Patroni sees it: "leader=pgN sync=pgM running=K" (K members running, a
# replica only once it follows the leader's timeline with a known lag: Patroni calls a replica
# "running" while it still has to rewind).
cluster_state() {
    local i out
    for i in 1 2 3; do
        out=$(curl -s -m 1 "http://127.0.0.1:${rest_port[$i]}/cluster" 2>/dev/null) || continue
        python3 -c '
import json, sys
c = json.loads(sys.argv[1])
m = c.get("members", [])
lead = [x["name"] for x in m if x.get("role") == "leader" and x.get("state") == "running"]
sync = [x["name"] for x in m if x.get("role") == "sync_standby" and x.get("state") in ("running", "streaming")]
tl = [x.get("timeline") for x in m if x.get("role") == "leader"]
run = [x for x in m if x.get("state") in ("running", "streaming") and (x.get("role") == "leader"
       or (tl and x.get("timeline") == tl[0] and isinstance(x.get("lag"), int)))]
print("leader=%s sync=%s running=%d" % (lead[0] if lead else "-", sync[0] if sync else "-", len(run)))
' "$out" 2>/dev/null && return 0
    done
    echo "leader=- sync=- running=0"
}
leader_of() { sed -n 's/.*leader=\([^ ]*\).*/\1/p' <<<"$1"; }

# Waits (up to $1 s) for a leader other than $2 ("-": any), a sync standby and 3 members
# running. Past the limit, a leader with a sync standby is enough (writes go on, on two nodes;
# a node slow to rejoin on a busy machine is reported, not failed): returns 1 only without.
wait_healthy_cluster() {
    local limit=$1 not=$2 s l
    local end=$(( $(date +%s) + limit ))
    while [ "$(date +%s)" -lt "$end" ]; do
        s=$(cluster_state)
        l=$(leader_of "$s")
        if [ "$l" != "-" ] && [ "$l" != "$not" ] && ! grep -q "sync=-" <<<"$s" && grep -q "running=3" <<<"$s"; then
            echo "$s"
            return 0
        fi
        sleep 0.2
    done
    s=$(cluster_state)
    l=$(leader_of "$s")
    echo "$s (a node still rejoining)"
    [ "$l" != "-" ] && [ "$l" != "$not" ] && ! grep -q "sync=-" <<<"$s"
}
state=$(wait_healthy_cluster 60 -) || fail "Patroni did not elect a leader with a sync standby in 60 s ($state)"
leader=$(leader_of "$state")
say "patroni: bootstrapped: $state"

lport() { echo "${pg_port[${1#pg}]}"; }
"$psql" -h 127.0.0.1 -p "$(lport "$leader")" -U postgres -qAt -c "CREATE DATABASE city" postgres >/dev/null ||
    fail "CREATE DATABASE city failed"

# What the primary holds with its synchronous standby: pgbench's simple-update transactions
# (one commit each, as a lone order's) for HA_PGBENCH_SECONDS (default 3; 0: skip), 16 clients,
# in a database of its own (docs/deploy.md's capacity plan reads it).
pgb_seconds=${HA_PGBENCH_SECONDS:-3}
tps="-"
if [ "$pgb_seconds" -gt 0 ] && [ -x "$pgbin/pgbench" ]; then
    lp=$(lport "$leader")
    "$psql" -h 127.0.0.1 -p "$lp" -U postgres -qAt -c "CREATE DATABASE bench" postgres >/dev/null
    "$pgbin/pgbench" -h 127.0.0.1 -p "$lp" -U postgres -i -s 1 -q bench >"$tmp/pgbench.log" 2>&1
    if timeout $((pgb_seconds + 30)) "$pgbin/pgbench" -h 127.0.0.1 -p "$lp" -U postgres -N -c 16 -j 2 \
        -T "$pgb_seconds" bench >>"$tmp/pgbench.log" 2>&1; then
        tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/pgbench.log" | head -n 1)
    fi
    "$psql" -h 127.0.0.1 -p "$lp" -U postgres -qAt -c "DROP DATABASE bench" postgres >/dev/null || true
    say "pgbench -N, 16 clients, ${pgb_seconds} s on the primary with its synchronous standby: $tps tps"
fi

# ---- cityd x2 --------------------------------------------------------------------------------
url="postgresql://postgres@127.0.0.1:${pg_port[1]},127.0.0.1:${pg_port[2]},127.0.0.1:${pg_port[3]}/city?target_session_attrs=read-write"
bases=()
for k in 0 1; do
    CITY_MAX_PER_ADDRESS=100000 "$cityd" serve --port "${city_port[$k]}" --database "$url" \
        --web "$root/web" --cards "$root/cards/cards.json" --migrations "$root/migrations" \
        --allow-seed --create-rate 0 --join-rate 0 --read-rate 0 --max-amendments 0 \
        --open-ttl 3600 --idle-game-seconds 3600 >"$tmp/cityd$k.log" 2>&1 &
    pids+=($!)
    disown $!
    bases+=("http://127.0.0.1:${city_port[$k]}")
done
for b in "${bases[@]}"; do
    ok=""
    for _ in $(seq 150); do
        [ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' "$b/healthz")" = 200 ] && { ok=1; break; }
        sleep 0.2
    done
    [ -n "$ok" ] || fail "cityd at $b did not become healthy in 30 s"
done
say "cityd: 2 instances healthy on $url"

# ---- load and faults -------------------------------------------------------------------------
marks="$tmp/marks"
echo "load_start $(ms)" >"$marks"
node "$root/tests/ha/client.mjs" load "$(IFS=,; echo "${bases[*]}")" "$seconds" "$ngames" "$tmp" \
    >"$tmp/load.json" 2>"$tmp/client.log" &
client=$!
pids+=($client)

failovers=0
outages=()
# Whether cluster state $1 is whole: a leader, its sync standby, and 3 members running.
whole() { [ "$(leader_of "$1")" != "-" ] && ! grep -q "sync=-" <<<"$1" && grep -q "running=3" <<<"$1"; }
fault() { # $1: what; runs "$2..." then waits for a new leader and a full cluster
    local what=$1 before=$leader start
    shift
    start=$(ms)
    "$@"
    local expect_new=$before
    [ "$what" = "etcd" ] && expect_new=-
    state=$(wait_healthy_cluster 45 "$expect_new") || fail "after $what: no leader with a sync standby in 45 s ($state)"
    leader=$(leader_of "$state")
    [ "$leader" != "$before" ] && failovers=$((failovers + 1))
    # The next fault is meant for a whole cluster: a node rejoining late (a rewind, or a fresh
    # base backup after a failed one, on a busy machine) is waited for, up to HA_REJOIN seconds
    # more; a node that never rejoins is a fault of the cluster, and fails the test.
    if ! whole "$state"; then
        local late=$(( $(date +%s) + rejoin ))
        while ! whole "$state" && [ "$(date +%s)" -lt "$late" ]; do
            sleep 0.5
            state=$(cluster_state)
        done
        whole "$state" || fail "after $what: a node did not rejoin in $((45 + rejoin)) s ($state)"
        local now=$(leader_of "$state")
        [ "$now" != "$leader" ] && failovers=$((failovers + 1)) # another failover meanwhile
        leader=$now
    fi
    say "$what: $before -> $leader, whole again in $(( ($(ms) - start) ))ms ($state)"
}
kill_primary() {
    local port=$(lport "$leader") pid
    pid=$(head -n 1 "$tmp/pg${leader#pg}/postmaster.pid")
    kill -9 "$pid"
}
switchover() {
    local cand
    cand=$(sed -n 's/.*sync=\([^ ]*\).*/\1/p' <<<"$state")
    patronictl -c "$tmp/patroni1.yml" switchover --leader "$leader" --candidate "$cand" --force \
        >"$tmp/switchover.log" 2>&1 || fail "patronictl switchover failed: $(cat "$tmp/switchover.log")"
}
kill_etcd() { # the etcd leader: the members left must elect another
    local i lead=1 st
    for i in 1 2 3; do
        st=$(ETCDCTL_API=3 etcdctl --endpoints="127.0.0.1:${etcd_client[$i]}" --dial-timeout=1s \
            --command-timeout=2s endpoint status -w json 2>/dev/null) || continue
        python3 -c '
import json, sys
s = json.loads(sys.argv[1])[0]["Status"]
sys.exit(0 if s["header"]["member_id"] == s["leader"] else 1)' "$st" 2>/dev/null && { lead=$i; break; }
    done
    kill -9 "${etcd_pid[$lead]}"
    say "etcd: killed member e$lead (the leader)"
}

sleep 6 # the rate before
echo "first_fault $(ms)" >>"$marks"
for k in $(seq "$kills"); do
    fault "kill -9 of the primary's postmaster ($k)" kill_primary
    sleep "$gap"
done
fault "switchover" switchover
sleep "$gap"
fault "etcd" kill_etcd
echo "last_fault_done $(ms)" >>"$marks"
sleep 8 # the rate after
touch "$tmp/stop" # the client starts no new game and ends those playing

wait_end=$(( $(date +%s) + 90 ))
while kill -0 "$client" 2>/dev/null && [ "$(date +%s)" -lt "$wait_end" ]; do sleep 0.5; done
kill -0 "$client" 2>/dev/null && fail "the client did not finish in time"
wait "$client" || fail "the client failed: $(tail -n 5 "$tmp/client.log")"
echo "load_end $(ms)" >>"$marks"
say "load: $(cat "$tmp/load.json")"

# ---- checks ----------------------------------------------------------------------------------
state=$(cluster_state)
leader=$(leader_of "$state")
[ "$leader" != "-" ] || fail "no leader at the end ($state)"
db="postgresql://postgres@127.0.0.1:$(lport "$leader")/city"
acknowledged=$(wc -l <"$tmp/acks.csv")
lost=$("$psql" "$db" -qAt -v ON_ERROR_STOP=1 <<EOF
CREATE TEMP TABLE acks (game_id text, seat int, round int, step text, at bigint);
\copy acks FROM '$tmp/acks.csv' WITH (FORMAT csv)
SELECT count(*) FROM acks a WHERE NOT EXISTS (
  SELECT 1 FROM events e WHERE e.game_id = a.game_id AND e.type = 'submitted'
    AND (e.data->>'seat')::int = a.seat AND (e.data->>'round')::int = a.round
    AND e.data->>'step' = a.step);
EOF
) || fail "the check of the acknowledged orders failed"
say "orders: $acknowledged acknowledged with 202, $lost of them missing from their game's events"

replay=$(node "$root/tests/ha/client.mjs" replay "${bases[0]}" "$cityd" "$root/cards/cards.json" "$tmp") ||
    fail "the replay check failed"
say "replays: $replay"

healthy=0
for b in "${bases[@]}"; do
    [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$b/healthz")" = 200 ] && healthy=$((healthy + 1))
    m=$(curl -s -m 5 "$b/metrics" | grep -E '^city_db_(reconnects|failovers|outcome_unknown)_total' | tr '\n' ' ')
    say "$b: $m"
done

figures=$(node "$root/tests/ha/client.mjs" figures "$tmp" "$marks")
read -r maxu before after < <(python3 -c '
import json, sys
f = json.loads(sys.argv[1])
print("%.1f %.0f %.0f" % (f["max_unavailable_s"], f["orders_per_sec_before"], f["orders_per_sec_after"]))
' "$figures")
unexpected=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unexpected"])' "$tmp/load.json")
mismatched=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["mismatched"])' "$replay")
say "total $(( ($(date +%s%N) - t0) / 1000000000 )) s"

echo "ha: engine=patroni failovers=$failovers acknowledged=$acknowledged lost=$lost max_unavailable_s=$maxu orders_per_sec_before=$before orders_per_sec_after=$after"
[ "$lost" = 0 ] || fail "$lost acknowledged orders are missing"
[ "$mismatched" = 0 ] || fail "$mismatched games do not replay to their stored state"
[ "$unexpected" = 0 ] || fail "the client met $unexpected unexpected answers (see the load line)"
[ "$healthy" = 2 ] || fail "only $healthy of 2 daemons answer /healthz 200"
[ "$failovers" -ge $((kills + 1)) ] || fail "only $failovers failovers of $((kills + 1)) faults that move the primary"
[ "$acknowledged" -gt 0 ] || fail "no order was acknowledged"
