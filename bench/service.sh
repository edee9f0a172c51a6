#!/usr/bin/env bash
# service.sh: the service's benchmark figures, run by `make bench` under
# scripts/with-postgres.sh (CITY_PG_DURABLE=1: fsync and synchronous_commit on, as in
# production). Every figure that can be is a ratio to a baseline measured in the same run on
# the same machine, because the machines are noisy:
#   write_ratio = orders_per_sec / pgbench_tps: accepted order submissions (HTTP, cityd,
#                 PostgreSQL) against pgbench's simple-update transaction on the same cluster,
#                 taken at its best of 16 clients and of as many clients as our connections;
#   read_ratio  = reads_per_sec / hello_rps: GET of public game views against a minimal
#                 libmicrohttpd daemon (bench/hello.c) started with cityd's threading flags,
#                 the median of three runs' ratios (each run both in turns, in
#                 BENCH_READ_SLICES slices of each: A B B A ...);
#                 reads_per_sec and hello_rps are the means of the first two;
#   p50_ms, p99_ms: order submissions at half the measured peak rate, open loop (bench/load.c),
#                 the median (by p99) of three runs;
#   pg_p99_ms, p99_ratio: pgbench's own simple-update transactions at the same rate, open loop
#                 (pgbench -R, latency from the scheduled start as ours), with as many clients
#                 as bench/load.c has connections; p99_ratio = p99_ms / pg_p99_ms;
#   orders_with_idle_streams_ratio: order throughput with BENCH_IDLE_STREAMS idle SSE streams
#                 open on other games / without them (A B A B);
#   rss_mb_10k_games: cityd's resident memory with 10,000 stored games, 1,000 of them in play;
#   play_orders_per_sec_GAME, play_p99_ms_GAME: for each game the server hosts (GET
#                 /api/v1/rulesets), closed-loop play by BENCH_PLAY_CONNECTIONS clients, each a
#                 person with 3 greedy bots sending its hand view's suggestion: every order
#                 resolves a step, so this is the step-resolving write path (bench/load.c play);
#                 play_hand_p99_ms_GAME: the p99 of the hand views read before those orders;
#   play_p99_ms_with_experts, play_p99_ratio_with_experts (with / without), view_p99_*,
#                 hand_p99_*, play_orders_ratio_with_experts: people's service while the bot
#                 workers are saturated: The City's play run and open-loop GETs of public and hand
#                 views (BENCH_VIEW_RATE a second) without, then with BENCH_EXPERT_GAMES
#                 self-playing games of 3 experts and a greedy bot (bench/load.c experts), A B A B;
#   bot_queue_max, bot_decisions_per_sec, bot_decision_mean_ms, bot_decision_p99_le_s: what
#                 /metrics showed of the bot pool meanwhile (city_bot_queue, city_bot_decisions_total,
#                 city_bot_decision_seconds: the bucket that holds the 99th percentile);
#   connections_closed_in_flight: connections the service closed with one of `load rate`'s
#                 requests in flight after serving earlier ones (a fault; bench/summary.sh fails
#                 the run on it; a connection refused as it was accepted is not one);
#   sse_streams_held, sse_healthz_p99_ms, rss_mb_10k_streams: BENCH_STREAMS SSE streams opened
#                 to that daemon (bench/streams.c): how many it held (200, text/event-stream),
#                 GET /healthz's p99 over 200 new connections while they were held, and its
#                 resident memory then;
#   signin_ms_p50, signin_ms_p99, rated_finish_ms_p99 (and _p50), unrated_finish_ms_p99: a
#                 sign-in's cost, one at a time (BENCH_SIGNINS), and the order that finishes a
#                 game of an account against a greedy bot, rated or not (BENCH_FINISHES games
#                 of each), by bench/accounts.mjs.
# Throughput and baseline alternate (A B A B) and each figure is the mean of its two runs. The
# figures go to stdout as "key value" lines; progress goes to stderr.
#
# Settings (environment): BENCH_SECONDS (10), BENCH_CONNECTIONS (64), BENCH_GAMES (1000),
# BENCH_STORED_GAMES (10000), BENCH_LATENCY_CONNECTIONS (128), BENCH_HTTP_THREADS (16: hello's
# thread pool, to match cityd's HTTP threads), BENCH_STREAMS (10000), BENCH_STREAM_SOURCES (1:
# loopback source addresses the streams come from), BENCH_STREAM_SECONDS (60: the time allowed
# to open them), BENCH_IDLE_STREAMS (2000), BENCH_PLAY_CONNECTIONS (16), BENCH_CITYD_FLAGS (extra flags of `cityd serve`,
# e.g. a higher connection limit for the streams), BENCH_EXPERT_GAMES (1000), BENCH_VIEW_RATE
# (1000), BENCH_EXPERTS_ONLY (0; 1: only the expert-load part, after setting up the games),
# BENCH_STREAMS_ONLY (0; 1: only the stored games and the streams' figures), BENCH_SIGNINS
# (200), BENCH_FINISHES (100), BENCH_ACCOUNTS_ONLY (0; 1: only the accounts part).
set -euo pipefail
build=${1:-build}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
playing=${BENCH_GAMES:-1000}
stored=${BENCH_STORED_GAMES:-10000}
lconns=${BENCH_LATENCY_CONNECTIONS:-128}
threads=${BENCH_HTTP_THREADS:-16}
timed=${BENCH_TIMED_GAMES:-10000}
timed_secs=${BENCH_TIMED_SECONDS:-30}
nstreams=${BENCH_STREAMS:-10000}
sources=${BENCH_STREAM_SOURCES:-1}
stream_secs=${BENCH_STREAM_SECONDS:-60}
idle_streams=${BENCH_IDLE_STREAMS:-2000}
play_conns=${BENCH_PLAY_CONNECTIONS:-16}
expert_games=${BENCH_EXPERT_GAMES:-1000}
view_rate=${BENCH_VIEW_RATE:-1000}
read -r -a cityd_flags <<<"${BENCH_CITYD_FLAGS:-}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/city-bench.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
say() { echo "bench: $*" >&2; }
# Adds the closed_in_flight of `load rate`'s JSON $1 to $work/in-flight.txt (summed at the end as
# connections_closed_in_flight, which fails the bench's summary when it is not 0).
in_flight() {
    echo "$1" | sed -n 's/.*"closed_in_flight": *\([0-9]*\).*/\1/p' >>"$work/in-flight.txt"
}

