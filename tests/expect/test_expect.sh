#!/usr/bin/env bash
# tideline-run --expect / --update-expected (issue 19, item 3), on a copy of an example:
# a match exits 0; each kind of difference is reported in stream terms and exits 1; a stale or
# missing expected file fails; an unbounded source is refused (exit 2); the pipeline's own
# outputs and checkpoints are never touched.
#   test_expect.sh TIDELINE_RUN PIPELINES_DIR
set -uo pipefail
run=$1 pipelines=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { # DESCRIPTION EXPECTED_STATUS PATTERN... (each an extended regex the report must match)
    local what=$1 want=$2 status
    shift 2
    "$run" --expect "$tmp/ex/expected" "$tmp/ex/pipeline.json" >"$tmp/report" 2>"$tmp/err"
    status=$?
    if [[ $status != "$want" ]]; then
        echo "FAIL ($what): exit $status, wanted $want"; cat "$tmp/report" "$tmp/err"; failures=$((failures + 1)); return
    fi
    for pattern in "$@"; do
        grep -Eq -- "$pattern" "$tmp/report" "$tmp/err" \
            || { echo "FAIL ($what): report lacks /$pattern/:"; cat "$tmp/report"; failures=$((failures + 1)); return; }
    done
    echo "ok ($what)"
}

cp -r "$pipelines/sessions-late-data" "$tmp/ex"
rm -rf "$tmp/ex/out" "$tmp/ex/state"
check "the shipped expectations match" 0 '^expected outputs: all 3 sink\(s\) match$' '^sink session_log: ok \(8 rows'
[[ ! -e $tmp/ex/out ]] || { echo "FAIL: --expect wrote the pipeline's own out/ folder"; failures=$((failures + 1)); }

# A changed aggregate, a removed row and an added row of the session window's output.
cp -r "$tmp/ex/expected" "$tmp/pristine"
python3 - "$tmp/ex/expected/session_log.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
lines = open(p).read().splitlines()
r = json.loads(lines[2]); r["events"] += 1; lines[2] = json.dumps(r, separators=(",", ":"))
del lines[5]
lines.append('{"user":"zed","window_start":1,"window_end":2,"events":1,"spent":1,"emit":"final"}')
open(p, "w").write("\n".join(lines) + "\n")
PY
check "a window row differs, one is missing, one is extra" 1 \
    '^sink session_log: FAIL .*\(rows from window `sessions`\): 1 missing, 1 extra, 1 different' \
    'different +window \[2024-05-01T10:00:00.000Z \(1714557600000\), 2024-05-01T10:00:55.000Z \(1714557655000\)\) user="ann" \(emit "final"\): events: expected 4, got 3' \
    'missing +window \[1970-01-01T00:00:00.001Z \(1\), 1970-01-01T00:00:00.002Z \(2\)\) user="zed"' \
    'extra +window \[2024-05-01T10:01:35.000Z .* user="bob"' \
    '^expected outputs: DIFFERENT$'
rm -rf "$tmp/ex/expected" && cp -r "$tmp/pristine" "$tmp/ex/expected"

# The late records in another order: same rows, named as what they are.
python3 - "$tmp/ex/expected/dead_letter.jsonl" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines(); lines[0], lines[1] = lines[1], lines[0]
open(p, "w").write("\n".join(lines) + "\n")
PY
check "late records reordered" 1 'the same 4 rows in another order' 'record sent aside by `sessions` \("window_closed", watermark 2024-05-01T'
rm -rf "$tmp/ex/expected" && cp -r "$tmp/pristine" "$tmp/ex/expected"

# A truncated expected file (cut in the middle of its last row) is named as such.
head -c -20 "$tmp/pristine/session_log.jsonl" >"$tmp/ex/expected/session_log.jsonl"
check "a truncated expected file" 1 'corrupt +expected line 8 is not a JSON object \(a truncated or edited file\?\)'
cp "$tmp/pristine/session_log.jsonl" "$tmp/ex/expected/"

