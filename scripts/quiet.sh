#!/bin/sh
# quiet.sh: runs one test binary with everything it prints kept in LOG, so that `make test`
# shows results, not the noise of deliberate faults: the store's "store: connect: ... Connection
# refused", "FATAL: terminating connection due to administrator command", "WARNING: terminating
# connection due to immediate shutdown command" and the bad-SQL errors of tests/test_store.c,
# which stops and restarts its database and sends broken statements on purpose. On success it
# prints only Criterion's own report lines ([====] the synthesis, [----] what a test logged,
# [WARN], [SKIP]), the summary line of tests/reliability/test_secrecy.c and how long the binary
# took (to see where the suite's time goes); on failure it prints the last 300 lines of LOG and
# where the whole is.
#
#   quiet.sh LOG CMD [ARGS...]
set -u
log=${1:?usage: quiet.sh LOG CMD [ARGS...]}
shift
mkdir -p "$(dirname "$log")"
start=$(date +%s)
if "$@" >"$log" 2>&1; then
  grep -E '^(\[(====|----|WARN|SKIP)\]|secrecy: )' "$log" || true
  echo "quiet.sh: $(basename "$log" .log) took $(($(date +%s) - start)) s"
  exit 0
else
  status=$?
  tail -n 300 "$log"
  echo "quiet.sh: $* failed with status $status; its whole output is in $log" >&2
  exit "$status"
fi
