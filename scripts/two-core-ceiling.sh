#!/usr/bin/env bash
# What parallelism 2 could reach on this machine at best: the same parallelism-1 benchmark run
# alone, then two copies at once, one pinned to each core. Two independent processes share
# nothing but the hardware, so their combined events/s over one copy's alone is the ceiling
# for any P2/P1 (issue 22's 1.7x assumes two cores that each run as fast with the other busy;
# a VM whose vCPUs share physical cores, or a host that is oversubscribed, gives less).
# A benchmark command, not a test.
#
#   scripts/two-core-ceiling.sh generator-window|file-window ROUNDS TIDELINE_BENCH
set -euo pipefail
[[ $# -eq 3 ]] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
workload=$1 rounds=$2 bench=$3
case $workload in
file-window) args=(--lines 2000000) ;;
generator-window) args=(--events 10000000) ;;
*) echo "workload: generator-window or file-window" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eps() { grep '^json ' "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read()[5:])["events_per_s"])'; }
ratios=()
for ((r = 1; r <= rounds; r++)); do
    core=$((r % 2))
    taskset -c "$core" "$bench" "$workload" "${args[@]}" --parallelism 1 >"$tmp/alone" 2>/dev/null
    # file-window writes its input first (not timed): the two copies' timed parts overlap as
    # long as the writing takes about as long in both, which the pinning to two cores gives.
    taskset -c 0 "$bench" "$workload" "${args[@]}" --parallelism 1 >"$tmp/a" 2>/dev/null &
    taskset -c 1 "$bench" "$workload" "${args[@]}" --parallelism 1 >"$tmp/b" 2>/dev/null &
    wait
    alone=$(eps "$tmp/alone") a=$(eps "$tmp/a") b=$(eps "$tmp/b")
    ratio=$(python3 -c "print(f'{($a + $b) / $alone:.2f}')")
    ratios+=("$ratio")
    python3 -c "print(f'round $r: alone on cpu$core {$alone/1e6:.2f}M events/s; together cpu0 {$a/1e6:.2f}M + cpu1 {$b/1e6:.2f}M = {($a+$b)/$alone:.2f} x alone')"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print "ceiling for P2/P1 (median of rounds): " (v[int((NR+1)/2)]+v[int(NR/2)+1])/2}'
