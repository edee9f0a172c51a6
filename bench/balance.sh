#!/bin/sh
# balance.sh: the deck's balance as the expert sees it (cards/README.md, "Balance"): expert
# self-play of The City at 2, 3, 4 and 5 players with `cityd simulate --per-card`, then, per
# player count, the rounds, the seats' shares of wins and every development's shares (built in
# how many games, held by how many winners), checked against the deck's targets: no development
# in more than 60% of winners' tableaux, every development built in at least 5% of games,
# 7-9 rounds on average, every seat within 0.03 of 1/P. Prints a markdown table and exits 1
# when a target is missed.
#
#   bench/balance.sh [CITYD]      BALANCE_GAMES (600), BALANCE_ITERATIONS (100 playouts a
#                                 decision), BALANCE_JOBS (2), BALANCE_CARDS (cards/cards.json)
set -eu
CITYD=${1:-build/cityd}
games=${BALANCE_GAMES:-600}
iterations=${BALANCE_ITERATIONS:-100}
jobs=${BALANCE_JOBS:-2}
cards=${BALANCE_CARDS:-cards/cards.json}
out=${BALANCE_OUT:-build/balance}
mkdir -p "$out"
for p in 2 3 4 5; do echo "$p"; done |
  xargs -P "$jobs" -I{} sh -c "'$CITYD' simulate --cards '$cards' --players {} --games $games \
    --seed 1000 --bots expert --iterations $iterations --think-ms 0 --per-card > '$out/p{}.json'"
python3 - "$out" "$games" "$iterations" <<'PY'
import json, sys
out, games, iterations = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {p: json.load(open(f"{out}/p{p}.json")) for p in (2, 3, 4, 5)}
ok = True
print(f"Expert self-play, {games} games per player count, {iterations} playouts a decision.\n")
print("| players | rounds avg (min-max) | seats' shares of wins | most in winners' tableaux | least built |")
print("|---|---|---|---|---|")
for p, j in runs.items():
    seats = j["wins_by_seat"]
    worst = max(abs(s - 1 / p) for s in seats)
    most, least = j["most_in_winners"], j["least_built"]
    flags = []
    if not 7 <= j["avg_rounds"] <= 9: flags.append("rounds")
    if worst > 0.03: flags.append("seats")
    if most["share"] > 0.60: flags.append("winners")
    if least["share"] < 0.05: flags.append("built")
    ok = ok and not flags
    print(f"| {p} | {j['avg_rounds']:.2f} ({j['min_rounds']}-{j['max_rounds']}) | "
          + " · ".join(f"{s:.3f}" for s in seats)
          + f" | {most['card']} {most['share']:.2f} | {least['card']} {least['share']:.3f} |"
          + (" **missed: " + ", ".join(flags) + "**" if flags else ""))
print("\n| card | built (2 · 3 · 4 · 5 players) | in winners' tableaux (2 · 3 · 4 · 5) |")
print("|---|---|---|")
cards = [c["card"] for c in runs[2]["cards"]]
for c in cards:
    row = [next(x for x in runs[p]["cards"] if x["card"] == c) for p in (2, 3, 4, 5)]
    print(f"| {c} | " + " · ".join(f"{x['built']:.2f}" for x in row) + " | "
          + " · ".join(f"{x['in_winners']:.2f}" for x in row) + " |")
sys.exit(0 if ok else 1)
PY
