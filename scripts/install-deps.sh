#!/usr/bin/env bash
# Installs the Debian 12 packages Tideline needs to build, run and test. Idempotent: only
# calls apt when something is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config git
    qt6-base-dev qt6-charts-dev libgl-dev
    librdkafka-dev librocksdb-dev nlohmann-json3-dev libsimdjson-dev
    xvfb xauth kcat procps
)
if [[ "${1:-}" == "--runner-only" ]]; then
    packages=(cmake ninja-build g++ pkg-config librdkafka-dev librocksdb-dev nlohmann-json3-dev libsimdjson-dev)
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
