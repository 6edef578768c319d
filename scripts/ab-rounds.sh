#!/usr/bin/env bash
# Two tideline-bench builds on one workload, alternating: each round runs both (the order
# flips every round) with --repeat 6 and keeps the median of runs 2-6 (the first run of a
# process carries its warm-up), then prints B/A per round and the median of the rounds. A
# benchmark command, not a test; docs/benchmarks.md "Session 17" quotes its B/A figures.
#
#   scripts/ab-rounds.sh ROUNDS BENCH_A BENCH_B WORKLOAD [OPTIONS...]
#
# e.g. scripts/ab-rounds.sh 6 before/tideline-bench after/tideline-bench file-window \
#          --lines 2000000 --parallelism 2
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
rounds=$1 a=$2 b=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# "events_per_s cpu_s" medians of one build's runs 2-6 (read after the run, not piped during it).
one() {
    "$1" "${@:2}" --repeat 6 >"$out" 2>/dev/null
    grep '^json ' "$out" | python3 -c '
import json, sys
runs = [json.loads(l[5:]) for l in sys.stdin][1:]
eps = sorted(r["events_per_s"] for r in runs)
cpu = sorted(r["cpu_s"] for r in runs)
print(eps[len(eps) // 2], cpu[len(cpu) // 2])'
}
ratios=()
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then x=$(one "$a" "$@"); y=$(one "$b" "$@"); else y=$(one "$b" "$@"); x=$(one "$a" "$@"); fi
    ratio=$(echo "$x $y" | awk '{printf "%.3f", $3 / $1}')
    echo "$x $y" | awk -v r="$ratio" '{printf "A %.2fM cpu %.3f  B %.2fM cpu %.3f  B/A %s\n", $1/1e6, $2, $3/1e6, $4, r}'
    ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print "median B/A", (v[int((NR+1)/2)]+v[int(NR/2)+1])/2}'
