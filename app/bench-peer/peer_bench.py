#!/usr/bin/env python3
"""Tideline against DuckDB on the same aggregation of the same file (issue 22, item 3).

    app/bench-peer/peer_bench.py --tideline-run PATH [--baseline PATH] [--workload NAME ...]
                                 [--runs N] [--events N] [--duckdb-threads 1,2] [--parallelism P]

A benchmark command, not a test. For each workload it writes one JSONL file with Tideline's
generator (not timed), then alternates runs: Tideline (source.file -> watermark -> window ->
sink.file, CSV) and DuckDB (its npm package, pinned in package.json: read_json + GROUP BY + COPY
to CSV) with each thread count asked for. Every run's result is checked equal to the first
Tideline run's (rows compared as sets of user_id, window_start, n, total; a --baseline
tideline-run's result file must be byte-identical). It prints, per workload, the median seconds
of each engine and the ratio Tideline / DuckDB (below 1: Tideline is faster), both of medians and
as the median of each round's ratio, plus peak RSS of each process. Workloads: issue 22's table
(tumbling-10k, sliding-10k, tumbling-1m), then tumbling-100k and tumbling-5m.

Times: Tideline's is the run loop as tideline-run reports it ("done: N records read in X ms":
reading, parsing, windowing, writing; not process start or validation); DuckDB's is the query as
duckdb_query.mjs measures it (read_json + aggregation + COPY; not Node's start). Both read the
file from the page cache (a first untimed run of each warms it). DuckDB runs last in each
round and the Tideline builds' order is reversed every other round, so that each build runs
right after DuckDB in half of the rounds.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (keys, window params, duckdb workload)
WORKLOADS = {
    "tumbling-10k": (10_000, {"type": "tumbling", "size_ms": 1000}, "tumbling"),
    "sliding-10k": (10_000, {"type": "sliding", "size_ms": 5000, "slide_ms": 1000}, "sliding"),
    "tumbling-100k": (100_000, {"type": "tumbling", "size_ms": 1000}, "tumbling"),
    "tumbling-1m": (1_000_000, {"type": "tumbling", "size_ms": 1000}, "tumbling"),
    "tumbling-5m": (5_000_000, {"type": "tumbling", "size_ms": 1000}, "tumbling"),
}
# Issue 22's table first, then the other key counts.
DEFAULT = ["tumbling-10k", "sliding-10k", "tumbling-1m", "tumbling-100k", "tumbling-5m"]


# Children are started by a small launcher process, not by this script: a child forked from a
# process holding a large result set reports that process's size as its own peak RSS (Linux
# carries the parent's resident size into a forked child's ru_maxrss through exec).
LAUNCHER = r"""
import json, os, subprocess, sys, tempfile
for line in sys.stdin:
    req = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(req["argv"], cwd=req["cwd"], stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        reply = {"rc": os.waitstatus_to_exitcode(status), "out": out.read().decode(),
                 "err": err.read().decode(), "maxrss_kib": usage.ru_maxrss}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""
_launcher = None


def run_child(argv, cwd=None):
    """Runs argv, returns (stdout, stderr, max RSS MiB); raises on a non-zero exit."""
    global _launcher
    if _launcher is None:
        _launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
    _launcher.stdin.write(json.dumps({"argv": argv, "cwd": cwd}) + "\n")
    _launcher.stdin.flush()
    reply = json.loads(_launcher.stdout.readline())
    if reply["rc"] != 0:
        raise RuntimeError(f"{argv[0]} exited {reply['rc']}:\n{reply['err'][-2000:]}")
    return reply["out"], reply["err"], reply["maxrss_kib"] / 1024.0


def write_pipeline(path, nodes, edges, settings=None):
    spec = {"format": "tideline/1", "name": os.path.basename(os.path.dirname(path)),
            "nodes": nodes, "edges": edges}
    if settings:
        spec["settings"] = settings
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)


def make_input(run, folder, events, keys):
    """The generator's events, in event-time order, as JSONL (100,000 events per second of
    event time, as Nexmark and tideline-bench use)."""
    os.makedirs(folder, exist_ok=True)
    write_pipeline(os.path.join(folder, "pipeline.json"), [
        {"id": "gen", "kind": "source.generator",
         "params": {"count": events, "keys": keys, "rate_per_s": 100000, "seed": 22}},
        {"id": "file", "kind": "sink.file", "params": {"path": "events.jsonl"}},
    ], [{"from": "gen.out", "to": "file.in"}])
    run_child([run, os.path.join(folder, "pipeline.json")])
    return os.path.join(folder, "events.jsonl")


