#!/usr/bin/env bash
# docs/reference/semantics.md's "Where the engines differ: real runs" is the output of
# docs/reference/semantics-examples/run.sh: this runs it again and fails when the page no longer
# holds that output verbatim (an engine change that alters a documented run must update the page).
#   test_docs_examples.sh TIDELINE_RUN SOURCE_DIR
set -euo pipefail
run=$1
src=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash "$src/docs/reference/semantics-examples/run.sh" "$run" >"$out"
python3 - "$out" "$src/docs/reference/semantics.md" <<'PY'
import sys
got = open(sys.argv[1], encoding="utf-8").read().strip()
page = open(sys.argv[2], encoding="utf-8").read()
if got not in page:
    print("docs/reference/semantics.md does not hold the current output of run.sh; regenerate:")
    print("  docs/reference/semantics-examples/run.sh build/ci/app/runner/tideline-run")
    sys.exit(1)
print("ok semantics.md holds run.sh's output")
PY
