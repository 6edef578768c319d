#!/usr/bin/env bash
# Builds Tideline and runs the whole test suite (engine, designer offscreen, checkpoints,
# Kafka against librdkafka's mock cluster), then the fuzzing part: the `fuzz` preset (Debian's
# clang, ASan + UBSan; the engine and the libFuzzer harnesses only, no Qt) and ctest's label
# `fuzz`, about 30 s of libFuzzer per harness (TIDELINE_FUZZ_SECONDS). Prints ctest's summary
# line for each of the two ctest runs; fails if either fails. The fuzz part adds about 10
# minutes on 2 cores (a clean build of build/fuzz with -j2 took 6.5 min, six harnesses x 30 s).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh # also clang and libclang-rt-14-dev (libFuzzer, ASan, UBSan runtimes)
cmake --preset ci >/dev/null
cmake --build --preset ci
status=0
ctest --preset ci 2>&1 | tee build/ci/ctest.log || status=1

cmake --preset fuzz >/dev/null
# Only the fuzzers: each fuzz.<harness> test first runs its seed corpus and regression inputs
# under the sanitizers, so the fuzz preset's replay binaries would add nothing here.
cmake --build build/fuzz --target fuzzers
ctest --preset fuzz -L fuzz 2>&1 | tee build/fuzz/ctest.log || status=1

echo
echo "ci:   $(grep -E 'tests passed|tests failed' build/ci/ctest.log | tail -1)"
echo "fuzz: $(grep -E 'tests passed|tests failed' build/fuzz/ctest.log | tail -1)"
exit $status
