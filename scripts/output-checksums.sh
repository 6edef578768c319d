#!/usr/bin/env bash
# Prints a checksum of every output of every example in pipelines/ and of every Nexmark query,
# so that two builds can be compared for byte-identical results (the redesign, engine modes and
# parallelism must not change them):
#   scripts/output-checksums.sh BIN_DIR [--events N] > sums.txt   (BIN_DIR: tideline-run, tideline-bench)
#   diff before.txt after.txt
# Examples run with tideline-run in a temp copy of their folder (checkpoints disabled by a fresh
# checkpoint dir); Nexmark queries run through tideline-bench's in-process generator (N events,
# default 2,000,000), whose "checksum" covers every row that reached sink.discard.
set -euo pipefail
bin=$(realpath "$1"); shift
events=2000000
[[ ${1:-} == --events ]] && events=$2
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$here"/pipelines/*/; do
    name=$(basename "$dir")
    [[ -f $dir/pipeline.json ]] || continue
    cp -r "$dir" "$tmp/$name"
    rm -rf "$tmp/$name/out" "$tmp/$name/state"
    (cd "$tmp/$name" && "$bin/tideline-run" --checkpoint-dir "$tmp/$name-chk" pipeline.json >"$tmp/$name.stdout" 2>/dev/null) \
        || echo "$name: tideline-run failed"
    echo "$name stdout $(sha256sum <"$tmp/$name.stdout" | cut -c1-16)"
    if [[ -d $tmp/$name/out ]]; then
        # Plain files byte for byte; an upsert table (a RocksDB folder) by its rows, through
        # --dump-table (its files hold random ids and timestamps).
        (cd "$tmp/$name" && find out -type f | sort | while read -r f; do
            [[ -f $(dirname "$f")/CURRENT ]] && continue # inside a table
            echo "$name $f $(sha256sum <"$f" | cut -c1-16)"
        done)
        (cd "$tmp/$name" && find out -name CURRENT | sort | while read -r c; do
            t=$(dirname "$c")
            echo "$name $t (table rows) $("$bin/tideline-run" --dump-table "$t" | sha256sum | cut -c1-16)"
        done)
    fi
done
for q in "$here"/pipelines/nexmark/q*.json; do
    query=$(basename "$q" .json)
    line=$("$bin/tideline-bench" nexmark --query "$query" --events "$events" --pipelines "$here/pipelines/nexmark" 2>/dev/null | grep '^json ')
    echo "nexmark $query $(python3 -c 'import json,sys; d=json.loads(sys.argv[1][5:]); print(d["rows"], d["checksum"])' "$line")"
done