echo '{}' >"$tmp/ex/expected/renamed_sink.jsonl"
check "a stale expected file" 1 'renamed_sink.jsonl matches no sink of this pipeline'
rm "$tmp/ex/expected/renamed_sink.jsonl" "$tmp/ex/expected/dead_letter.jsonl"
check "a missing expected file" 1 'sink dead_letter: FAIL: no expected output .*dead_letter.jsonl \(run with --update-expected'

"$run" --update-expected "$tmp/ex/pipeline.json" >"$tmp/report" 2>&1 || { echo "FAIL: --update-expected"; failures=$((failures + 1)); }
diff -r "$tmp/pristine" "$tmp/ex/expected" >/dev/null || { echo "FAIL: --update-expected did not rewrite the same files"; failures=$((failures + 1)); }
check "after --update-expected" 0 'all 3 sink\(s\) match'

# An upsert table compared by its rows.
sed -i 's/"ann"/"anne"/' "$tmp/ex/expected/session_table.jsonl"
check "an upsert table's rows" 1 '^sink session_table: FAIL'
cp "$tmp/pristine/session_table.jsonl" "$tmp/ex/expected/"

# A checkpointed example: checked from the beginning, its own checkpoints and outputs untouched.
cp -r "$pipelines/clicks-per-user" "$tmp/ck" && rm -rf "$tmp/ck/out" "$tmp/ck/state"
python3 - "$tmp/ck/pipeline.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d.setdefault("settings", {})["checkpoint"] = {"interval_ms": 5, "dir": "state"}
json.dump(d, open(p, "w"))
PY
if "$run" --expect "$tmp/ck/expected" "$tmp/ck/pipeline.json" >"$tmp/report" 2>&1 \
    && [[ ! -e $tmp/ck/state && ! -e $tmp/ck/out ]]; then
    echo "ok (a checkpointed pipeline is checked without touching its checkpoints or outputs)"
else
    echo "FAIL (checkpointed example)"; cat "$tmp/report"; ls "$tmp/ck"; failures=$((failures + 1))
fi

# A run that would never end is refused before it starts.
cp -r "$pipelines/clicks-per-user" "$tmp/gen"
python3 - "$tmp/gen/pipeline.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["nodes"].insert(0, {"id": "forever", "kind": "source.generator", "params": {"count": 0}})
d["nodes"].append({"id": "drop", "kind": "sink.discard", "params": {}})
d["edges"].append({"from": "forever.out", "to": "drop.in"})
json.dump(d, open(p, "w"))
PY
"$run" --expect "$tmp/gen/expected" "$tmp/gen/pipeline.json" >"$tmp/report" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q 'needs bounded inputs, but source `forever` (source.generator) would run forever: params.count is 0' "$tmp/report"; then
    echo "ok (an unbounded source is refused)"
else
    echo "FAIL (unbounded source): exit $status"; cat "$tmp/report"; failures=$((failures + 1))
fi
# An unbounded Kafka source too (refused before any broker is met); "bounded" omitted is false.
mkdir -p "$tmp/kafka" && cat >"$tmp/kafka/pipeline.json" <<'JSON'
{"format": "tideline/1", "name": "k", "nodes": [
  {"id": "topic", "kind": "source.kafka", "params": {"bootstrap_servers": "127.0.0.1:1", "topic": "t"}},
  {"id": "out", "kind": "sink.file", "params": {"path": "out.jsonl"}}],
 "edges": [{"from": "topic.out", "to": "out.in"}]}
JSON
"$run" --expect "$tmp/kafka/expected" "$tmp/kafka/pipeline.json" >"$tmp/report" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q 'source `topic` (source.kafka) would run forever: params.bounded is not true' "$tmp/report"; then
    echo "ok (an unbounded Kafka source is refused)"
else
    echo "FAIL (unbounded Kafka source): exit $status"; cat "$tmp/report"; failures=$((failures + 1))
fi
"$run" --expect x --restore y "$tmp/ex/pipeline.json" >"$tmp/report" 2>&1
[[ $? == 2 ]] && grep -q 'cannot be combined with' "$tmp/report" && echo "ok (--expect with --restore is a usage error)" \
    || { echo "FAIL: --expect --restore"; failures=$((failures + 1)); }
exit $((failures > 0))
