#!/bin/sh
# docker/ha/post-bootstrap.sh: run once by Patroni on the first primary of docker/compose-ha.yml,
# right after initdb (Patroni passes a superuser connection URL as $1): makes the role and the
# database cityd uses, with the password from CITY_DB_PASSWORD. The replicas clone both.
set -eu
psql "$1" -v ON_ERROR_STOP=1 -v pw="${CITY_DB_PASSWORD:?set CITY_DB_PASSWORD}" <<'SQL'
CREATE ROLE city LOGIN PASSWORD :'pw';
CREATE DATABASE city OWNER city;
SQL
