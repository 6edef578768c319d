#!/usr/bin/env bash
# Fuzzes every libFuzzer harness of tests/fuzz for SECONDS each, one after the other, on one
# core (ASan + UBSan, the `fuzz` preset: Debian's clang and libclang-rt-*-dev).
#
#   scripts/fuzz.sh 3600            # an hour per harness
#   scripts/fuzz.sh 600 csv time    # only these harnesses
#
# New interesting inputs accumulate in build/fuzz/fuzz-corpus/<harness>/ (kept between runs;
# merge the useful ones into tests/fuzz/corpus/<harness>/ with -merge=1). A crash is saved in
# build/fuzz/fuzz-artifacts/; minimise it (fuzz_<harness> -minimize_crash=1 FILE), fix the
# bug, and commit the input under tests/fuzz/regressions/<harness>/ so the normal suite
# replays it. Prints, per harness, how long it ran, exec/s and what it found; exits 1 if
# anything crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [HARNESS...]}
shift || true
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=(event_parser csv pipeline expression time state recording sweep_axis)
fi
if [ -z "${FUZZ_NO_BUILD:-}" ]; then # FUZZ_NO_BUILD=1: use the binaries already built
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz
fi
build=build/fuzz
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
declare -A dict=([event_parser]=json.dict [pipeline]=json.dict [csv]=csv.dict
                 [expression]=expr.dict [time]=time.dict)
failed=0
summary=""
for h in "${harnesses[@]}"; do
    mkdir -p "$build/fuzz-corpus/$h"
    log="$build/fuzz-logs/$h.log"
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
          -artifact_prefix="$build/fuzz-artifacts/$h-")
    if [ -n "${dict[$h]:-}" ]; then
        args+=(-dict="tests/fuzz/dict/${dict[$h]}")
    fi
    echo "== fuzz_$h for ${seconds}s (log: $log)"
    status=0
    start=$(date +%s)
    "$build/tests/fuzz/fuzz_$h" "${args[@]}" "$build/fuzz-corpus/$h" \
        "tests/fuzz/corpus/$h" "tests/fuzz/regressions/$h" >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    new=$(grep -o 'stat::new_units_added: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    secs=$(($(date +%s) - start)) # wall clock: a crash ends the run early
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    if [ "$status" -ne 0 ]; then
        failed=1
        found="CRASH (exit $status): $(ls -t "$build/fuzz-artifacts/$h-"* 2>/dev/null | head -1)"
        grep -m3 -E 'ERROR:|property failed|runtime error' "$log" || true
    else
        found="nothing"
    fi
    summary+=$(printf '%-13s %10s %8s %8s %6s  %-10s  %s' "$h" "$runs" "$secs" "$rate" "$new" "$cov" "$found")$'\n'
done
echo
echo "harness             runs  seconds   exec/s    new  coverage    found"
printf '%s' "$summary"
exit $failed
