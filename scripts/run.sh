#!/usr/bin/env bash
# run.sh: what `make run` calls after building: serves the page and the API with build/cityd in
# the foreground. When DATABASE_URL is unset it keeps a private PostgreSQL cluster under
# ./var/pg (made once, started here, stopped again on exit), with database `city`, listening on
# a unix socket in ./var/run and on 127.0.0.1 at port 5433 or the first free port above it.
# Ctrl-C or SIGTERM stops the daemon, then the cluster (pg_ctl stop -m fast).
#
# Environment: PORT (default 8080), DATABASE_URL (use that database instead of the private
# cluster), CITY_VAR (where the private cluster lives; default ./var).
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` system
# user and is driven through `runuser -u postgres --`. The private cluster trusts every
# connection from this machine: it is for development, not for production.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
port_http="${PORT:-8080}"

if [ ! -x build/cityd ]; then
    echo "$0: build/cityd is missing; run \`make\` first" >&2
    exit 1
fi

pg_started=""
daemon=""
stop_all() {
    trap - INT TERM EXIT
    if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then
        kill -TERM "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    fi
    if [ -n "$pg_started" ]; then
        echo "stopping PostgreSQL (${pgdata})" >&2
        as_pg "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true
    fi
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'stop_all' EXIT

if [ -z "${DATABASE_URL:-}" ]; then
    pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -z "$pgbin" ] || [ ! -x "$pgbin/pg_ctl" ]; then
        if command -v pg_ctl >/dev/null 2>&1; then
            pgbin=$(dirname "$(command -v pg_ctl)")
        else
            echo "$0: no PostgreSQL server found (apt-get install postgresql)," \
                 "or set DATABASE_URL" >&2
            exit 1
        fi
    fi

    var="${CITY_VAR:-$root/var}"
    if [ "$(id -u)" = 0 ]; then
        pguser=postgres
        if ! id -u "$pguser" >/dev/null 2>&1; then
            echo "$0: running as root needs the system user '$pguser'" \
                 "(apt-get install postgresql)" >&2
            exit 1
        fi
        as_pg() { (cd / && runuser -u "$pguser" -- "$@"); }
        mkdir -p "$var"
        # The postgres user must be able to reach ./var; when a parent directory is closed to
        # it (a checkout under /root, say), keep the cluster in a directory of its own.
        if ! runuser -u "$pguser" -- test -x "$var"; then
            var="/var/tmp/city-$(printf '%s' "$root" | cksum | cut -d' ' -f1)"
            echo "note: user $pguser cannot reach $root/var; the cluster lives in $var" >&2
            mkdir -p "$var"
            chmod 755 "$var"
        fi
        mkdir -p "$var/pg" "$var/run"
        chown "$pguser" "$var/pg" "$var/run"
        chmod 700 "$var/pg"
    else
        pguser=$(id -un)
        as_pg() { (cd / && "$@"); }
        mkdir -p "$var/pg" "$var/run"
        chmod 700 "$var/pg"
    fi
    pgdata="$var/pg"
    pgrun="$var/run"
    pglog="$var/postgres.log"
    touch "$pglog"
    if [ "$(id -u)" = 0 ]; then chown "$pguser" "$pglog"; fi

    if [ ! -f "$pgdata/PG_VERSION" ]; then
        echo "creating a PostgreSQL cluster in $pgdata" >&2
        if ! as_pg "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --locale=C \
                >"$var/initdb.log" 2>&1; then
            echo "$0: initdb failed:" >&2
            cat "$var/initdb.log" >&2
            exit 1
        fi
        cat >>"$pgdata/postgresql.conf" <<EOF

# run.sh: the private development cluster.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$pgrun'
EOF
    fi

    pgport=""
    if as_pg "$pgbin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
        # Left running by an earlier run that did not stop it: use it, and stop it on exit.
        pgport=$(sed -n 4p "$pgdata/postmaster.pid")
        pg_started=1
    else
        for try in $(seq 5433 5532); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then
                continue
            fi
            : >"$pglog"
            if as_pg "$pgbin/pg_ctl" -D "$pgdata" -l "$pglog" -o "-p $try" -w -t 60 start \
                    >/dev/null 2>&1; then
                pgport=$try
                pg_started=1
                break
            fi
            if ! grep -q "could not bind\|could not create any TCP/IP\|Address already in use" \
                    "$pglog"; then
                echo "$0: PostgreSQL did not start; see $pglog:" >&2
                tail -n 20 "$pglog" >&2
                exit 1
            fi
        done
    fi
    if [ -z "$pgport" ]; then
        echo "$0: found no free port for PostgreSQL from 5433 to 5532" >&2
        exit 1
    fi
    psql=("$pgbin/psql" -X -q -h 127.0.0.1 -p "$pgport" -U postgres)
    if [ "$("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'city'")" \
            != 1 ]; then
        "${psql[@]}" -d postgres -c "CREATE DATABASE city" >/dev/null
    fi
    export DATABASE_URL="postgresql://postgres@127.0.0.1:$pgport/city"
    echo "PostgreSQL: $pgdata on 127.0.0.1:$pgport (log: $pglog)" >&2
fi

echo "serving http://localhost:$port_http/"
build/cityd serve --port "$port_http" --database "$DATABASE_URL" --web web \
    --cards cards/cards.json --migrations migrations &
daemon=$!
status=0
wait "$daemon" || status=$?
daemon=""
exit "$status"
