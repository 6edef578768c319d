#!/usr/bin/env bash
# Prints the "real runs" section of docs/reference/semantics.md: each example pipeline of this
# folder run under the engines it compares, stdout pasted as the run wrote it.
#   docs/reference/semantics-examples/run.sh build/ci/app/runner/tideline-run
set -euo pipefail
R=$(realpath "$1")
cd "$(dirname "$0")"
run() { echo; echo '```'; echo "\$ tideline-run --semantics $1 $2"; "$R" --semantics "$1" "$2" 2>/dev/null; echo '```'; }
cat <<'EOT'
## Where the engines differ: real runs

The pipelines are in `docs/reference/semantics-examples/` (a console sink takes both the
window's `out` and `late`, so rows and dropped records appear in the order the run produced
them). Below is the stdout of each command as the run wrote it (warnings go to stderr),
printed by `docs/reference/semantics-examples/run.sh build/ci/app/runner/tideline-run`.

### Tumbling windows: one record, three answers (every pair differs)

Input `clicks.jsonl`: `ann` at 1 s, 16 s, 9 s (batch 1), 21 s (batch 2), 9.5 s (batch 3);
10 s windows, delay 5 s (`tumbling.json`).
EOT
for m in flink spark kafka-streams; do run $m tumbling.json; done
cat <<'EOT'

- **Flink vs Spark**: Flink's watermark moves after each record (16 s gives W = 10999), so the
  9 s record right after it is too late for [0, 10 s). Spark's watermark moves only at the end
  of a micro-batch: 9 s is in the same batch as 16 s, still sees W = 0 and is counted
  (`clicks` 2). 9.5 s comes in batch 3, after the batches' watermark reached 16 s: Spark drops
  it silently (here: to `late`, with the reason saying so, and W = 16000 in the wrapper).
- **Flink vs Kafka Streams**: both drop 9 s (stream time 16 s ≥ end 10 s + grace 5 s), but
  Kafka Streams writes every change at once (`"emit": "update"`, one row per record) where
  Flink writes each window once, when the watermark passes it.
- **Spark vs Kafka Streams**: stream time moves with every record, so Kafka Streams drops 9 s
  (`clicks` 1) which Spark counts (`clicks` 2).

### Hopping windows: Kafka Streams never starts a window before 0

Input `early.jsonl`: `ann` at 1 s and 3 s; 10 s windows every 5 s (`hopping.json`).
EOT
for m in flink kafka-streams; do run $m hopping.json; done
cat <<'EOT'

Flink (and Spark, whose output is the same here) put 1 s into [−5 s, 5 s) and [0, 10 s);
Kafka Streams' `TimeWindows.windowsFor` starts at max(0, t − size + advance): only [0, 10 s).

### Sessions: half-open [first, last + gap) vs closed [first, last]

Input `visits.jsonl`: `ann` at 1 s, 6 s (exactly the 5 s gap later), 30 s; 5 s sessions
(`sessions.json`; Kafka Streams with `"emit": "on_close"`).
EOT
for m in flink kafka-streams; do run $m sessions.json; done
cat <<'EOT'

Both merge records exactly a gap apart (Flink and Spark: [1 s, 6 s) touches [6 s, 11 s);
Kafka Streams: 6 s − 1 s ≤ gap) and count the same records, but `window_end` is last + gap in
Flink and Spark and the last record's time in Kafka Streams (a session of one record has
`window_start == window_end`).
EOT
cat <<'EOT'

### Interval join: a late click, three answers

Input `ads.jsonl` (one file with both streams, so the order is exact): impressions of ads `a`
at 1 s, `b` at 3 s, `c` at 26 s; clicks on `a` at 2 s, on `x` at 25 s, on `b` at 12 s (after
the impression at 26 s), all batch 1, and on `c` at 30 s (batch 2). A click counts within 10 s
of its impression (`lower_ms` 0, `upper_ms` 10000), left outer, delay 5 s on both sides
(`join.json`).
EOT
for m in flink spark kafka-streams; do run $m join.json; done
cat <<'EOT'

- **Flink vs Spark**: after the impression at 26 s Flink's join watermark is min(26 − 5, 25 −
  5) s − 1 ms = 19.999 s ≥ 3 s + 10 s, so `b` leaves with its null row and the click on `b` at
  12 s is late. Spark's watermark is still 0 inside batch 1: the click joins `b` (12 s ≤ 3 s +
  10 s), and the batch's end moves W to 20 s only afterwards.
- **Flink vs Kafka Streams**: both write `b` with null — Kafka Streams when the click at 25 s
  moves stream time past 3 s + 10 s + 5 s (grace) — but Kafka Streams drops nothing: the click
  on `b` is kept by its window store (12 s > 25 s − retention 15 s) and finds no impression,
  because the left store already let `b` go (26 s − 15 s ≥ 3 s). Flink sends it to `late`.
- **Spark vs Kafka Streams**: Spark pairs the click with `b`; Kafka Streams writes `b` with
  null and the click never pairs.
EOT
