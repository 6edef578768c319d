#!/usr/bin/env bash
# Checkpoints and savepoints written by an earlier build restore with this one (issue 18: the
# redesign must not change file formats). The fixture was made by make_fixture.sh with the
# tideline-run of commit d30b297 (before the runtime/checkpoint redesign); this script copies it
# to a temp folder and, with the CURRENT tideline-run:
#   1. resumes the SIGKILLed run from its newest checkpoint (3 of them, RocksDB, with the committed sink.file
#      output and an upsert table) and expects the uninterrupted run's output, byte for byte;
#   2. restores the savepoint of the run with settings.state "rocksdb" (spilled window keys) and
#      expects the same output;
#   3. runs both pipelines uninterrupted and expects the same output (the redesign changed no
#      result).
#   check_fixture.sh TIDELINE_RUN FIXTURE_DIR
set -euo pipefail
run=$1 fixture=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$fixture" "$tmp/f"
fail=0

expect_output() { # DIR WHAT
    local dir=$1 what=$2 f
    for f in "$tmp"/f/expected/*.jsonl; do
        local name=${f##*/}
        if [[ $name == sessions-table.jsonl ]]; then
            "$run" --dump-table "$dir/out/sessions-table" >"$tmp/table.jsonl"
            cmp -s "$f" "$tmp/table.jsonl" || { echo "FAIL ($what): the upsert table differs from expected/$name"; diff "$f" "$tmp/table.jsonl" | head -5; fail=1; }
        elif ! cmp -s "$f" "$dir/out/$name"; then
            echo "FAIL ($what): out/$name differs from expected/$name"
            diff "$f" "$dir/out/$name" | head -5
            fail=1
        fi
    done
    [[ $fail == 0 ]] && echo "ok ($what): every output equals the old build's uninterrupted run"
}

# 1. Resume after SIGKILL from the old build's checkpoints.
(cd "$tmp/f/killed-memory" && "$run" pipeline.json 2>"$tmp/resume.err") || { cat "$tmp/resume.err"; exit 1; }
grep -q 'restoring from checkpoint 3 .*15 of 15 node(s) restored' "$tmp/resume.err" \
    || { echo "FAIL: did not restore the old checkpoint 3 of all 15 nodes:"; cat "$tmp/resume.err"; exit 1; }
expect_output "$tmp/f/killed-memory" "resumed from an old checkpoint"

# 2. Restore the old savepoint (RocksDB state backend with spilled keys).
(cd "$tmp/f/savepoint-rocksdb" && "$run" --restore savepoint pipeline-rocksdb.json 2>"$tmp/restore.err") || { cat "$tmp/restore.err"; exit 1; }
grep -q 'restoring from savepoint' "$tmp/restore.err" \
    || { echo "FAIL: did not restore the old savepoint:"; cat "$tmp/restore.err"; exit 1; }
expect_output "$tmp/f/savepoint-rocksdb" "restored from an old savepoint"

# 3. Uninterrupted runs of both pipelines.
for p in pipeline.json pipeline-rocksdb.json; do
    mkdir -p "$tmp/fresh-$p" && cp "$tmp/f/killed-memory/pipeline.json" "$tmp/f/savepoint-rocksdb/pipeline-rocksdb.json" "$tmp/fresh-$p/"
    (cd "$tmp/fresh-$p" && "$run" "$p" 2>/dev/null)
    expect_output "$tmp/fresh-$p" "uninterrupted $p"
done
exit $fail
