#!/usr/bin/env bash
# Before/after in one sitting: runs the same tideline-bench workloads with two builds,
# alternating (before, after, before, after, ...) so that machine load hits both alike, checks
# both produced the same rows and checksum, and prints the median events per CPU second of
# each, their ratio, and peak RSS. A benchmark command, not a test.
#
#   scripts/bench-compare.sh BEFORE_BIN_DIR AFTER_BIN_DIR [--repeat N] [--quick] [--markdown]
#
# Each BIN_DIR holds a tideline-bench (and, for the checkpoint row, tideline-bench-checkpoint).
# Workloads: issue 18's list (nexmark q0 q5 q7 q8, generator-window, generator-dedup,
# generator-join, tideline-bench-checkpoint). --quick runs a tenth of the events.
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 2 ]] || usage
before=$1 after=$2
shift 2
repeat=3 scale=1 markdown=0
while [[ $# -gt 0 ]]; do
    case $1 in
    --repeat) repeat=$2; shift 2 ;;
    --quick) scale=10; shift ;;
    --markdown) markdown=1; shift ;;
    *) usage ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
for d in "$before" "$after"; do
    [[ -x $d/tideline-bench ]] || { echo "no tideline-bench in $d" >&2; exit 2; }
done

workloads=(
    "nexmark-q0|nexmark --query q0 --events $((20000000 / scale)) --pipelines $here/pipelines/nexmark"
    "nexmark-q5|nexmark --query q5 --events $((10000000 / scale)) --pipelines $here/pipelines/nexmark"
    "nexmark-q7|nexmark --query q7 --events $((10000000 / scale)) --pipelines $here/pipelines/nexmark"
    "nexmark-q8|nexmark --query q8 --events $((10000000 / scale)) --pipelines $here/pipelines/nexmark"
    "generator-window|generator-window --events $((10000000 / scale))"
    "generator-dedup|generator-dedup --events $((2000000 / scale)) --ids $((1000000 / scale))"
    "generator-join|generator-join --events $((2000000 / scale))"
)

# One run: prints "events_per_cpu_s peak_rss_mib rows checksum" from the bench's json line.
run_once() {
    local bin=$1 args=$2 line
    # shellcheck disable=SC2086
    line=$("$bin/tideline-bench" $args 2>/dev/null | grep '^json ' | tail -1) || return 1
    python3 - "$line" <<'EOF'
import json, sys
d = json.loads(sys.argv[1][5:])
print(d["events_per_cpu_s"], d["peak_rss_mib"], d.get("rows", ""), d.get("checksum", ""))
EOF
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if ((markdown)); then
    echo "| workload | before events/CPU-s | after events/CPU-s | after/before | peak RSS before → after (MiB) | same rows+checksum |"
    echo "|---|---|---|---|---|---|"
fi
status=0
for w in "${workloads[@]}"; do
    name=${w%%|*} args=${w#*|}
    b=() a=() brss="" arss="" bsum="" asum=""
    for ((i = 0; i < repeat; i++)); do
        read -r e rss rows sum < <(run_once "$before" "$args") || { echo "$name: before failed" >&2; status=1; continue 2; }
        b+=("$e") brss=$rss bsum="$rows $sum"
        read -r e rss rows sum < <(run_once "$after" "$args") || { echo "$name: after failed" >&2; status=1; continue 2; }
        a+=("$e") arss=$rss asum="$rows $sum"
    done
    mb=$(median "${b[@]}") ma=$(median "${a[@]}")
    ratio=$(python3 -c "print(f'{$ma/$mb:.3f}')")
    same=yes
    [[ $bsum == "$asum" ]] || { same="NO ($bsum vs $asum)"; status=1; }
    if ((markdown)); then
        printf '| %s | %s | %s | %s | %s → %s | %s |\n' "$name" "$mb" "$ma" "$ratio" "$brss" "$arss" "$same"
    else
        printf '%-18s before %12s  after %12s  after/before %s  rss %s -> %s MiB  same output: %s\n' \
            "$name" "$mb" "$ma" "$ratio" "$brss" "$arss" "$same"
    fi
done

# The checkpoint benchmark prints its own medians; show both builds' summary lines.
if [[ -x $before/tideline-bench-checkpoint && -x $after/tideline-bench-checkpoint ]]; then
    for ((i = 0; i < repeat; i++)); do
        for side in before after; do
            dir=$before
            [[ $side == after ]] && dir=$after
            echo "tideline-bench-checkpoint ($side, run $((i + 1))):"
            "$dir/tideline-bench-checkpoint" 2>/dev/null | grep -E '^median|^checkpoint 1:' | sed 's/^/  /'
        done
    done
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
