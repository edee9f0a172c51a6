#!/usr/bin/env bash
# with-postgres.sh: runs CMD [ARGS...] against a throw-away PostgreSQL cluster made in a temp
# directory (initdb, started on 127.0.0.1 at a free port and on a unix socket in that
# directory, tuned for speed over durability), then stops it and removes the directory. It
# listens on 127.0.0.2 too, at the same port, so that a test can reach "another server" of the
# same cluster (test_store's failover behind a proxy).
#
# CMD sees DATABASE_URL (postgresql://postgres@127.0.0.1:PORT/postgres, superuser, no password),
# CITY_PGDATA (the data directory), CITY_PGBIN (the directory of pg_ctl), CITY_PGUSER (the
# system user that runs the server), CITY_PGPORT, CITY_PGHOST (the socket directory) and
# CITY_PGLOG (the server's log file). Exits with CMD's status. With CITY_PG_DURABLE=1 the
# cluster keeps PostgreSQL's durable defaults (fsync, synchronous_commit, full_page_writes), as
# the benchmarks want.
#
# PostgreSQL refuses to run as root: when this script runs as root, the cluster belongs to the
# `postgres` system user (created by Debian's postgresql package) and is driven through
# `runuser -u postgres --`; otherwise it runs as the invoking user.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

# The server binaries: Debian keeps them off PATH under /usr/lib/postgresql/VERSION/bin.
pgbin="${CITY_PGBIN:-}"
if [ -z "$pgbin" ]; then
    pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -z "$pgbin" ] || [ ! -x "$pgbin/pg_ctl" ]; then
    if command -v pg_ctl >/dev/null 2>&1; then
        pgbin=$(dirname "$(command -v pg_ctl)")
    else
        echo "$0: no PostgreSQL server found (apt-get install postgresql)" >&2
        exit 1
    fi
fi

if [ "$(id -u)" = 0 ]; then
    pguser=postgres
    if ! id -u "$pguser" >/dev/null 2>&1; then
        echo "$0: running as root needs the system user '$pguser' (apt-get install postgresql)" >&2
        exit 1
    fi
    as_pg() { (cd / && runuser -u "$pguser" -- "$@"); }
else
    pguser=$(id -un)
    as_pg() { (cd / && "$@"); }
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/city-pg.XXXXXX")
chmod 755 "$tmp"
data="$tmp/data"
log="$tmp/postgres.log"
started=""

cleanup() {
    if [ -n "$started" ] && [ -f "$data/postmaster.pid" ]; then
        as_pg "$pgbin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$(id -u)" = 0 ]; then
    chown "$pguser" "$tmp"
fi

if ! as_pg "$pgbin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C -N \
        >"$tmp/initdb.log" 2>&1; then
    echo "$0: initdb failed:" >&2
    cat "$tmp/initdb.log" >&2
    exit 1
fi
cat >>"$data/postgresql.conf" <<EOF

# with-postgres.sh: a throw-away cluster.
listen_addresses = '127.0.0.1,127.0.0.2'
unix_socket_directories = '$tmp'
max_connections = 200
EOF
if [ "${CITY_PG_DURABLE:-0}" != 1 ]; then
    printf '# For tests: speed over durability.\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' \
        >>"$data/postgresql.conf"
fi

# Tries random ports until one binds; pg_ctl -w fails at once when the port is taken.
port=""
for _ in $(seq 1 30); do
    try=$((20000 + RANDOM % 40000))
    # Something answering there already: skip it without starting the server.
    if (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null ||
        (exec 3<>"/dev/tcp/127.0.0.2/$try") 2>/dev/null; then
        continue
    fi
    started=1
    rm -f "$log"
    if as_pg "$pgbin/pg_ctl" -D "$data" -l "$log" -o "-p $try" -w -t 60 start >/dev/null 2>&1
    then
        # PostgreSQL starts when it binds any one of its addresses: both or another port (CI: it
        # got 127.0.0.2 alone, 127.0.0.1's port being taken meanwhile, and never answered there).
        if grep -q "could not bind" "$log" 2>/dev/null; then
            as_pg "$pgbin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
            continue
        fi
        port=$try
        break
    fi
    if ! grep -q "could not bind\|could not create any TCP/IP sockets\|Address already in use" \
            "$log" 2>/dev/null; then
        echo "$0: PostgreSQL did not start; its log says:" >&2
        tail -n 20 "$log" >&2 || true
        exit 1
    fi
done
if [ -z "$port" ]; then
    echo "$0: found no free port for PostgreSQL; its log says:" >&2
    tail -n 20 "$log" >&2 || true
    exit 1
fi
# Later starts (a test's pg_ctl start, restart) use the same port without -o.
echo "port = $port" >>"$data/postgresql.conf"

for _ in $(seq 1 300); do
    if "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
        break
    fi
    sleep 0.1
done
if ! "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
    echo "$0: PostgreSQL started but does not answer on port $port" >&2
    exit 1
fi

export DATABASE_URL="postgresql://postgres@127.0.0.1:$port/postgres"
export CITY_PGDATA="$data" CITY_PGBIN="$pgbin" CITY_PGUSER="$pguser" CITY_PGPORT="$port"
export CITY_PGHOST="$tmp" CITY_PGLOG="$log"

status=0
"$@" || status=$?
exit "$status"
