#!/usr/bin/env bash
# Builds Tideline and runs the whole test suite (engine, designer offscreen, checkpoints,
# Kafka against librdkafka's mock cluster). Prints ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci
