#!/usr/bin/env bash
# Makes the checkpoint-compatibility fixture (run once, with the OLD build, then committed):
#   tests/compat/make_fixture.sh /path/to/old/tideline-run OUT_DIR
# OUT_DIR/killed-memory: pipeline.json killed with SIGKILL 0.8 s into its paced run (RocksDB
#   checkpoints, sink.file output as committed, an upsert table), as a crash leaves it.
# OUT_DIR/savepoint-rocksdb: pipeline-rocksdb.json (settings.state "rocksdb", 20 KiB budget, so
#   windows have spilled keys) stopped with SIGTERM at 0.8 s with --savepoint savepoint; its
#   checkpoints are removed so that only the savepoint can restore it.
# OUT_DIR/expected: the old build's output of an uninterrupted run (both pipelines give the same).
set -euo pipefail
run=$(realpath "$1") out=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"/{killed-memory,savepoint-rocksdb,expected,ref}
cp "$here/pipeline.json" "$out/killed-memory/" && cp "$here/pipeline.json" "$out/ref/"
cp "$here/pipeline-rocksdb.json" "$out/savepoint-rocksdb/"
(cd "$out/ref" && "$run" pipeline.json 2>/dev/null)
cp "$out"/ref/out/*.jsonl "$out/expected/"
"$run" --dump-table "$out/ref/out/sessions-table" >"$out/expected/sessions-table.jsonl"
rm -rf "$out/ref"
(cd "$out/killed-memory" && { "$run" pipeline.json 2>/dev/null & pid=$!; sleep 0.8; kill -9 $pid; wait $pid || true; })
(cd "$out/savepoint-rocksdb" && { "$run" --savepoint savepoint pipeline-rocksdb.json 2>/dev/null & pid=$!; sleep 0.8; kill -TERM $pid; wait $pid; })
rm -rf "$out/savepoint-rocksdb/state"
find "$out" -name LOG -delete -o -name 'LOG.old.*' -delete
ls "$out/killed-memory/state" | grep -q '^manifest-' || { echo "no checkpoint was written before the kill" >&2; exit 1; }
