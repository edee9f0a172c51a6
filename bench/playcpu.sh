#!/usr/bin/env bash
# playcpu.sh: where a resolving order's CPU goes. Runs under scripts/with-postgres.sh (with
# CITY_PG_DURABLE=1, as the bench): starts cityd as `make bench` does (--threads 16, the
# per-address quotas off), plays 3 s of `bench/load play` to warm up, then SECS (10) seconds of
# it at 16 clients (one person and three greedy bots a game, every order resolving a point), and
# prints the play's figures and the CPU an order of cityd, of every PostgreSQL process, of the
# load tool and of the whole machine (busy and idle), from /proc, with cityd's memory-path
# counters from /metrics. Compare two binaries by running it for each in turns: one run's
# figures move by a tenth on a shared machine.
#
#   CITY_PG_DURABLE=1 ./scripts/with-postgres.sh bench/playcpu.sh [BUILD_DIR]
#
# Environment: GAME (the_city, tech_city, simcity), SECS, CITYD (the binary; default
# BUILD_DIR/cityd), PGSS=1 (restarts the cluster with pg_stat_statements, planning tracked too,
# and prints the statements by their time, planning included).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cityd=${CITYD:-$root/$build/cityd}
load=$root/$build/bench/load
game=${GAME:-the_city}
secs=${SECS:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/playcpu.XXXXXX")
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

if [ "${PGSS:-0}" = 1 ]; then
    psql -q "$DATABASE_URL" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
    echo "pg_stat_statements.track_planning = on" >>"$CITY_PGDATA/postgresql.conf"
    as_pg=()
    [ "$(id -u)" = 0 ] && as_pg=(runuser -u "$CITY_PGUSER" --)
    (cd / && "${as_pg[@]}" "$CITY_PGBIN/pg_ctl" -D "$CITY_PGDATA" -w -l "$CITY_PGLOG" restart) \
        >/dev/null
    psql -q "$DATABASE_URL" -c "CREATE EXTENSION pg_stat_statements"
fi

port=$((20000 + RANDOM % 20000))
CITY_CREATE_RATE=0 CITY_JOIN_RATE=0 CITY_READ_RATE=0 CITY_MAX_STREAMS_PER_ADDRESS=0 \
    CITY_MAX_AMENDMENTS=0 CITY_MAX_PER_ADDRESS=0 \
    "$cityd" serve --database "$DATABASE_URL" --web "$root/web" --migrations "$root/migrations" \
    --openapi "$root/openapi/openapi.yaml" --threads 16 --port "$port" >"$work/cityd.log" 2>&1 &
pid=$!
url=http://127.0.0.1:$port
for _ in $(seq 100); do curl -sf "$url/healthz" >/dev/null && break; sleep 0.1; done
"$load" play "$url" "$game" 4 3 16 >/dev/null # warm-up
[ "${PGSS:-0}" = 1 ] && psql -q "$DATABASE_URL" -c 'SELECT pg_stat_statements_reset()' >/dev/null

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() {
    local s=0 p
    for p in $(pgrep -u "$CITY_PGUSER" postgres); do s=$((s + $(ticks "$p"))); done
    echo "$s"
}
machine() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8, $5 + $6 }' /proc/stat; }

c0=$(ticks "$pid") p0=$(pg_ticks)
read -r a0 i0 < <(machine)
"$load" play "$url" "$game" 4 "$secs" 16 >"$work/play.json" &
lp=$!
l=0
while kill -0 "$lp" 2>/dev/null; do # the load tool's own CPU, read until it exits
    l=$(ticks "$lp")
    sleep 0.2
done
wait "$lp"
c1=$(ticks "$pid") p1=$(pg_ticks)
read -r a1 i1 < <(machine)
orders=$(sed -n 's/.*"orders": *\([0-9]*\).*/\1/p' "$work/play.json" | head -n 1)
hz=$(getconf CLK_TCK)
grep -o '"orders_per_sec": [0-9.]*\|"p99_ms": [0-9.]*\|"hand_p99_ms": [0-9.]*' "$work/play.json" |
    tr '\n' ' '
echo
awk -v o="$orders" -v c=$((c1 - c0)) -v p=$((p1 - p0)) -v l="$l" -v a=$((a1 - a0)) \
    -v i=$((i1 - i0)) -v hz="$hz" 'BEGIN {
    k = 1000 / hz / (o > 0 ? o : 1)
    printf "orders %d; ms of CPU an order: cityd %.3f, postgres %.3f, load %.3f; " \
        "machine busy %.3f, idle %.3f\n", o, c * k, p * k, l * k, (a - i) * k, i * k }'
curl -s "$url/metrics" | grep -E '^city_(game_loads_without_database|state_cache_lookups|hand_cache_lookups)' |
    tr '\n' ' '
echo
if [ "${PGSS:-0}" = 1 ]; then
    psql "$DATABASE_URL" -c "SELECT calls, plans, round(total_plan_time::numeric, 0) AS plan_ms,
        round(total_exec_time::numeric, 0) AS exec_ms,
        round((total_exec_time / $orders)::numeric, 4) AS exec_ms_an_order, rows,
        left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
        FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 20"
fi
