#!/usr/bin/env bash
# Issue 22, part 1: parallelism changes speed, never results. Every example in pipelines/ (the
# labs excepted), every Nexmark query in pipelines/nexmark and the stress pipelines beside this
# script run with --parallelism 1, 2 and 4, their sinks written into temp folders by
# --expect DIR --update-expected; the folders must be byte-identical. The runs' notes say which
# nodes ran in parallel; the stress pipelines must have run every keyed node in parallel, so
# this test cannot pass by falling back to one thread. The file pipelines (file-pipelines/, their
# inputs written by write_inputs.sh: several chunks each, with malformed, blank, over-long and
# multi-line CSV lines) and the ordered generator must also have parsed in chunks on the workers
# in the runs with TIDELINE_PARALLEL_SOURCES=1 (2s, 4s), whose outputs must equal those too.
# The chains the fused path covers (source.generator or source.file -> watermark -> one keyed
# stage: the stress-fused-* pipelines, files/fused-*, jsonl-malformed, csv-malformed) must have
# run fused at 2, 3 and 4, and again unfused (2f:
# TIDELINE_FUSED=0, the rounds' path) with the same outputs; a shape it does not cover (two
# stages after the watermark: stress-ordered-generator) must say nothing of fusing.
# Usage: test_parallel.sh TIDELINE_RUN PIPELINES_DIR
set -uo pipefail
run=$1
pipelines=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
parallel_runs=0
# Runs tideline-run with the arguments after WHAT and LOG, its output into LOG; a failure is
# reported with WHAT and the log (and returns 1).
run_logged() {
    local what=$1 log=$2
    shift 2
    if ! timeout 300 "$run" "$@" >"$log" 2>&1; then
        echo "FAIL $what:"
        cat "$log"
        fail=1
        return 1
    fi
}
bash "$here/write_inputs.sh" "$tmp/files"
cp "$here"/file-pipelines/*.json "$tmp/files/"
for p in "$pipelines"/*/pipeline.json "$pipelines"/nexmark/*.json "$here"/pipelines/*.json \
    "$tmp"/files/*.json; do
    case $p in */labs/*) continue ;; esac
    name=$(basename "$(dirname "$p")")-$(basename "$p" .json)
    # 2s, 4s: with the sources parsing in chunks on the workers (TIDELINE_PARALLEL_SOURCES);
    # 2f: without the fused path (TIDELINE_FUSED=0).
    for n in 1 2 3 4 2s 4s 2f; do
        out=$tmp/$name/n$n
        mkdir -p "$out"
        chunks=0
        fused=1
        case $n in *s) chunks=1 ;; *f) fused=0 ;; esac
        if ! TIDELINE_PARALLEL_SOURCES=$chunks TIDELINE_FUSED=$fused timeout 300 "$run" --parallelism "${n%[sf]}" \
            --expect "$out" --update-expected "$p" >"$tmp/$name/log$n" 2>&1; then
            echo "FAIL $name: the run at parallelism $n failed:"
            cat "$tmp/$name/log$n"
            fail=1
        fi
    done
    for n in 2 3 4 2s 4s 2f; do
        if ! diff -r "$tmp/$name/n1" "$tmp/$name/n$n" >"$tmp/$name/diff$n"; then
            echo "FAIL $name: outputs at parallelism $n differ from parallelism 1:"
            head -20 "$tmp/$name/diff$n"
            fail=1
        fi
    done
    files=$(find "$tmp/$name/n1" -type f | wc -l)
    note=$(grep -h "^.*parallelism 2: " "$tmp/$name/log2" | tr '\n' ' ')
    grep -q "instances each" "$tmp/$name/log2" && parallel_runs=$((parallel_runs + 1))
    note="$note$(grep -h "parses in chunks" "$tmp/$name/log2s" | sed 's/^tideline-run: parallelism 2: / with TIDELINE_PARALLEL_SOURCES=1: /' | tr '\n' ' ')"
    echo "ok $name ($files output files identical at 1, 2, 3, 4, 2 and 4 with sources in chunks, 2 unfused) ${note}"
    case $p in
    */stress-fused-* | */files/fused-* | */files/jsonl-malformed.json | */files/csv-malformed.json)
        for n in 2 3 4; do
            if ! grep -q "fused: records made, stamped and routed on the workers" "$tmp/$name/log$n"; then
                echo "FAIL $name: expected the fused path at parallelism $n"
                cat "$tmp/$name/log$n"
                fail=1
            fi
        done
        if grep -q "fused:" "$tmp/$name/log2f"; then
            echo "FAIL $name: TIDELINE_FUSED=0 still fused"
            fail=1
        fi
        ;;
    */stress-ordered-generator.json | */stress.json | */stress-shared-sink.json)
        if grep -q "fused:" "$tmp/$name/log2"; then
            echo "FAIL $name: a shape outside the fused path was fused"
            fail=1
        fi
        ;;
    esac
    case $p in
    "$tmp"/files/* | */stress-ordered-generator.json)
        if ! grep -q "parses in chunks on the 4 workers" "$tmp/$name/log4s"; then
            echo "FAIL $name: expected its sources to parse in chunks on the workers"
            fail=1
        fi
        ;;
    esac
    case $p in
    "$here"/pipelines/* | "$tmp"/files/*)
        if ! grep -q "instances each" "$tmp/$name/log4"; then
            echo "FAIL $name: expected its keyed nodes to run in parallel"
            fail=1
        fi
        if grep -q "runs single-threaded" "$tmp/$name/log4"; then
            echo "FAIL $name: a keyed node fell back to one thread"
            fail=1
        fi
        ;;
    esac
done
# The file pipelines' inputs did hold what they are meant to test: errors with their line numbers.
errs=$tmp/files-jsonl-malformed/n1/errors.jsonl
for want in '"reason":"record_too_large"' '"raw_base64"' 'events.jsonl:997"' 'events.jsonl:45000"'; do
    grep -q "$want" "$errs" || { echo "FAIL jsonl-malformed: no $want in errors.jsonl"; fail=1; }
done
rows=$tmp/files-csv-multiline/n1/rows.jsonl
grep -q 'first line\\nsecond, line\\nthird' "$rows" \
    || { echo "FAIL csv-multiline: the multi-line record is not in rows.jsonl"; fail=1; }
grep -q 'unclosed quote' "$tmp/files-csv-multiline/n1/errors.jsonl" \
    || { echo "FAIL csv-multiline: no unclosed-quote error"; fail=1; }
grep -q 'events.csv:1010"' "$tmp/files-csv-malformed/n1/dead_letter.jsonl" \
    || { echo "FAIL csv-malformed: no error for line 1010"; fail=1; }
echo "ok file pipelines' errors name their lines"
# Replays (issue 19): a recording of each file pipeline replayed at parallelism 1, 2 and 4, and
# at 2 paced (--replay-speed 1: lines only as they come due on the replay's clock), gives the
# recorded run's outputs; a replayed file chain the fused path covers runs fused at 2 and 4
# (its recorded lines taken on the loop thread, parsed on the workers). "m": the recording
# mapped (TIDELINE_REPLAY_MAP=1: whole blocks handed to the workers unread) instead of read.
for p in "$tmp"/files/*.json; do
    name=replay-$(basename "$p" .json)
    mkdir -p "$tmp/$name/recorded"
    run_logged "$name: recording failed" "$tmp/$name/logrec" --record "$tmp/$name/rec" \
        --expect "$tmp/$name/recorded" --update-expected "$p" || continue
    for n in 1 2 4 2p 1m 2m; do
        mkdir -p "$tmp/$name/n$n"
        speed=max
        case $n in *p) speed=1 ;; esac
        case $n in *m) export TIDELINE_REPLAY_MAP=1 ;; esac
        if ! run_logged "$name: the replay at parallelism $n failed" "$tmp/$name/log$n" \
            --replay "$tmp/$name/rec" --replay-speed "$speed" --parallelism "${n%[pm]}" \
            --expect "$tmp/$name/n$n" --update-expected "$p"; then
            unset TIDELINE_REPLAY_MAP
        elif ! diff -r "$tmp/$name/recorded" "$tmp/$name/n$n" >"$tmp/$name/diff$n"; then
            echo "FAIL $name: the replay at parallelism $n differs from the recorded run:"
            head -20 "$tmp/$name/diff$n"
            fail=1
        fi
        unset TIDELINE_REPLAY_MAP
    done
    case $p in
    */fused-jsonl-sliding.json | */jsonl-malformed.json) # (a CSV replay stays on the loop thread)
        for n in 2 4 2p 2m; do
            if ! grep -q "fused: records made.*the replay's recorded lines" "$tmp/$name/log$n"; then
                echo "FAIL $name: expected the replay to run fused at parallelism $n"
                cat "$tmp/$name/log$n"
                fail=1
            fi
        done
        ;;
    esac
    echo "ok $name: replayed at 1, 2, 4, 2 paced, and mapped at 1 and 2 with the recorded run's outputs"
