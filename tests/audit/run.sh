#!/usr/bin/env bash
# run.sh: started by scripts/with-postgres.sh; serves cityd on a private port and runs a node script.
# usage (from the work tree): CITY_ROOT=$PWD CITYD=$PWD/build/cityd ./scripts/with-postgres.sh tests/audit/run.sh tests/audit/drive.js ARGS...
set -euo pipefail
PORT=${AUDIT_PORT:-18500}
cd "$CITY_ROOT"
"$CITYD" serve --port "$PORT" --allow-seed --create-rate 0 --join-rate 0 >/tmp/scaudit-cityd.$PORT.log 2>&1 &
SRV=$!
trap 'kill $SRV 2>/dev/null || true; wait $SRV 2>/dev/null || true' EXIT
for i in $(seq 1 100); do curl -sf localhost:$PORT/healthz >/dev/null && break; sleep 0.2; done
AUDIT_URL=http://localhost:$PORT/api/v1 node "$@"
