#!/usr/bin/env bash
# One lab through the same path a teacher runs (issue 19, item 5):
#   - its starting pipeline FAILS its check (`tideline-run --expect`: exit 1, "DIFFERENT"),
#   - its solution passes it (exit 0),
#   - its recording/ is what tideline-lab-recording writes from its input file today.
#   test_lab.sh TIDELINE_RUN TIDELINE_LAB_RECORDING LAB_DIR
set -uo pipefail
run=$1 convert=$2 lab=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
# A copy: nothing a check or a conversion does may touch the lab in the source tree.
cp -r "$lab" "$tmp/lab" && rm -rf "$tmp/lab/out"

"$run" --expect "$tmp/lab/expected" "$tmp/lab/pipeline.json" >"$tmp/start" 2>&1
status=$?
if [[ $status == 1 ]] && grep -q '^expected outputs: DIFFERENT$' "$tmp/start"; then
    echo "ok (the starting pipeline fails its check)"
else
    echo "FAIL: the starting pipeline must fail its check with exit 1, got $status:"; cat "$tmp/start"
    failures=$((failures + 1))
fi

"$run" --expect "$tmp/lab/expected" "$tmp/lab/solution/pipeline.json" >"$tmp/solution" 2>&1
status=$?
if [[ $status == 0 ]] && grep -q '^expected outputs: all .* match$' "$tmp/solution"; then
    echo "ok (the solution passes the check)"
else
    echo "FAIL: the solution must pass the check, got $status:"; cat "$tmp/solution"
    failures=$((failures + 1))
fi

if [[ -d $lab/recording ]]; then
    if "$convert" "$tmp/lab/pipeline.json" "$tmp/recording" >"$tmp/convert" 2>&1 \
        && diff -r "$lab/recording" "$tmp/recording" >"$tmp/diff"; then
        echo "ok (recording/ is the input file, converted)"
    else
        echo "FAIL: recording/ is not what tideline-lab-recording writes from the input" \
             "(run pipelines/labs/make-recordings.sh):"; cat "$tmp/convert" "$tmp/diff"
        failures=$((failures + 1))
    fi
else
    echo "FAIL: $lab has no recording/"; failures=$((failures + 1))
fi
for f in task.md pipeline.json solution/pipeline.json; do
    [[ -s $lab/$f ]] || { echo "FAIL: $lab/$f is missing"; failures=$((failures + 1)); }
done
exit $((failures > 0))
