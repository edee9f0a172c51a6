#!/bin/sh
# reliability-summary.sh: adds up the "key value" lines that the reliability tests and the
# fuzz runs appended to COUNTS_FILE, prints them as a table, and fails when any order that got
# a 202 is missing from the database (key lost_orders) or when nothing was counted at all.
set -e
file=${1:?usage: reliability-summary.sh COUNTS_FILE}
[ -s "$file" ] || { echo "reliability: no counts were written to $file" >&2; exit 1; }
echo "== reliability suite: what it tried"
awk '{ sum[$1] += $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
     END { for (i = 0; i < n; i++) printf "  %-36s %12d\n", order[i], sum[order[i]] }' "$file"
lost=$(awk '$1 == "lost_orders" { s += $2 } END { print s + 0 }' "$file")
if [ "$lost" != 0 ]; then
  echo "reliability: $lost acknowledged orders were lost" >&2
  exit 1
fi
echo "reliability: zero lost orders"
