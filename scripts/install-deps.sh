#!/usr/bin/env bash
# Installs the Debian 12 packages Tideline needs to build, run and test. Idempotent: only
# calls apt when something is missing. Run as root (or with sudo available).
#
#   scripts/install-deps.sh                 everything: designer, tests, fuzzing, packaging
#   scripts/install-deps.sh --runner-only   what `tideline-run` alone needs (./run.sh --headless)
#   scripts/install-deps.sh [--runner-only] --list   print the packages, install nothing
#
# Every package the build reads must be named here or be a Depends of one named here:
# `scripts/check-deps.sh BUILD_DIR` (run by ./test.sh through ctest) fails otherwise.
set -euo pipefail

runner=(
    cmake ninja-build g++ pkg-config
    librdkafka-dev librocksdb-dev nlohmann-json3-dev libsimdjson-dev
    # sink.postgres (libpq) is part of the engine, so of tideline-run too.
    libpq-dev
)
full=(
    "${runner[@]}" git
    # The designer and its tests. qt6-charts-dev needs Qt6OpenGL's CMake config but does not
    # depend on libqt6opengl6-dev, so it is named here.
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
    # GUI tests and ./run.sh without a display; kcat talks to the Kafka mock in tests.
    xvfb xauth kcat procps
    # Packaging test: cpack's DEB generator runs dpkg-shlibdeps (dpkg-dev) and file.
    dpkg-dev file
    # The `fuzz` preset: libFuzzer with ASan and UBSan from Debian's clang.
    clang libclang-rt-14-dev
    # sink.postgres's tests and benchmark: a real PostgreSQL 15 server in a temp folder.
    postgresql
)

packages=("${full[@]}")
list=0
for arg in "$@"; do
    case "$arg" in
    --runner-only) packages=("${runner[@]}") ;;
    --list) list=1 ;;
    *)
        echo "install-deps.sh: unknown option $arg (use --runner-only, --list)" >&2
        exit 2
        ;;
    esac
done
if ((list)); then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "tideline: installing ${missing[*]}"
    SUDO=""
    [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
