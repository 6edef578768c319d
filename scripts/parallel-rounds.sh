#!/usr/bin/env bash
# P = 2 against P = 1 of two builds in alternating rounds (issue 22's 1.7x): each round runs
# `tideline-bench WORKLOAD --parallelism 1` and `--parallelism 2` back to back for each build,
# the builds' order (and the P order) alternating from round to round, so that the shared
# machine's drifting speed hits a round's pair alike. Prints each pair's events/s, their ratio
# and CPU seconds, then the medians per build. A benchmark command, not a test.
#
#   scripts/parallel-rounds.sh generator-window|file-window ROUNDS BENCH_A [BENCH_B]
#
# BENCH_A and BENCH_B are tideline-bench binaries (e.g. before and after a change).
# PIN=1: the P = 1 run is made once on each core (taskset -c 0, then -c 1), and P = 2 is
# compared with both: on a VM whose vCPUs differ in speed an unpinned P = 1 run lands on
# either, and P2/P1 says more about where the scheduler put it than about the engine.
# "of-both" is P2 / (P1@cpu0 + P1@cpu1): the share of what the two cores make single-threaded
# that P = 2 reaches, the same reading whether the vCPUs run at one speed or not (1.7x P = 1 on
# two equal cores is 0.85).
# PIN=1 TOGETHER=1: each round also runs two P = 1 copies at once, one pinned to each core
# (scripts/two-core-ceiling.sh's pair), and prints P2 / (their events/s added): the share of
# what two independent processes get out of the two vCPUs at that moment that P = 2 reaches
# (1.0: the engine loses nothing to running as one process; the rest is the machine's).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
workload=$1 rounds=$2
shift 2
benches=("$@")
case $workload in
file-window) args=(--lines 2000000) ;;
generator-window) args=(--events 10000000) ;;
*) echo "workload: generator-window or file-window" >&2; exit 2 ;;
esac

# "events_per_s cpu_s checksum" of one run (an optional taskset core list first). The output
# goes to a file and is read after the run: a pipe into python3 would start the interpreter
# while the run goes, a third busy thread on two cores (P = 2 measured 9M events/s instead of
# 14M that way).
run() {
    local pin=()
    if [[ $# -eq 3 ]]; then pin=(taskset -c "$3"); fi
    "${pin[@]}" "$1" "$workload" "${args[@]}" --parallelism "$2" >"$json" 2>/dev/null
    fields "$json"
}
fields() {
    grep '^json ' "$1" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read()[5:])
print(j["events_per_s"], j["cpu_s"], j["checksum"])'
}
# Two P = 1 copies at once, pinned to cpu0 and cpu1: "events_per_s_sum".
together() {
    taskset -c 0 "$1" "$workload" "${args[@]}" --parallelism 1 >"$json.0" 2>/dev/null &
    taskset -c 1 "$1" "$workload" "${args[@]}" --parallelism 1 >"$json.1" 2>/dev/null &
    wait
    echo "$(fields "$json.0") $(fields "$json.1")" | awk '{print $1 + $4}'
}

out=$(mktemp)
json=$(mktemp)
trap 'rm -f "$out" "$json" "$json.0" "$json.1"' EXIT
for ((r = 1; r <= rounds; r++)); do
    order=("${benches[@]}")
    ((r % 2 == 0)) && order=($(printf '%s\n' "${benches[@]}" | tac))
    for b in "${order[@]}"; do
        if [[ ${PIN:-0} == 1 ]]; then
            if ((r % 2)); then a=$(run "$b" 1 0); c=$(run "$b" 1 1); p2=$(run "$b" 2)
            else p2=$(run "$b" 2); c=$(run "$b" 1 1); a=$(run "$b" 1 0); fi
            t=0
            if [[ ${TOGETHER:-0} == 1 ]]; then t=$(together "$b"); fi
            echo "$b $a $c $p2 $t" | awk '{printf "%s P1@cpu0 %.2fM P1@cpu1 %.2fM P2 %.2fM ratio %.2f %.2f of-both %.3f cpu %.3f/%.3f/%.3f%s%s\n",
                $1, $2/1e6, $5/1e6, $8/1e6, $8/$2, $8/$5, $8/($2+$5), $3, $6, $9,
                ($11 > 0 ? sprintf(" together %.2fM of-together %.3f", $11/1e6, $8/$11) : ""),
                ($4 == $7 && $4 == $10 ? "" : "  CHECKSUMS DIFFER")}' | tee -a "$out"
            continue
        fi
        if ((r % 2)); then p1=$(run "$b" 1); p2=$(run "$b" 2); else p2=$(run "$b" 2); p1=$(run "$b" 1); fi
        echo "$b $p1 $p2" | awk '{printf "%s P1 %.2fM P2 %.2fM ratio %.2f cpu %.3f/%.3f%s\n",
            $1, $2/1e6, $5/1e6, $5/$2, $3, $6, ($4 == $7 ? "" : "  CHECKSUMS DIFFER")}' | tee -a "$out"
    done
done
median() { sort -n | awk '{v[NR]=$1} END {print (v[int((NR+1)/2)]+v[int(NR/2)+1])/2}'; }
for b in "${benches[@]}"; do
    if [[ ${PIN:-0} == 1 ]]; then
        echo "$b: P2 events/s median $(grep "^$b " "$out" | awk '{print $7}' | median)M," \
            "P2/P1@cpu0 median $(grep "^$b " "$out" | awk '{print $9}' | median)," \
            "P2/P1@cpu1 median $(grep "^$b " "$out" | awk '{print $10}' | median)," \
            "P2/(P1@cpu0 + P1@cpu1) median $(grep "^$b " "$out" | awk '{print $12}' | median)"
        if [[ ${TOGETHER:-0} == 1 ]]; then
            echo "$b: P2/(two P = 1 copies at once) median" \
                "$(grep "^$b " "$out" | awk '{print $18}' | median)"
        fi
        continue
    fi
    echo "$b: P2/P1 median $(grep "^$b " "$out" | awk '{print $7}' | median)," \
        "P2 CPU s median $(grep "^$b " "$out" | awk '{split($9, a, "/"); print a[2]}' | median)"
done
