#!/usr/bin/env bash
# A throwaway local PostgreSQL 15 for trying sink.postgres and for `tideline-bench postgres`
# (the tests start their own, tests/postgres/pg_server.hpp). As root the server runs as
# `nobody` (initdb refuses root). Unix socket and data in DIR, TCP on 127.0.0.1:PORT with a
# password (scram-sha-256) that is printed once and kept in DIR/password.
#
#   scripts/pg-scratch.sh start DIR [PORT]   initdb (first time) and start; prints the conninfo
#   scripts/pg-scratch.sh stop DIR           stop (the data stays until you delete DIR)
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
[[ -x $bin/initdb ]] || { echo "pg-scratch: install the Debian package postgresql" >&2; exit 1; }
cmd=${1:?usage: pg-scratch.sh start|stop DIR [PORT]}
dir=${2:?usage: pg-scratch.sh start|stop DIR [PORT]}
port=${3:-54329}
as=()
if [[ $(id -u) -eq 0 ]]; then as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); fi
case "$cmd" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ ! -d $dir/data ]]; then
        [[ $(id -u) -eq 0 ]] && chown nobody:nogroup "$dir"
        chmod 700 "$dir"
        (cd /tmp && "${as[@]}" $bin/initdb -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null)
        printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' >"$dir/data/pg_hba.conf"
        head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$dir/password"
        chmod 600 "$dir/password"
        [[ $(id -u) -eq 0 ]] && chown nobody:nogroup "$dir/password" "$dir/data/pg_hba.conf"
        fresh=1
    fi
    (cd /tmp && "${as[@]}" $bin/pg_ctl -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null)
    if [[ ${fresh:-0} == 1 ]]; then
        $bin/psql -h "$dir" -p "$port" -U postgres -X -q -c \
            "CREATE ROLE tideline LOGIN PASSWORD '$(cat "$dir/password")'" postgres
        $bin/psql -h "$dir" -p "$port" -U postgres -X -q -c \
            "CREATE DATABASE tideline OWNER tideline" postgres
    fi
    echo "conninfo: host=127.0.0.1 port=$port dbname=tideline user=tideline password=\${file:$dir/password}"
    ;;
stop)
    (cd /tmp && "${as[@]}" $bin/pg_ctl -D "$dir/data" -m fast -w stop >/dev/null)
    ;;
*)
    echo "pg-scratch: unknown command $cmd (start, stop)" >&2
    exit 2
    ;;
esac