done
# A damaged recording fails a fused replay as it fails one on the loop thread: the same error
# (file, line, block, cause), exit 1, and the same outputs up to it. At parallelism 2 the loop
# thread reads a block's header and a worker checks its records (their CRC, their count): a
# block damaged in each of those places, in the middle of the recording. "2m": at parallelism 2
# with the recording mapped (TIDELINE_REPLAY_MAP=1), where a worker checks a whole block.
for how in payload header count; do
    dmg=$tmp/replay-jsonl-malformed/damaged-$how
    cp -r "$tmp/replay-jsonl-malformed/rec" "$dmg"
    python3 "$here/damage_recording.py" "$dmg/records.tsv" "$how" >"$dmg-block" || fail=1
    for n in 1 2 2m; do
        # (--expect writes nothing for a failed run: the sinks write to $dmg-n$n themselves, what
        # they flushed before the failure; a parallel stage delivers what it was handed first.)
        mkdir -p "$dmg-n$n"
        sed "s|\"out/|\"$dmg-n$n/|" "$tmp/files/jsonl-malformed.json" >"$tmp/files/damaged-$n.json"
        map=0
        [[ $n == *m ]] && map=1
        TIDELINE_REPLAY_MAP=$map timeout 300 "$run" --replay "$dmg" --parallelism "${n%m}" \
            "$tmp/files/damaged-$n.json" >"$dmg-log$n" 2>&1
        echo $? >"$dmg-rc$n"
        rm -f "$tmp/files/damaged-$n.json"
        grep -- "--replay: .*records.tsv line" "$dmg-log$n" >"$dmg-err$n"
    done
    if [[ $(cat "$dmg-rc1") != 1 || $(cat "$dmg-rc2") != 1 || ! -s "$dmg-err1" ]] \
        || ! grep -q "$(cat "$dmg-block")" "$dmg-err1" || [[ ! -s $dmg-n1/results.jsonl ]] \
        || [[ $(cat "$dmg-rc2m") != 1 ]] || ! diff "$dmg-err1" "$dmg-err2" >/dev/null \
        || ! diff "$dmg-err1" "$dmg-err2m" >/dev/null || ! diff -r "$dmg-n1" "$dmg-n2" >/dev/null \
        || ! diff -r "$dmg-n1" "$dmg-n2m" >/dev/null; then
        echo "FAIL damaged recording ($how): the replay at parallelism 2 did not fail as at 1:"
        cat "$dmg-log1" "$dmg-log2" "$dmg-log2m"
        diff -r "$dmg-n1" "$dmg-n2" | head -5
        diff -r "$dmg-n1" "$dmg-n2m" | head -5
        fail=1
    else
        echo "ok a damaged recording ($how) fails the fused replay as the sequential one: $(cat "$dmg-err1")"
    fi
