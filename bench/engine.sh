#!/bin/sh
# engine.sh: the engines' benchmark figures: bot self-play speed (4 players, one core) of The City,
# of Tech City and of SimCity, per second of wall time and, for The City, Tech City's greedy bot
# and SimCity, per second of the process's CPU time (which other work on a shared machine does
# not inflate), and The City's game-length figures for 2..5 players. Writes bench/results.json
# and prints a table, and exits 1 when The City's random self-play misses its target (100,000
# games per CPU second), with the "key value" lines of EXTRA (the service's figures from
# bench/service.sh) first.
# SimCity's greedy self-play has a goal too (issue 23: 2,000 games per CPU second), and so has
# Tech City's (issue 25: 10,000 greedy games per CPU second), each printed with its figure;
# missing them does not fail the run.
set -e
CITYD=${1:-build/cityd}
extra=${2:-}
out=bench/results.json
gps() { echo "$1" | sed 's/.*"games_per_sec": *\([0-9.]*\).*/\1/'; }
cps() { echo "$1" | sed 's/.*"games_per_cpu_sec": *\([0-9.]*\).*/\1/'; }
# simulate's output for arguments "$@" on one core, three times, the fastest (in games per CPU
# second) kept: other work on a shared machine (a busy sibling hyperthread, caches) only ever
# slows a run, even counted in CPU time.
fastest() {
  best=""
  for _ in 1 2 3; do
    o=$(taskset -c 0 "$CITYD" simulate "$@")
    if [ -z "$best" ] || awk -v a="$(cps "$o")" -v b="$(cps "$best")" 'BEGIN { exit !(a > b) }'; then
      best=$o
    fi
  done
  echo "$best"
}
r=$(fastest --bots random --players 4 --games 50000 --seed 1)
g=$(taskset -c 0 "$CITYD" simulate --bots greedy --players 4 --games 5000 --seed 1)
tr=$(taskset -c 0 "$CITYD" simulate --game tech_city --bots random --players 4 --games 20000 --seed 1)
# Tech City's greedy self-play: 5,000 games, about a second of one core at today's speed.
tg=$(fastest --game tech_city --bots greedy --players 4 --games 5000 --seed 1)
# SimCity's greedy self-play: 500 games, the fastest of three runs (each under a second of one
# core at today's speed).
sg=$(fastest --game simcity --bots greedy --players 4 --games 500 --seed 1)
rgps=$(gps "$r")
ggps=$(gps "$g")
trgps=$(gps "$tr")
tggps=$(gps "$tg")
rcps=$(cps "$r")
gcps=$(cps "$g")
tgcps=$(cps "$tg")
sgcps=$(cps "$sg")
printf '%-34s %12s\n' "figure" "value"
printf '{\n' > "$out"
if [ -n "$extra" ]; then
  while read -r k v; do
    [ -n "$k" ] || continue
    case "$v" in ''|*[!0-9.-]*) v=null ;; esac # a figure that could not be measured
    printf '  "%s": %s,\n' "$k" "$v" >> "$out"
    printf '%-34s %12s\n' "$k" "$v"
  done < "$extra"
fi
printf '  "engine_random_games_per_sec": %s,\n  "engine_greedy_games_per_sec": %s,\n' "$rgps" "$ggps" >> "$out"
printf '  "engine_random_games_per_cpu_sec": %s,\n  "engine_greedy_games_per_cpu_sec": %s,\n' "$rcps" "$gcps" >> "$out"
printf '  "engine_tech_random_games_per_sec": %s,\n  "engine_tech_greedy_games_per_sec": %s,\n' "$trgps" "$tggps" >> "$out"
printf '  "engine_tech_greedy_games_per_cpu_sec": %s,\n' "$tgcps" >> "$out"
printf '  "engine_simcity_greedy_games_per_cpu_sec": %s,\n  "rounds": {' "$sgcps" >> "$out"
printf '%-34s %12.0f\n' engine_random_games_per_sec "$rgps" engine_greedy_games_per_sec "$ggps" \
  engine_random_games_per_cpu_sec "$rcps" engine_greedy_games_per_cpu_sec "$gcps" \
  engine_tech_random_games_per_sec "$trgps" engine_tech_greedy_games_per_sec "$tggps"
printf '%-34s %12.0f  goal 10000\n' engine_tech_greedy_games_per_cpu_sec "$tgcps"
printf '%-34s %12.0f  goal 2000\n' engine_simcity_greedy_games_per_cpu_sec "$sgcps"
sep=""
for p in 2 3 4 5; do
  s=$("$CITYD" simulate --bots greedy --players $p --games 2000 --seed 7)
  avg=$(echo "$s" | sed 's/.*"avg_rounds": *\([0-9.]*\).*/\1/')
  wins=$(echo "$s" | sed 's/.*"wins_by_seat": *\(\[[^]]*\]\).*/\1/')
  printf '%s\n    "%s": {"avg_rounds": %s, "wins_by_seat": %s}' "$sep" "$p" "$avg" "$wins" >> "$out"
  printf '%-34s %12s  wins %s\n' "greedy avg_rounds, $p players" "$avg" "$wins"
  sep=","
done
printf '\n  }\n}\n' >> "$out"
echo "wrote $out"
# The issue's target for the engine (README, "Benchmarks"): at least 100,000 random 4-player games
# of The City per CPU second on one core. CPU time, so a shared machine does not fail it.
if awk -v r="$rcps" 'BEGIN { exit !(r >= 100000) }'; then
  echo "engine target met: $rcps >= 100000 random 4-player games per CPU second"
else
  echo "engine target MISSED: $rcps < 100000 random 4-player games per CPU second" >&2
  exit 1
fi
