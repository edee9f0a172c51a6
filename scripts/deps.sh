#!/bin/sh
# deps.sh: installs the Debian packages the build and the tests need, when run as root and
# one is missing. Run by `make test` and `make run`; quiet when all is there.
#   deps.sh          the build and the C tests (make test)
#   deps.sh run      only what building and running the daemon needs (make run): no test tools
#   deps.sh list [run]  prints the packages of the full set (or of run) and installs nothing
#   deps.sh bench    besides, what `make bench` needs (wrk, curl)
#   deps.sh node     Node.js 20 or later and npm, which the JavaScript tests (make test-js)
#                    need: when node is missing or older and we are root, installs Debian's
#                    nodejs only if the archive offers 20 or later; otherwise fails, saying how
#                    to get it. Never skips the JavaScript tests silently.
#   deps.sh docker   what `make docker-test` needs (podman, runc, mmdebstrap, yq), installed
#                    when we are root; otherwise it says nothing and the test skips itself,
#                    saying why.
set -e
NODE_MIN=20

node_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

if [ "${1:-}" = node ]; then
  have=$(node_major)
  if [ "$have" -ge "$NODE_MIN" ] && command -v npm >/dev/null 2>&1; then
    exit 0
  fi
  if [ "$have" -lt "$NODE_MIN" ]; then
    why="Node.js $NODE_MIN or later is needed for the JavaScript tests (found: $(node --version 2>/dev/null || echo none))"
  else
    why="npm is needed for the JavaScript tests (found node $(node --version), no npm)"
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-cache >/dev/null 2>&1; then
    apt-get update -qq
    cand=$(apt-cache policy nodejs 2>/dev/null | awk '/Candidate:/ {print $2}' | sed 's/^[0-9]*://')
    cand_major=$(echo "$cand" | sed -n 's/^\([0-9][0-9]*\).*/\1/p')
    if [ -n "$cand_major" ] && [ "$cand_major" -ge "$NODE_MIN" ]; then
      echo "deps: $why; installing Debian's nodejs $cand and npm"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
      [ "$(node_major)" -ge "$NODE_MIN" ] && command -v npm >/dev/null 2>&1 && exit 0
    fi
    echo "deps: $why, and this system's package archive offers nodejs ${cand:-none}." >&2
  else
    echo "deps: $why." >&2
  fi
  cat >&2 <<MSG
deps: install Node.js $NODE_MIN or later with npm (Debian 12's nodejs is 18), for example from
deps: https://nodejs.org, through NodeSource's Debian packages, or with nvm, then run make test
deps: again. The JavaScript tests (OpenAPI lint, contract, browser) are part of make test and
deps: are not skipped.
MSG
  exit 1
fi

if [ "${1:-}" = docker ]; then
  need=""
  for p in podman runc mmdebstrap yq; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
  done
  if [ -n "$need" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing:$need"
    # shellcheck disable=SC2086 # a list of names
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null; } ||
      echo "deps: could not install$need; make docker-test will say what it misses" >&2
  fi
  exit 0
fi

# What running needs (make run: build the daemon, start a private PostgreSQL), and what only
# the tests add (Criterion and curl for the C tests, clang-format, nginx for the proxy tests,
# Chromium for the browser tests, clang for the fuzzer, Patroni and etcd for make ha-test).
RUN_PKGS="gcc make pkg-config libjansson-dev libpq-dev zlib1g-dev libmicrohttpd-dev libssl-dev \
libunistring-dev libsodium-dev postgresql"
TEST_PKGS="libcriterion-dev libcurl4-openssl-dev clang-format nginx chromium clang libclang-rt-14-dev \
patroni etcd-server etcd-client curl"

case "${1:-}" in
  run) set -- $RUN_PKGS ;;
  bench) set -- wrk curl $RUN_PKGS $TEST_PKGS ;;
  list)
    # deps.sh list [run]: prints the packages a set needs, installs nothing.
    if [ "${2:-}" = run ]; then echo $RUN_PKGS; else echo $RUN_PKGS $TEST_PKGS; fi
    exit 0 ;;
  *) set -- $RUN_PKGS $TEST_PKGS ;;
esac
need=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing packages:$need (run as root, or install them with apt-get)" >&2
  exit 1
fi
echo "installing:$need"
apt-get update -qq
# shellcheck disable=SC2086 # a list of names
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