done
# Random files (write_random_inputs.sh: seeded, lines of every kind at random places, so chunk
# boundaries fall everywhere): read with the source in chunks at 2 and 4 workers, its records
# and errors must be those read line by line.
bash "$here/write_random_inputs.sh" "$tmp/random" 12
random_ok=0
for f in "$tmp"/random/random-*; do
    base=$(basename "$f")
    format=jsonl
    case $f in *.csv) format=csv ;; esac
    cat >"$tmp/random/$base.json" <<JSON
{ "format": "tideline/1", "name": "random-input",
  "nodes": [ { "id": "src", "kind": "source.file", "params": { "path": "$base", "format": "$format" } },
             { "id": "rows", "kind": "sink.file", "params": { "path": "out/rows.jsonl" } },
             { "id": "errors", "kind": "sink.file", "params": { "path": "out/errors.jsonl" } } ],
  "edges": [ { "from": "src.out", "to": "rows.in" }, { "from": "src.errors", "to": "errors.in" } ] }
JSON
    for n in 1 2 4; do
        mkdir -p "$tmp/random/$base-n$n"
        if ! TIDELINE_PARALLEL_SOURCES=1 timeout 120 "$run" --parallelism "$n" --expect "$tmp/random/$base-n$n" \
            --update-expected "$tmp/random/$base.json" >"$tmp/random/$base-log$n" 2>&1; then
            echo "FAIL random $base at parallelism $n:"
            cat "$tmp/random/$base-log$n"
            fail=1
        fi
    done
    grep -q "parses in chunks" "$tmp/random/$base-log2" || { echo "FAIL random $base: not read in chunks"; fail=1; }
    if diff -r "$tmp/random/$base-n1" "$tmp/random/$base-n2" >/dev/null \
        && diff -r "$tmp/random/$base-n1" "$tmp/random/$base-n4" >/dev/null; then
        random_ok=$((random_ok + 1))
    else
        echo "FAIL random $base: records or errors differ when read in chunks:"
        diff -r "$tmp/random/$base-n1" "$tmp/random/$base-n2" | head -10
        fail=1
    fi
