#!/usr/bin/env bash
# docker/db/entrypoint.sh: the entry point of the test suite's PostgreSQL image
# (docker/db/Containerfile), with the environment contract of the official `postgres` image
# that docker/compose.yml names: POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required
# unless POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default: the user's name), PGDATA
# (default /var/lib/postgresql/data), POSTGRES_INITDB_ARGS, and *.sql / *.sh files in
# /docker-entrypoint-initdb.d run once on a new cluster. It starts as root only to give PGDATA
# to the `postgres` user (a fresh volume or bind mount may belong to root), then runs as that
# user: it makes the cluster when PGDATA is empty and execs the server in the foreground,
# listening on every address with password (scram-sha-256) authentication.
set -euo pipefail

: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
export PGDATA

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /run/postgresql
    chown postgres:postgres "$PGDATA" /run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
        echo "entrypoint: set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust)" >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
    # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of arguments, as upstream's
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
        ${POSTGRES_INITDB_ARGS:-} >/dev/null
    rm -f "$pwfile"
    printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
    printf 'host all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"

    # A server for the database and the init scripts, on a socket of its own: nothing else
    # (a health check, a client) can reach it before the real server starts.
    PGHOST=$(mktemp -d)
    export PGHOST
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories='$PGHOST'" -w -s start
    psql=(psql -X -q -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres)
    if [ "$POSTGRES_DB" != postgres ]; then
        "${psql[@]}" --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
    fi
    for f in /docker-entrypoint-initdb.d/*; do
        case "$f" in
        *.sql) "${psql[@]}" -d "$POSTGRES_DB" -f "$f" ;;
        *.sh) bash "$f" ;;
        esac
    done
    pg_ctl -D "$PGDATA" -m fast -w -s stop
    rmdir "$PGHOST"
    unset PGHOST
    echo "entrypoint: PostgreSQL cluster made in $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi

exec postgres -D "$PGDATA" "$@"
