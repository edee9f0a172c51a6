#!/bin/sh
# summary.sh: the one table `make bench` ends with: every figure of bench/results.json (or the
# file given) with its goal where an issue names one, the ratio value / goal and whether it
# passes (">=": at least the goal; "<=": at most). A goal may be another figure of the same run
# (a play workload against pgbench's TPS). Exits 1 when a hard goal fails (the engine's random
# self-play target, a connection closed with a request in flight); the others are reported.
set -e
results=${1:-bench/results.json}
[ -r "$results" ] || { echo "summary: no $results" >&2; exit 1; }
# key, direction, goal (a number or @another_key), hard (1) or reported (0), the issue
goals='
engine_random_games_per_cpu_sec >= 100000 1 target
engine_tech_greedy_games_per_cpu_sec >= 10000 0 #25
engine_simcity_greedy_games_per_cpu_sec >= 2000 0 #23
expert_vs_greedy_2p_share_simcity >= 0.70 0 #23
expert_decision_p99_ms_simcity <= 200 0 #23
read_ratio >= 0.9 0 #25
write_ratio >= 1.0 0 #25
play_orders_per_sec_the_city >= @pgbench_tps 0 #25
play_orders_per_sec_tech_city >= @pgbench_tps 0 #25
play_orders_per_sec_simcity >= @pgbench_tps 0 #25
person_expert_wait_ms_p99 <= 250 0 #25
hand_p99_ratio_with_experts <= 1.5 0 #25
view_p99_ratio_with_experts <= 1.5 0 #25
sse_mb_10k_streams <= 160 0 #25
sse_kb_per_stream <= 16 0 #25
sse_healthz_p99_ms <= 2 0 #25
connections_closed_in_flight <= 0 1 #25
signin_ms_p99 <= 100 0 #26
view_p99_ratio_during_signins <= 1.5 0 #26
rated_finish_ms_p99 <= 100 0 #26
'
# The flat "key": number pairs of the results (nested objects, e.g. "rounds", are skipped).
figures=$(awk '
  /^  "[a-z0-9_]+": / {
    line = $0; sub(/^  "/, "", line); key = line; sub(/".*/, "", key)
    val = line; sub(/^[^:]*: */, "", val); sub(/,$/, "", val)
    if (val ~ /^-?[0-9.eE+-]+$/ || val == "null") print key, val
  }' "$results")
printf '%s\n' "$figures" | awk -v goals="$goals" '
  BEGIN {
    n = split(goals, lines, "\n")
    for (i = 1; i <= n; i++) {
      if (split(lines[i], f, " ") < 5) continue
      dir[f[1]] = f[2]; goal[f[1]] = f[3]; hard[f[1]] = f[4]; issue[f[1]] = f[5]; order[++ng] = f[1]
    }
    printf "%-42s %14s %4s %12s %8s  %s\n", "figure", "value", "", "goal", "ratio", "pass"
  }
  NF == 2 { value[$1] = $2; keys[++nk] = $1 }
  END {
    failed = 0
    for (i = 1; i <= nk; i++) {
      k = keys[i]
      if (k in dir) continue
      printf "%-42s %14s\n", k, value[k]
    }
    for (i = 1; i <= ng; i++) {
      k = order[i]; g = goal[k]
      if (substr(g, 1, 1) == "@") g = (substr(g, 2) in value) ? value[substr(g, 2)] : "null"
      v = (k in value) ? value[k] : "null"
      if (v == "null" || g == "null") {
        printf "%-42s %14s %4s %12s %8s  %s\n", k, v, dir[k], g, "-", "not measured " issue[k]
        continue
      }
      ok = dir[k] == ">=" ? v + 0 >= g + 0 : v + 0 <= g + 0
      ratio = g + 0 != 0 ? sprintf("%.2f", v / g) : "-"
      printf "%-42s %14s %4s %12s %8s  %s\n", k, v, dir[k], g, ratio, (ok ? "yes" : "NO") " " issue[k]
      if (!ok && hard[k] == 1) failed = 1
    }
    exit failed
  }'
