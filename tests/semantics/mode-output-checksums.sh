#!/usr/bin/env bash
# Prints a checksum of every output of every example in pipelines/ (and of tests/parallel's
# stress pipelines) under each semantics mode, so that two builds of the Spark and Kafka
# Streams operators can be compared for byte-identical results:
#   tests/semantics/mode-output-checksums.sh BIN_DIR [MODE...] > sums.txt   (default: all three)
#   diff before.txt after.txt
# BIN_DIR holds tideline-run. An example a mode rejects (validation) or that fails prints its
# exit code and a checksum of its stderr (the verdict is part of what is compared).
# Each run gets a temp copy of its folder and a fresh checkpoint dir, and is timed (wall s, on
# stderr) so that the same script gives the before/after figures of a whole sweep.
set -euo pipefail
bin=$(realpath "$1"); shift
modes=("$@")
[[ ${#modes[@]} -gt 0 ]] || modes=(flink spark kafka-streams)
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_one() { # name dir pipeline-file mode
    local name=$1 dir=$2 file=$3 mode=$4 w="$tmp/$1-$4"
    rm -rf "$w"
    cp -r "$dir" "$w"
    rm -rf "$w/out" "$w/state"
    local start end rc=0
    start=$(date +%s.%N)
    (cd "$w" && timeout 900 "$bin/tideline-run" --semantics "$mode" --checkpoint-dir "$w-chk" \
        "$file" >"$w.stdout" 2>"$w.stderr") || rc=$?
    end=$(date +%s.%N)
    printf '%s %s %.2f s\n' "$name" "$mode" "$(echo "$end - $start" | bc)" >&2
    if [[ $rc -ne 0 ]]; then # rejected by validation, or failed: the message is compared
        echo "$name $mode exit $rc stderr $(sha256sum <"$w.stderr" | cut -c1-16)"
        return
    fi
    echo "$name $mode stdout $(sha256sum <"$w.stdout" | cut -c1-16)"
    [[ -d $w/out ]] || return 0
    (cd "$w" && find out -type f | sort | while read -r f; do
        [[ -f $(dirname "$f")/CURRENT ]] && continue # an upsert table's files: random ids
        echo "$name $mode $f $(sha256sum <"$f" | cut -c1-16)"
    done)
    (cd "$w" && find out -name CURRENT | sort | while read -r c; do
        t=$(dirname "$c")
        echo "$name $mode $t (table rows) $("$bin/tideline-run" --dump-table "$t" | sha256sum | cut -c1-16)"
    done)
}
for mode in "${modes[@]}"; do
    for dir in "$here"/pipelines/*/; do
        name=$(basename "$dir")
        [[ -f $dir/pipeline.json ]] || continue
        run_one "$name" "$dir" pipeline.json "$mode"
    done
    for p in "$here"/tests/parallel/pipelines/*.json; do
        name=parallel-$(basename "$p" .json)
        mkdir -p "$tmp/src-$name"
        cp "$p" "$tmp/src-$name/pipeline.json"
        run_one "$name" "$tmp/src-$name" pipeline.json "$mode"
    done
done