done
echo "ok $random_ok random files read in chunks as line by line"
# With checkpoints a run is parallel too (a stage checkpoints its instances as one keyed state:
# tests/parallel/test_parallel_checkpoint.cpp restores them at other parallelisms); its outputs
# are those of parallelism 1.
ck=$tmp/checkpointed.json
sed 's|"format": "tideline/1",|"format": "tideline/1", "settings": {"checkpoint": {"interval_ms": 20, "dir": "state"}},|' \
    "$here/pipelines/stress-shared-sink.json" >"$ck"
mkdir -p "$tmp/ck1" "$tmp/ck2"
for n in 1 2; do
    if ! timeout 300 "$run" --parallelism "$n" --expect "$tmp/ck$n" --update-expected "$ck" \
        >"$tmp/cklog$n" 2>&1; then
        echo "FAIL checkpointed run at parallelism $n:"
        cat "$tmp/cklog$n"
        fail=1
    fi
done
if ! grep -q "parallelism 2: .*run as 2 instances each" "$tmp/cklog2" \
    || grep -q "running with parallelism 1" "$tmp/cklog2"; then
    echo "FAIL checkpointed run: expected its keyed nodes to run in parallel"
    cat "$tmp/cklog2"
    fail=1
fi
if ! diff -r "$tmp/ck1" "$tmp/ck2" >/dev/null || ! diff -r "$tmp/ck1" "$tmp/pipelines-stress-shared-sink/n1" >/dev/null; then
    echo "FAIL checkpointed run: outputs differ"
    fail=1
