#!/usr/bin/env bash
# Runs scripts/check-deps.sh against copies of scripts/install-deps.sh that each forget one
# package this build really reads, and expects it to fail naming that package and a file.
#   test_check_deps.sh SOURCE_DIR BUILD_DIR GUI_BUILT(0|1)
set -euo pipefail
src="$1" build="$2" gui="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# librocksdb-dev: read through its CMake config and its headers. libqt6opengl6-dev: only
# through Qt6Charts' CMake config (the package issue 14 found missing), in GUI builds.
forget=(librocksdb-dev)
((gui)) && forget+=(libqt6opengl6-dev)

for pkg in "${forget[@]}"; do
    copy="$tmp/install-deps-without-$pkg.sh"
    # Drop the package as a whole word wherever the script lists it.
    sed -E "s/(^|[[:space:]])$pkg([[:space:]]|\$)/\\1\\2/g" "$src/scripts/install-deps.sh" >"$copy"
    if bash "$copy" --list | grep -qx -- "$pkg"; then
        echo "FAIL: could not remove $pkg from the copy of install-deps.sh"
        exit 1
    fi
    if out="$(bash "$src/scripts/check-deps.sh" --install-script "$copy" "$build" 2>&1)"; then
        echo "FAIL: check-deps passed although the install script no longer names $pkg:"
        echo "$out"
        exit 1
    fi
    if ! grep -q "package \`$pkg\` is read by the build but not installed by .*: /" <<<"$out"; then
        echo "FAIL: check-deps failed without naming $pkg and a file that needed it:"
        echo "$out"
        exit 1
    fi
    echo "ok: without $pkg: $(grep "package \`$pkg\`" <<<"$out")"
done

# The real script passes.
bash "$src/scripts/check-deps.sh" "$build"