# A port on 127.0.0.1 where nothing answers now, below Linux's range of ephemeral ports.
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((10000 + RANDOM % 20000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo "bench: no free port" >&2
    exit 1
}

# Starts "$@ PORT" on a free port (trying again when another process took it first) and waits
# until PATH answers there; sets $started_pid and $started_url.
start_on_free_port() {
    local path=$1 log=$2
    shift 2
    for _ in 1 2 3 4 5; do
        local p
        p=$(free_port)
        "$@" "$p" >"$log" 2>&1 &
        started_pid=$!
        started_url="http://127.0.0.1:$p"
        for _ in $(seq 1 100); do
            curl -sf "$started_url$path" >/dev/null 2>&1 && return 0
            kill -0 "$started_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill "$started_pid" 2>/dev/null || true
    done
    echo "bench: $1 did not start; its log says:" >&2
    tail -n 5 "$log" >&2
    exit 1
}
cityd_serve() {
    # The bench creates games and resends orders from one address, and holds thousands of
    # streams from it: per-address quotas and the per-address connection cap off.
    # The accounts part signs one account in again and again: the password attempt limits off.
    CITY_CREATE_RATE=0 CITY_JOIN_RATE=0 CITY_READ_RATE=0 CITY_MAX_STREAMS_PER_ADDRESS=0 CITY_MAX_AMENDMENTS=0 CITY_MAX_PER_ADDRESS=0 \
        CITY_SIGNIN_RATE=0 CITY_ACCOUNT_SIGNIN_RATE=0 \
        exec "$root/$build/cityd" serve --database "$DATABASE_URL" --web "$root/web" \
        --migrations "$root/migrations" --openapi "$root/openapi/openapi.yaml" \
        --threads "$threads" ${cityd_flags[@]+"${cityd_flags[@]}"} --port "$1"
}
hello_serve() { exec "$root/$build/bench/hello" "$1" "$threads"; }
start_on_free_port /healthz "$work/cityd.log" cityd_serve
cityd=$started_pid url=$started_url
pids+=("$cityd")
start_on_free_port / "$work/hello.log" hello_serve
pids+=("$started_pid")
hurl=$started_url

# ---- people's service while the bot workers are saturated ---------------------------------
# What people get (the play run's orders, public views, hand views at view_rate/s open loop)
# without, then with expert_games self-playing games of 3 experts and a greedy bot on the
# daemon's bot workers (bench/load.c experts), A B A B. The expert games are ended between
# rounds in the database (there is no API to end a running game; the workers skip a game that
# is no longer playing), and the next "without" run waits until the pool is idle.
# Runs the people's three runs; prints "PLAY_JSON|VIEWS_JSON|HANDS_JSON".
# The clients that measure people's service run at real-time priority when the bench may give it
# (chrt -f 1, as root), in both runs alike: the expert games keep both cores of a small machine
# busy, and a client that waits for a core itself (measured: a tenth of a ms at p90 and 1 to 4 ms
# at its worst, behind the database's and the daemon's threads) counts that wait as the
# service's. A person's browser is on another machine.
client_prio=()
if chrt -f 1 true 2>/dev/null; then client_prio=(chrt -f 1); fi
# The cache misses of views and hands so far: "VIEW_MISSES HAND_MISSES".
cache_misses() {
    curl -s "$url/metrics" | awk '$1 == "city_view_cache_lookups_total{result=\"miss\"}" { v = $2 }
        $1 == "city_hand_cache_lookups_total{result=\"miss\"}" { h = $2 } END { print v + 0, h + 0 }'
}
people_runs() {
    local pl vw hd m0 m1 m2
    pl=$("${client_prio[@]}" "$root/$build/bench/load" play "$url" the_city 4 "$secs" "$play_conns")
    read -r -a m0 < <(cache_misses)
    vw=$("${client_prio[@]}" "$root/$build/bench/load" rate "$url" "$work/games.txt" "$view_rate" "$secs" "$lconns" views || true)
    read -r -a m1 < <(cache_misses)
    hd=$("${client_prio[@]}" "$root/$build/bench/load" rate "$url" "$work/games.txt" "$view_rate" "$secs" "$lconns" hands || true)
    read -r -a m2 < <(cache_misses)
    say "  cache misses: views $((m1[0] - m0[0])) in the views' run, hands $((m2[1] - m1[1])) in the hands' run"
    in_flight "$vw"
    in_flight "$hd"
    echo "$pl|$vw|$hd"
}
# The number in field $2 of the one-line JSON $1, or nothing.
jfield() { echo "$1" | sed -n "s/.*\"$2\": *\([0-9.-]*\).*/\1/p"; }
# The bot pool's decision counters and histogram lines of /metrics now.
bot_metrics() { curl -s "$url/metrics" | grep '^city_bot_decision' || true; }
# The bot figures over the with-runs, from /metrics read before (bots0.R) and after (bots1.R)
# each, R in 1 2, and their lengths in seconds ($1 $2): "DECISIONS_PER_SEC P99_LE_S MEAN_MS
# STALE", the histogram's bucket holding the 99th percentile of both runs' decisions together.
bot_figures() {
    cat "$work"/bots0.* | sed 's/^/- /' | cat - "$work"/bots1.* | awk -v t="$(awk -v a="$1" -v b="$2" 'BEGIN { print a + b }')" '
        $1 == "-" { d[$2] -= $3; next } { d[$1] += $2; if (!($1 in seen)) { seen[$1] = 1; key[n++] = $1 } }
        END {
            total = d["city_bot_decision_seconds_count"]
            p99 = "null"
            for (i = 0; i < n; i++)
                if (key[i] ~ /_bucket/ && d[key[i]] >= 0.99 * total && total > 0) {
                    split(key[i], q, "\""); p99 = q[2]; break
                }
            printf "%.1f %s %.1f %d\n", d["city_bot_decisions_total{result=\"submitted\"}"] / t, p99,
                (total > 0 ? 1000 * d["city_bot_decision_seconds_sum"] / total : 0),
                d["city_bot_decisions_total{result=\"stale\"}"]
        }'
}
bot_busy() { # queued + thinking now
    curl -s "$url/metrics" | awk '/^city_bot_queue\{/ { n += $2 } END { print n + 0 }'
}
# Samples the bot queue's length every half second into $1 until killed.
sample_queue() {
    while :; do
        curl -s "$url/metrics" | awk '$1 == "city_bot_queue{state=\"queued\"}" { print $2 }' >>"$1"
        sleep 0.5
    done
}
# Ends every running expert game and waits (up to 60 s) until no bot worker is busy.
end_expert_games() {
    psql -q -At "$DATABASE_URL" -c "UPDATE games SET status = 'finished', bot_due = false,
        deadline = NULL WHERE status = 'playing'
        AND id IN (SELECT game_id FROM seats WHERE bot = 'expert')" >/dev/null
    for _ in $(seq 1 600); do
        [ "$(bot_busy)" = 0 ] && break
        sleep 0.1
    done
}
# The expert-load part: its runs, then its figures as "key value" lines in $expert_lines.
expert_lines=""
# people_into PREFIX ROUND: people_runs' three results into fig[PREFIX_pl|vw|hdROUND], printed.
people_into() {
    local r
    r=$(people_runs)
    fig[$1_pl$2]=${r%%|*}
    r=${r#*|}
    fig[$1_vw$2]=${r%%|*}
    fig[$1_hd$2]=${r#*|}
    say "  ${fig[$1_pl$2]}"
    say "  ${fig[$1_vw$2]}"
    say "  ${fig[$1_hd$2]}"
}
# Appends to $1, one a line, the ms from a person sitting down against one expert (the game
# starts at its creation) until the expert has decided, for $2 games one after the other: what a
# person waits for an expert's move while the self-playing games fill the bot queue.
person_expert_waits() {
    local g t0 id
    for g in $(seq 1 "$2"); do
        t0=$(date +%s%N)
        id=$(curl -s -H 'Content-Type: application/json' -d \
            '{"seats": 2, "bots": ["expert"], "name": "Bench person"}' "$url/api/v1/games" |
            sed -n 's/.*"id": *"\([^"]*\)".*/\1/p')
        [ -n "$id" ] || continue
        for _ in $(seq 1 3000); do
            curl -s "$url/api/v1/games/$id" | grep -q '"submitted": *true' && break
            sleep 0.005
        done
        echo $((($(date +%s%N) - t0) / 1000000)) >>"$1"
    done
}
experts_part() {
    : >"$work/queue.txt"
    : >"$work/person-waits.txt"
    # Every game's seat 0's hand and view read once first, so that each run, without and with,
    # starts from the same caches (else the first run alone would read every hand from the
    # database and weigh on the "without" side). Hands first: seat 0's first sign of life changes
    # its game's view (it comes online), so a view read before it would be read again.
    say "experts: reading each game's hand and view once (the caches' start); people's clients at ${client_prio[*]:-normal priority}"
    "$root/$build/bench/load" rate "$url" "$work/games.txt" "$view_rate" 1 "$lconns" hands >/dev/null || true
    sleep 0.3 # the signs of life written (within 100 ms), so the views read next are their news
    "$root/$build/bench/load" rate "$url" "$work/games.txt" "$view_rate" 1 "$lconns" views >/dev/null || true
    for round in 1 2; do
        say "experts round $round: people without expert games (play, views and hands at $view_rate/s), ${secs}s each"
        people_into xa "$round"
        say "experts round $round: creating $expert_games self-playing games of 3 experts and a greedy bot"
        "$root/$build/bench/load" experts "$url" "$expert_games" "$work/experts$round.txt"
        sample_queue "$work/queue.txt" &
        sampler=$!
        pids+=("$sampler")
        m0=$(bot_metrics)
        x0=$(date +%s.%N)
        say "experts round $round: the same with them (bot queue $(bot_busy))"
        people_into xb "$round"
        x1=$(date +%s.%N)
        m1=$(bot_metrics)
        say "experts round $round: a person's wait for one expert's move, 20 games (bot queue $(bot_busy))"
        person_expert_waits "$work/person-waits.txt" 20
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        echo "$m0" >"$work/bots0.$round"
        echo "$m1" >"$work/bots1.$round"
        fig[xt$round]=$(awk -v a="$x1" -v b="$x0" 'BEGIN { printf "%.3f", a - b }')
        say "experts round $round: ending the expert games"
        end_expert_games
    done
    # The people's figures with and without the expert games: each the mean of its two runs.
    # The mean of both rounds' field $3 of run $2 (pl vw hd) of $1 (xa: without, xb: with); of
    # the one round that has it when a run failed; empty (null in results.json) when neither.
    xmean() {
        awk -v a="$(jfield "${fig[${1}_${2}1]}" "$3")" -v b="$(jfield "${fig[${1}_${2}2]}" "$3")" \
            'BEGIN { if (a != "" && b != "") printf "%.2f", (a + b) / 2
                     else if (a != "" || b != "") printf "%.2f", a + b }'
    }
    # $1 / $2 to two places; 0 when $2 is not positive.
    xratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
    read -r bot_dps bot_p99 bot_mean bot_stale < <(bot_figures "${fig[xt1]}" "${fig[xt2]}")
    for f in play:pl view:vw hand:hd; do
        name=${f%%:*} k=${f##*:}
        for q in p50 p99; do
            a=$(xmean xa "$k" "${q}_ms") b=$(xmean xb "$k" "${q}_ms")
            expert_lines+="${name}_${q}_ms_without_experts $a"$'\n'
            expert_lines+="${name}_${q}_ms_with_experts $b"$'\n'
        done
        expert_lines+="${name}_p99_ratio_with_experts $(xratio "$(xmean xb "$k" p99_ms)" "$(xmean xa "$k" p99_ms)")"$'\n'
    done
    expert_lines+="play_orders_per_sec_without_experts $(xmean xa pl orders_per_sec)"$'\n'
    expert_lines+="play_orders_per_sec_with_experts $(xmean xb pl orders_per_sec)"$'\n'
    expert_lines+="play_orders_ratio_with_experts $(xratio "$(xmean xb pl orders_per_sec)" "$(xmean xa pl orders_per_sec)")"$'\n'
    expert_lines+="view_rate_per_sec $view_rate"$'\n'
    expert_lines+="expert_games $expert_games"$'\n'
    expert_lines+="bot_queue_max $(sort -n "$work/queue.txt" | tail -n 1)"$'\n'
    expert_lines+="bot_queue_min $(sort -n "$work/queue.txt" | head -n 1)"$'\n'
    expert_lines+="bot_decisions_per_sec $bot_dps"$'\n'
    expert_lines+="bot_decision_mean_ms $bot_mean"$'\n'
    expert_lines+="bot_decision_p99_le_s $bot_p99"$'\n'
    expert_lines+="bot_decisions_stale $bot_stale"$'\n'
    expert_lines+="person_expert_wait_ms_p50 $(sort -n "$work/person-waits.txt" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')"$'\n'
    expert_lines+="person_expert_wait_ms_p99 $(sort -n "$work/person-waits.txt" | awk '{ v[NR] = $1 } END { if (NR) { k = int(0.99 * NR); if (k < 0.99 * NR) k++; print v[k] } }')"$'\n'
    expert_lines+="person_expert_wait_ms_max $(sort -n "$work/person-waits.txt" | tail -n 1)"$'\n'
}

# ---- accounts: a sign-in's cost and a rated game's finish --------------------------------
accounts_lines=""
accounts_part() {
    say "accounts: ${BENCH_SIGNINS:-200} sign-ins one at a time, then ${BENCH_FINISHES:-100} rated and unrated games finished"
    accounts_lines=$(node "$here/accounts.mjs" "$url")
    say "  $(echo "$accounts_lines" | tr '\n' ' ')"
    accounts_lines+=$'\n'
}

# BENCH_ACCOUNTS_ONLY=1: only the accounts part (its figures).
if [ "${BENCH_ACCOUNTS_ONLY:-0}" = 1 ]; then
    accounts_part
    printf '%s' "$accounts_lines"
    exit 0
fi

say "setting up $playing games in play, and 100 other games for idle streams"
"$root/$build/bench/load" setup "$url" "$playing" "$work/games.txt"
"$root/$build/bench/load" setup "$url" 100 "$work/other.txt"
pgbench -i -q -s 10 "$DATABASE_URL" >"$work/pgbench-init.log" 2>&1

pgbench_tps() {
    pgbench -n -N -c "$1" -j 2 -T "$secs" "$DATABASE_URL" 2>&1 |
        sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -n 1
}
# wrk with one of our scripts; prints "good seconds bad".
wrk_run() {
    local out
    out=$(wrk -t2 -c"$conns" -d"${secs}s" -s "$here/load.lua" "$1" -- "$work/games.txt" "$2" 2>&1 ||
        true)
    out=$(echo "$out" | sed -n 's/^RESULT [a-z]*=\([0-9]*\) [a-z]*=\([0-9]*\) seconds=\([0-9.]*\).*/\1 \3 \2/p')
    echo "${out:-0 1 0}" # a wrk that could not run counts as nothing done
}
# The views of $1 and of $2 (the minimal daemon) in turns: $read_slices slices of each, a
# slice of $1 then $2, then $2 then $1 (A B B A ...), so that the machine's drift over the run
# (a VM's neighbours, seen to move hello's own rate by a fifth between runs a minute apart)
# falls on both alike; a slice is $secs / $read_slices whole seconds (5 of 2 s by default: 10 s a
# side, as one run was before). Prints "good_a seconds_a good_b seconds_b".
read_slices=${BENCH_READ_SLICES:-5}
wrk_views_pair() {
    local ga=0 sa=0 gb=0 sb=0 good s bad
    local slice=$(( secs / read_slices > 0 ? secs / read_slices : 1 )) order
    for k in $(seq 1 "$read_slices"); do
        order="a b"
        [ $((k % 2)) = 0 ] && order="b a"
        for w in $order; do
            read -r good s bad < <(secs=$slice wrk_run "$([ "$w" = a ] && echo "$1" || echo "$2")" views)
            if [ "$w" = a ]; then ga=$((ga + good)) sa=$(awk -v x="$sa" -v y="$s" 'BEGIN { print x + y }')
            else gb=$((gb + good)) sb=$(awk -v x="$sb" -v y="$s" 'BEGIN { print x + y }'); fi
        done
    done
    echo "$ga $sa $gb $sb"
}
rate_of() { awk -v g="$1" -v s="$2" 'BEGIN { printf "%.1f", g / s }'; }
mean() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a + b) / 2 }'; }

declare -A fig
refused=0
# BENCH_EXPERTS_ONLY=1: only the expert-load part (its figures and bench_seconds).
if [ "${BENCH_EXPERTS_ONLY:-0}" = 1 ]; then
    experts_part
    printf '%s' "$expert_lines"
    echo "bench_seconds $secs"
    exit 0
fi
# BENCH_STREAMS_ONLY=1: only the streams part (the stored games, then the streams' figures).
if [ "${BENCH_STREAMS_ONLY:-0}" = 1 ]; then
    "$root/$build/bench/load" fill "$url" $((stored - playing)) "$work/games.txt"
    rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$cityd/status")
    held=$("$root/$build/bench/streams" held "$url" "$work/games.txt" "$nstreams" "$sources" \
        "$stream_secs" "$cityd" 200)
    say "  $held"
    sget() { echo "$held" | sed -n "s/.*\"$1\": *\([0-9.-]*\).*/\1/p"; }
    echo "rss_mb_10k_games $(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
    echo "sse_streams_held $(sget held)"
    echo "sse_healthz_p99_ms $(sget healthz_p99_ms)"
    echo "rss_mb_10k_streams $(sget rss_mb)"
    stream_kb=$(awk -v a="$(sget rss_mb)" -v b="$rss_kb" -v n="$(sget held)" 'BEGIN { printf "%.1f", (n > 0 ? (a * 1024 - b) / n : 0) }')
    echo "sse_mb_10k_streams $(awk -v k="$stream_kb" 'BEGIN { printf "%.1f", k * 10000 / 1024 }')"
    echo "sse_kb_per_stream $stream_kb"
    exit 0
fi
for round in 1 2; do
    say "round $round: pgbench simple-update, 16 and $conns clients, ${secs}s each"
    t16=$(pgbench_tps 16)
    t=$(pgbench_tps "$conns")
    say "  pgbench_tps $t16 (16 clients), $t ($conns clients)"
    say "round $round: order submissions, $conns connections, ${secs}s"
    read -r good s bad < <(wrk_run "$url" orders)
    o=$(rate_of "$good" "$s")
    refused=$((refused + bad))
    say "  orders_per_sec $o (refused $bad)"
    say "round $round: public views and the minimal daemon in turns, ${secs}s each"
    read -r good s good2 s2 < <(wrk_views_pair "$url" "$hurl")
    v=$(rate_of "$good" "$s")
    h=$(rate_of "$good2" "$s2")
    say "  reads_per_sec $v, hello_rps $h"
    fig[pa$round]=$t16 fig[pg$round]=$t fig[or$round]=$o fig[rd$round]=$v fig[he$round]=$h
done
pg16=$(mean "${fig[pa1]}" "${fig[pa2]}")
pgc=$(mean "${fig[pg1]}" "${fig[pg2]}")
pg=$(awk -v a="$pg16" -v b="$pgc" 'BEGIN { printf "%.1f", (a > b ? a : b) }')
orders=$(mean "${fig[or1]}" "${fig[or2]}")
reads=$(mean "${fig[rd1]}" "${fig[rd2]}")
hello=$(mean "${fig[he1]}" "${fig[he2]}")
say "round 3: public views and the minimal daemon in turns, ${secs}s each (read_ratio: the median of three)"
read -r good s good2 s2 < <(wrk_views_pair "$url" "$hurl")
fig[rd3]=$(rate_of "$good" "$s")
fig[he3]=$(rate_of "$good2" "$s2")
say "  reads_per_sec ${fig[rd3]}, hello_rps ${fig[he3]}"
read_ratio=$(for k in 1 2 3; do
    awk -v a="${fig[rd$k]}" -v b="${fig[he$k]}" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'
done | sort -n | sed -n 2p)

say "fan-out: order submissions without and with $idle_streams idle streams on other games"
idle_pid=
start_idle_streams() {
    "$root/$build/bench/streams" idle "$url" "$work/other.txt" "$idle_streams" "$sources" \
        "$stream_secs" >"$work/idle.txt" &
    idle_pid=$!
    pids+=("$idle_pid")
    for _ in $(seq 1 $((stream_secs * 10 + 50))); do
        [ -s "$work/idle.txt" ] && break
        kill -0 "$idle_pid" 2>/dev/null || break
        sleep 0.1
    done
    say "  idle streams: $(cat "$work/idle.txt")"
}
threads_of() { awk '/^Threads:/ { print $2 }' "/proc/$cityd/status"; }
# Stops the idle streams and waits (up to 20 s) until the daemon has let go of them, as far as
# its thread count shows, so that they do not weigh on the next run without streams.
stop_idle_streams() {
    kill "$idle_pid" 2>/dev/null || true
    wait "$idle_pid" 2>/dev/null || true
    for _ in $(seq 1 200); do
        [ "$(threads_of)" -le $((threads_before + 2)) ] && break
        sleep 0.1
    done
}
for round in 1 2; do
    read -r good s bad < <(wrk_run "$url" orders)
    fig[fa$round]=$(rate_of "$good" "$s")
    threads_before=$(threads_of)
    start_idle_streams
    fig[fh$round]=$(sed -n 's/.*"held": *\([0-9]*\).*/\1/p' "$work/idle.txt")
    read -r good s bad < <(wrk_run "$url" orders)
    fig[fb$round]=$(rate_of "$good" "$s")
    stop_idle_streams
    say "  round $round: orders_per_sec ${fig[fa$round]} without, ${fig[fb$round]} with ${fig[fh$round]:-0} streams held"
done
fan_without=$(mean "${fig[fa1]}" "${fig[fa2]}")
fan_with=$(mean "${fig[fb1]}" "${fig[fb2]}")
fan_held=$(( ${fig[fh1]:-0} < ${fig[fh2]:-0} ? ${fig[fh1]:-0} : ${fig[fh2]:-0} ))

half=$(awk -v o="$orders" 'BEGIN { printf "%.0f", o / 2 }')
say "order latency at half the peak rate ($half/s), open loop, ${secs}s; then pgbench at that rate"
# pgbench -R: simple-update transactions at a fixed rate (a Poisson schedule) over as many
# clients as load.c has connections; its per-transaction log gives each latency from the
# scheduled start (throttling lag included, as ours), whose 99th percentile is printed.
pgbench_p99() {
    rm -f "$work"/pglat*
    pgbench -n -N -R "$half" -c "$lconns" -j 2 -T "$secs" --log --log-prefix="$work/pglat" \
        "$DATABASE_URL" >"$work/pgbench-rate.log" 2>&1 || true
    cat "$work"/pglat* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ { print $3 / 1000 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "0 0 0"; exit }
              i = int(0.99 * (NR - 1) + 0.5) + 1; j = int(0.5 * (NR - 1) + 0.5) + 1
              printf "%.3f %.3f %d\n", v[i], v[j], NR }'
}
# Three runs of each, alternating; the one with the median p99 is reported (a noisy
# neighbour's stall in one run neither makes nor breaks the figure; all are printed).
runs=() pgruns=()
for k in 1 2 3; do
    runs+=("$("$root/$build/bench/load" rate "$url" "$work/games.txt" "$half" "$secs" "$lconns")")
    in_flight "${runs[-1]}"
    say "  run $k: ${runs[-1]}"
    pgruns+=("$(pgbench_p99)")
    say "  pgbench -R $half -c $lconns, run $k: p99_ms p50_ms transactions: ${pgruns[-1]}"
