#!/bin/sh
# deps.sh: installs the Debian packages the build and the tests need, when run as root and
# one is missing. Run by `make test` and `make run`; quiet when all is there. `deps.sh bench`
# checks what `make bench` needs besides (wrk, curl).
set -e
need=""
if [ "${1:-}" = bench ]; then
  set -- wrk curl
else
  set --
fi
for p in "$@" gcc make pkg-config libjansson-dev libcriterion-dev clang-format libpq-dev zlib1g-dev \
         libmicrohttpd-dev libssl-dev libcurl4-openssl-dev postgresql nginx chromium \
         clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
command -v node >/dev/null 2>&1 || echo "deps: node (20 or later) is needed for the JavaScript tests" >&2
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing packages:$need (run as root, or install them with apt-get)" >&2
  exit 1
fi
echo "installing:$need"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