fi
echo "ok checkpointed run in parallel with the same outputs"
# The fused path checkpoints too (the source's position follows the chunks handed over):
# checkpointed every 20 ms, these chains still run fused at 2 and give parallelism 1's outputs
# (engine.parallel.checkpoint restores such a run at other parallelisms).
for p in "$tmp/files/fused-jsonl-sliding.json" "$tmp/files/fused-multiline.json" \
    "$here/pipelines/stress-fused-window.json"; do
    name=$(basename "$(dirname "$p")")-$(basename "$p" .json)
    for n in 1 2; do
        ckp=$tmp/files/checkpointed-$name-$n.json # (beside the inputs; its state in $tmp)
        sed "s|\"format\": \"tideline/1\",|\"format\": \"tideline/1\", \"settings\": {\"checkpoint\": {\"interval_ms\": 20, \"dir\": \"state-$name-$n\"}},|" \
            "$p" >"$ckp"
        mkdir -p "$tmp/ckf-$name-$n"
        run_logged "$name checkpointed at parallelism $n" "$tmp/ckflog-$name-$n" \
            --parallelism "$n" --expect "$tmp/ckf-$name-$n" --update-expected "$ckp"
        rm -f "$ckp"
    done
    if ! grep -q "fused: records made" "$tmp/ckflog-$name-2" || ! grep -q "checkpoint" "$tmp/ckflog-$name-2"; then
        echo "FAIL $name checkpointed: expected the fused path with checkpoints at parallelism 2"
        cat "$tmp/ckflog-$name-2"
        fail=1
    fi
    if ! diff -r "$tmp/ckf-$name-1" "$tmp/ckf-$name-2" >/dev/null \
        || ! diff -r "$tmp/ckf-$name-1" "$tmp/$name/n1" >/dev/null; then
        echo "FAIL $name checkpointed: outputs differ"
        fail=1
    fi
    echo "ok $name checkpointed and fused at parallelism 2 with the same outputs"
done
# Under another engine's semantics (Spark's global micro-batch watermark, Kafka Streams' stream
# time) a run falls back to parallelism 1 and says so; outputs equal those of parallelism 1
# (on a small example: the modes' operators are written for clarity, not for 20,000 keys).
for sem in spark kafka-streams; do
    mkdir -p "$tmp/sem-$sem-1" "$tmp/sem-$sem-2"
    for n in 1 2; do
        if ! timeout 300 "$run" --semantics "$sem" --parallelism "$n" --expect "$tmp/sem-$sem-$n" \
            --update-expected "$pipelines/clicks-per-user/pipeline.json" >"$tmp/semlog-$sem-$n" 2>&1; then
            echo "FAIL --semantics $sem at parallelism $n:"
            cat "$tmp/semlog-$sem-$n"
            fail=1
        fi
    done
    if ! grep -q "parallelism 2: running with parallelism 1: settings.semantics \"$sem\"" \
        "$tmp/semlog-$sem-2"; then
        echo "FAIL --semantics $sem: expected the note that it runs with parallelism 1"
        cat "$tmp/semlog-$sem-2"
        fail=1
    fi
    if ! diff -r "$tmp/sem-$sem-1" "$tmp/sem-$sem-2" >/dev/null; then
        echo "FAIL --semantics $sem: outputs at parallelism 2 differ from parallelism 1"
        fail=1
    fi
done
echo "ok spark and kafka-streams semantics fall back to parallelism 1 with the same outputs"
# Bad values are refused with the fix in the message: the flag (exit 2), the setting (invalid).
for bad in 0 129 x; do
    if "$run" --parallelism "$bad" "$here/pipelines/stress.json" >"$tmp/bad.log" 2>&1 \
        || ! grep -q "parallelism must be a number from 1 to 128 or auto, got \`$bad\`" "$tmp/bad.log"; then
        echo "FAIL --parallelism $bad: expected exit 2 with the range:"
        cat "$tmp/bad.log"
        fail=1
    fi
done
sed 's|"format": "tideline/1",|"format": "tideline/1", "settings": {"parallelism": 0},|' \
    "$here/pipelines/stress.json" >"$tmp/bad.json"
"$run" --validate "$tmp/bad.json" >"$tmp/bad.log" 2>&1
if [ $? -ne 2 ] || ! grep -q 'settings.parallelism: must be an integer from 1 to 128 or "auto"' "$tmp/bad.log"; then
    echo "FAIL settings.parallelism 0: expected a validation error:"
    cat "$tmp/bad.log"
    fail=1
fi
echo "$parallel_runs pipelines ran keyed nodes in parallel"
exit $fail