done
p99_of() { echo "$1" | sed -n 's/.*"p99_ms": *\([0-9.]*\).*/\1/p'; }
lat=$(for r in "${runs[@]}"; do echo "$(p99_of "$r") $r"; done | sort -n | sed -n 2p | cut -d' ' -f2-)
jget() { echo "$lat" | sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p"; }
read -r pg_p99 pg_p50 pg_n < <(printf '%s\n' "${pgruns[@]}" | sort -n | sed -n 2p)

say "filling to $stored stored games and reading each view once"
"$root/$build/bench/load" fill "$url" $((stored - playing)) "$work/games.txt"
rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$cityd/status")

say "opening $nstreams SSE streams over the $playing games (at most ${stream_secs}s), then /healthz"
held=$("$root/$build/bench/streams" held "$url" "$work/games.txt" "$nstreams" "$sources" \
    "$stream_secs" "$cityd" 200)
say "  $held"
sget() { echo "$held" | sed -n "s/.*\"$1\": *\([0-9.-]*\).*/\1/p"; }

play_lines=""
# The games' ids: the "id"s of the "rulesets" array, which comes first in the reply (the
# "bot_levels" after it have ids too).
for game in $(curl -s "$url/api/v1/rulesets" | sed 's/\],"default":.*//' |
    sed 's/"id":"\([a-z_]*\)"/\n\1\n/g' | grep -x '[a-z_]*'); do
    say "play: $game, $play_conns clients each with 3 greedy bots, sending the suggestion, ${secs}s"
    pl=$("$root/$build/bench/load" play "$url" "$game" 4 "$secs" "$play_conns")
    say "  $pl"
    pget() { echo "$pl" | sed -n "s/.*\"$1\": *\([0-9.-]*\).*/\1/p"; }
    play_lines+="play_orders_per_sec_$game $(pget orders_per_sec)"$'\n'
    play_lines+="play_p99_ms_$game $(pget p99_ms)"$'\n'
    play_lines+="play_hand_p99_ms_$game $(pget hand_p99_ms)"$'\n'
done

# awk reads to the end: quitting at the match could close the pipe while curl still writes
# /metrics (curl then exits 23, which pipefail and set -e turned into the bench's end).
metric() { curl -s "$url/metrics" | awk -v k="$1" '$1 == k && !found { print $2; found = 1 }'; }

experts_part

say "sweeper: $timed timed games of one silent person and a bot, ${timed_secs}s a step"
late0=$(metric city_sweeper_lateness_seconds_count)
late0_sum=$(metric city_sweeper_lateness_seconds_sum)
timed_start=$(date +%s.%N)
"$root/$build/bench/load" timed "$url" "$timed" "$timed_secs"
timed_created=$(awk -v a="$(date +%s.%N)" -v b="$timed_start" 'BEGIN { printf "%.1f", a - b }')
# Every game's first step falls due timed_secs after it was made: wait for that many forces.
for _ in $(seq 1 $((timed_secs * 4 + 240))); do
    [ "$(awk -v a="$(metric city_sweeper_lateness_seconds_count)" -v b="$late0" \
        'BEGIN { print (a - b >= 0 + '"$timed"') }')" = 1 ] && break
    sleep 0.5
done
hist=$(curl -s "$url/metrics" | grep '^city_sweeper_lateness_seconds')
late_n=$(awk -v b="$late0" '$1 == "city_sweeper_lateness_seconds_count" { print $2 - b }' <<<"$hist")
late_mean=$(awk -v b="$late0_sum" -v n="$late_n" \
    '$1 == "city_sweeper_lateness_seconds_sum" { printf "%.3f", (n > 0 ? ($2 - b) / n : 0) }' <<<"$hist")
# The histogram's bucket that holds the 99th percentile (of all forces so far: the bench's
# other games have no timer, so these are the timed games' own).
late_p99=$(awk -F'[{}" ]+' '/_bucket/ { le[n] = $3; c[n++] = $NF } /_count/ { total = $2 }
    END { for (i = 0; i < n; i++) if (c[i] >= 0.99 * total) { print le[i]; exit } }' <<<"$hist")
say "  $late_n steps forced, mean lateness ${late_mean}s, p99 within ${late_p99}s"

echo "orders_per_sec $orders"
printf '%s' "$play_lines"
echo "pgbench_tps $pg"
echo "pgbench_tps_16_clients $pg16"
echo "pgbench_tps_${conns}_clients $pgc"
echo "write_ratio $(awk -v a="$orders" -v b="$pg" 'BEGIN { printf "%.3f", a / b }')"
echo "orders_refused $refused"
echo "reads_per_sec $reads"
echo "hello_rps $hello"
echo "read_ratio $read_ratio"
echo "latency_rate_per_sec $half"
echo "p50_ms $(jget p50_ms)"
echo "p90_ms $(jget p90_ms)"
echo "p99_ms $(jget p99_ms)"
echo "max_ms $(jget max_ms)"
echo "pg_p50_ms $pg_p50"
echo "pg_p99_ms $pg_p99"
# Below latency_rate_per_sec, pgbench could not keep the rate: its p99 is then mostly waiting.
echo "pg_rate_achieved_per_sec $(awk -v n="$pg_n" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')"
echo "p99_ratio $(awk -v a="$(jget p99_ms)" -v b="$pg_p99" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
echo "orders_without_streams_per_sec $fan_without"
echo "orders_with_idle_streams_per_sec $fan_with"
echo "idle_streams_held $fan_held"
echo "orders_with_idle_streams_ratio $(awk -v a="$fan_with" -v b="$fan_without" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"
echo "rss_mb_10k_games $(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
echo "sse_streams_wanted $nstreams"
echo "sse_streams_held $(sget held)"
echo "sse_streams_held_at_end $(sget held_at_end)"
echo "sse_healthz_p50_ms $(sget healthz_p50_ms)"
echo "sse_healthz_p99_ms $(sget healthz_p99_ms)"
echo "sse_healthz_failed $(sget healthz_failed)"
echo "rss_mb_10k_streams $(sget rss_mb)"
# What the streams themselves take: the daemon's memory with them less that with the games alone
# (rss_mb_10k_streams counts both), scaled to 10,000 streams.
echo "sse_mb_10k_streams $(awk -v a="$(sget rss_mb)" -v b="$rss_kb" -v n="$(sget held)" 'BEGIN { printf "%.1f", (n > 0 ? (a * 1024 - b) / n * 10000 / 1024 : 0) }')"
echo "sse_kb_per_stream $(awk -v a="$(sget rss_mb)" -v b="$rss_kb" -v n="$(sget held)" 'BEGIN { printf "%.1f", (n > 0 ? (a * 1024 - b) / n : 0) }')"
echo "daemon_threads_with_streams $(sget daemon_threads)"
echo "sweeper_timed_games $timed"
echo "sweeper_timed_games_created_in_s $timed_created"
echo "sweeper_steps_forced $late_n"
echo "sweeper_lateness_mean_s $late_mean"
echo "sweeper_lateness_p99_le_s $late_p99"
printf '%s' "$expert_lines"
accounts_part
printf '%s' "$accounts_lines"
echo "connections_closed_in_flight $(awk '{ n += $1 } END { print n + 0 }' "$work/in-flight.txt" 2>/dev/null || echo 0)"
echo "bench_connections $conns"
echo "bench_seconds $secs"