def tideline_pipeline(folder, input_path, window, parallelism):
    os.makedirs(folder, exist_ok=True)
    params = dict(window)
    params.update({"key": ["user_id"], "aggregates": [
        {"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]})
    settings = {"parallelism": parallelism} if parallelism and parallelism != 1 else None
    path = os.path.join(folder, "pipeline.json")
    write_pipeline(path, [
        {"id": "events", "kind": "source.file", "params": {"path": input_path}},
        {"id": "time", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 0}},
        {"id": "agg", "kind": "window", "params": params},
        {"id": "result", "kind": "sink.file", "params": {"path": "result.csv", "format": "csv"}},
    ], [{"from": "events.out", "to": "time.in"}, {"from": "time.out", "to": "agg.in"},
        {"from": "agg.out", "to": "result.in"}], settings)
    return path


def run_tideline(run, pipeline):
    folder = os.path.dirname(pipeline)
    result = os.path.join(folder, "result.csv")
    if os.path.exists(result):
        os.remove(result)
    _, err, rss = run_child([run, pipeline])
    m = re.search(r"done: (\d+) records read in (\d+) ms", err)
    if not m:
        raise RuntimeError("tideline-run did not report its run time:\n" + err[-1000:])
    return int(m.group(2)) / 1000.0, rss, result


def run_duckdb(workload, input_path, output, threads):
    out, _, rss = run_child(["node", os.path.join(HERE, "duckdb_query.mjs"), workload,
                             input_path, output, str(threads)], cwd=HERE)
    return json.loads(out.strip().splitlines()[-1])["wall_s"], rss, output


def rows_of(path):
    """The result as a set of (user_id, window_start, n, total), whatever the column order."""
    with open(path, newline="") as f:
        return {(r["user_id"], int(r["window_start"]), int(r["n"]), int(float(r["total"])))
                for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tideline-run", required=True)
    ap.add_argument("--baseline", help="another tideline-run (e.g. before a change) run in the "
                    "same rounds; its result file must be byte-identical to --tideline-run's")
    ap.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duckdb-threads", default="1,2")
    ap.add_argument("--parallelism", type=int, default=1, help="Tideline's settings.parallelism")
    ap.add_argument("--keep", help="keep the work folder here")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@duckdb", "node-api")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    run = os.path.abspath(args.tideline_run)
    engines = [("tideline", run)]
    if args.baseline:
        engines.append(("baseline", os.path.abspath(args.baseline)))
    threads = [int(t) for t in args.duckdb_threads.split(",")]
    work = args.keep or tempfile.mkdtemp(prefix="tideline-peer-")
    os.makedirs(work, exist_ok=True)
    try:
        print(f"events {args.events}, runs {args.runs} each, alternating; DuckDB threads {threads}; "
              f"Tideline parallelism {args.parallelism}; load {os.getloadavg()[0]:.2f}")
        for name in args.workload or DEFAULT:
            keys, window, duck = WORKLOADS[name]
            folder = os.path.join(work, name)
            data = make_input(run, os.path.join(folder, "input"), args.events, keys)
            pipelines = {e: tideline_pipeline(os.path.join(folder, e), data, window, args.parallelism)
                         for e, _ in engines}
            _, _, first = run_tideline(run, pipelines["tideline"])  # warm-up, the reference
            expected = rows_of(first)
            with open(first, "rb") as f:
                reference = f.read()
            for t in threads:
                run_duckdb(duck, data, os.path.join(folder, f"duckdb-{t}.csv"), t)
            times = {e: [] for e, _ in engines}
            times.update({f"duckdb-{t}": [] for t in threads})
            rss = {}
            # Every engine once per round, DuckDB last, the Tideline builds' order reversed
            # every other round: a run right after DuckDB's (about 190 MiB freed) can be a few
            # per cent slower on this VM, and the fixed order put the same build there in every
            # round (docs/benchmarks.md, "Session 20"). Now each build follows DuckDB in half
            # of the rounds (without --baseline, Tideline follows it in all of them).
            for i in range(args.runs):
                for e, binary in engines if i % 2 == 0 else engines[::-1]:
                    s, r, out = run_tideline(binary, pipelines[e])
                    with open(out, "rb") as f:
                        if f.read() != reference:
                            raise SystemExit(f"{name}: {e}'s result file differs from the first "
                                             "Tideline run's (byte for byte)")
                    times[e].append(s)
                    rss[e] = max(rss.get(e, 0), r)
                for t in threads:
                    s, r, out = run_duckdb(duck, data, os.path.join(folder, f"duckdb-{t}.csv"), t)
                    got = rows_of(out)
                    if got != expected:
                        raise SystemExit(f"{name}: DuckDB ({t} threads) and Tideline disagree: "
                                         f"{len(got ^ expected)} rows differ")
                    times[f"duckdb-{t}"].append(s)
                    rss[f"duckdb-{t}"] = max(rss.get(f"duckdb-{t}", 0), r)
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"\n{name}: {args.events} events, {keys} keys, window {window}, "
                  f"{len(expected)} result rows (equal in every run)")
            for k, v in times.items():
                print(f"  {k:12s} median {med[k]:.3f} s  ({args.events / med[k] / 1e6:.2f} M events/s)"
                      f"  runs {' '.join(f'{x:.3f}' for x in v)}  peak RSS {rss[k]:.0f} MiB")
            # Two ratios: of the medians, and the median of each round's ratio (the runs of one
            # round are seconds apart, so they share the machine's load of the moment).
            for e, _ in engines:
                for t in threads:
                    d = f"duckdb-{t}"
                    per_round = statistics.median(a / b for a, b in zip(times[e], times[d]))
                    print(f"  {e} / DuckDB-{t}-thread{'s' if t > 1 else ''}: "
                          f"{med[e] / med[d]:.2f} (medians), {per_round:.2f} (median of rounds)")
            if args.baseline:
                per_round = statistics.median(a / b for a, b in zip(times["tideline"], times["baseline"]))
                print(f"  tideline / baseline: {med['tideline'] / med['baseline']:.2f} (medians), "
                      f"{per_round:.2f} (median of rounds); result files byte-identical")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
