#!/usr/bin/env bash
# What-if sweep speed (issue 19, item 4): a 16-combination sweep (4 watermark delays x 4
# allowed lateness values) over 1M generated events, run in parallel (--sweep-jobs N, default
# 2) against the same sweep one combination at a time (--sweep-jobs 1) and against 16 plain
# tideline-run processes. Usage: scripts/bench-sweep.sh [TIDELINE_RUN] [JOBS]
# Only on a quiet machine: it refuses when the 1-minute load average is 1.5 or more (set
# FORCE=1 to run anyway; the figures are then not worth writing down).
set -euo pipefail
RUN=${1:-build/release/app/runner/tideline-run}
JOBS=${2:-2}
EVENTS=${EVENTS:-1000000} # smaller only to try the script itself
load=$(cut -d' ' -f1 /proc/loadavg)
if [[ -z "${FORCE:-}" ]] && awk -v l="$load" 'BEGIN { exit !(l >= 1.5) }'; then
    echo "load average $load >= 1.5: not measuring (FORCE=1 to run anyway)" >&2
    exit 3
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/pipeline.json" <<'JSON'
{
  "format": "tideline/1",
  "name": "sweep-bench",
  "nodes": [
    { "id": "gen", "kind": "source.generator",
      "params": { "count": EVENTS, "keys": 1000, "rate_per_s": 1000, "seed": 7,
                  "disorder": { "max_delay_ms": 2000, "late_fraction": 0.01, "late_by_ms": 30000 } } },
    { "id": "wm", "kind": "watermark",
      "params": { "time_field": "event_time", "time_format": "epoch_ms", "max_out_of_orderness_ms": 0 } },
    { "id": "w", "kind": "window",
      "params": { "type": "tumbling", "size_ms": 10000, "key": ["user_id"],
                  "aggregates": [ { "op": "count", "as": "n" } ] } },
    { "id": "out", "kind": "sink.discard", "params": {} }
  ],
  "edges": [
    { "from": "gen.out", "to": "wm.in" },
    { "from": "wm.out", "to": "w.in" },
    { "from": "w.out", "to": "out.in" }
  ]
}
JSON
sed -i "s/EVENTS/$EVENTS/" "$dir/pipeline.json"
DELAYS=0,1000,5000,30000
LATENESS=0,10000,30000,60000
now() { date +%s.%N; }
sweep() {
    "$RUN" --sweep wm.max_out_of_orderness_ms=$DELAYS --sweep w.allowed_lateness_ms=$LATENESS \
        --sweep-jobs "$1" "$dir/pipeline.json" 2>/dev/null
}
t0=$(now); sweep 1 > "$dir/one-by-one.txt"; t1=$(now)
sweep "$JOBS" > "$dir/parallel.txt"; t2=$(now)
# The same 16 combinations as plain runs, one process after the other (no sweep code at all).
for d in ${DELAYS//,/ }; do
    for l in ${LATENESS//,/ }; do
        sed -e "s/\"max_out_of_orderness_ms\": 0/\"max_out_of_orderness_ms\": $d/" \
            -e "s/\"size_ms\": 10000,/\"size_ms\": 10000, \"allowed_lateness_ms\": $l,/" \
            "$dir/pipeline.json" > "$dir/p-$d-$l.json"
        "$RUN" "$dir/p-$d-$l.json" 2>/dev/null
    done
done
t3=$(now)
cmp -s "$dir/one-by-one.txt" "$dir/parallel.txt" || echo "warning: the two tables differ" >&2
cat "$dir/parallel.txt"
awk -v n="$EVENTS" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v j="$JOBS" 'BEGIN {
    printf "16 combinations x %d events: one by one (--sweep-jobs 1) %.2f s; --sweep-jobs %d %.2f s (speed-up %.2fx); 16 plain tideline-run processes %.2f s\n",
        n, b - a, j, c - b, (b - a) / (c - b), d - c }'
