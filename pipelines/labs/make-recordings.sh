#!/usr/bin/env bash
# Writes each lab's recording/ from its input file with tideline-lab-recording (tools/):
#   pipelines/labs/make-recordings.sh [BUILD_DIR]     (default build/ci)
# The input files stay the source of truth; tests/labs checks the recordings are in sync.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/ci}
tool=$build/tools/lab-recording/tideline-lab-recording
for lab in "$here"/*/; do
    [[ -f $lab/task.md ]] || continue
    rm -rf "$lab/recording"
    "$tool" "${lab%/}/pipeline.json" "${lab%/}/recording"
done
