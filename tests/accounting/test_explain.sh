#!/usr/bin/env bash
# tideline-run --explain / --explain-output / --explain-format json on the examples: the two
# clicks of ad-impressions-clicks are found and explained, the example's own outputs are not
# touched (sinks write into a temp folder), usage errors exit 2.
set -u
RUN="$1"
PIPELINES="$2"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$PIPELINES/ad-impressions-clicks" "$work/ad"
rm -rf "$work/ad/out"

out=$("$RUN" --explain 'click_id == "clk-0082"' "$work/ad/pipeline.json" 2>"$work/err") \
    || fail "explain exited $?: $(cat "$work/err")"
echo "$out"
grep -q '^1 input record' <<<"$out" || fail "clk-0082 not found"
grep -q 'clk-0082' <<<"$out" || fail "the record is not printed"
grep -q 'click_time  *passed, with event time 2023-11-14T' <<<"$out" || fail "event time not said"
grep -q 'clicked  *no partner: no left record of its key with event time in \[' <<<"$out" \
    || fail "the join's reason is not said"
grep -q '(1700001163421)\|(17000' <<<"$out" || fail "epoch ms not shown"
[ ! -e "$work/ad/out" ] || fail "--explain wrote the example's own outputs"

out=$("$RUN" --explain 'click_id == "clk-0084"' --explain-format json "$work/ad/pipeline.json" 2>/dev/null) \
    || fail "json explain failed"
echo "$out"
grep -q '"click_id":"clk-0084"' <<<"$out" || fail "json: record missing"
grep -q '"kind":"join_unmatched"' <<<"$out" || fail "json: join_unmatched missing"

out=$("$RUN" --explain-output 'right.click_id == "clk-0001"' "$work/ad/pipeline.json" 2>/dev/null) \
    || fail "explain-output failed"
echo "$out"
grep -q '^1 input record\|^2 input records' <<<"$out" || fail "explain-output: inputs not listed"
grep -q 'made by join `clicked`: a pair' <<<"$out" || fail "explain-output: how it was made"

"$RUN" --explain 'x ==' "$work/ad/pipeline.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a broken expression should exit 2"
"$RUN" --explain 'x == 1' --expect "$work/ad/expected" "$work/ad/pipeline.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--explain with --expect should be a usage error"
echo OK
