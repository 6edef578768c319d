// tideline-bench-checkpoint [--keys N] [--events N] [--runs N] [--dir DIR]
//
// 1. Checkpoint of window state: a tumbling window keyed by event_id (so N events = N keys,
//    all in one open window) is loaded with N events, then one checkpoint is taken through the
//    normal periodic path. Prints duration (snapshot + RocksDB write + fsyncs + manifest) and
//    size on disk.
// 2. Throughput: generator -> watermark -> window (keyed by user_id) -> sink.discard, unpaced,
//    with checkpoints every 1000 ms vs none; alternating runs, median events/s per setting.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

std::string windowStatePipeline(long long keys, const std::string &ckdir)
{
    return R"({"format": "tideline/1", "name": "bench-checkpoint-state",
  "settings": {"checkpoint": {"interval_ms": 1000, "dir": ")"
           + ckdir + R"(", "keep": 2}},
  "nodes": [
    {"id": "gen", "kind": "source.generator", "params": {"count": )"
           + std::to_string(2 * keys) + R"(, "rate_per_s": 100000, "keys": 1000, "seed": 1}},
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 0}},
    {"id": "win", "kind": "window", "params": {"type": "tumbling", "size_ms": 3600000, "key": ["event_id"],
      "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}},
    {"id": "out", "kind": "sink.discard", "params": {}}
  ],
  "edges": [{"from": "gen.out", "to": "wm.in"}, {"from": "wm.out", "to": "win.in"}, {"from": "win.out", "to": "out.in"}]
})";
}

std::string throughputPipeline(long long events, long long keys, const std::string &ckdir)
{
    std::string settings = ckdir.empty()
                               ? std::string()
                               : R"("settings": {"checkpoint": {"interval_ms": 1000, "dir": ")"
                                     + ckdir + R"(", "keep": 2}},)";
    return R"({"format": "tideline/1", "name": "bench-checkpoint-throughput", )" + settings + R"(
  "nodes": [
    {"id": "gen", "kind": "source.generator", "params": {"count": )"
           + std::to_string(events) + R"(, "rate_per_s": 10000, "keys": )" + std::to_string(keys)
           + R"(, "seed": 3,
      "disorder": {"max_delay_ms": 500}}},
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 500}},
    {"id": "win", "kind": "window", "params": {"type": "tumbling", "size_ms": 60000, "key": ["user_id"],
      "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}},
    {"id": "out", "kind": "sink.discard", "params": {}}
  ],
  "edges": [{"from": "gen.out", "to": "wm.in"}, {"from": "wm.out", "to": "win.in"}, {"from": "win.out", "to": "out.in"}]
})";
}

std::unique_ptr<Job> makeJob(const std::string &json, Clock *clock)
{
    LoadResult loaded = loadSpec(json);
    if (!loaded.ok()) {
        for (const auto &d : loaded.diagnostics)
            std::fprintf(stderr, "%s\n", d.format().c_str());
        std::exit(2);
    }
    JobOptions o;
    o.baseDir = ".";
    o.clock = clock;
    o.fresh = true;
    o.log = [](const std::string &l) {
        std::fprintf(stderr, "  log: %s\n", l.c_str());
    };
    std::string error;
    auto job = Job::create(*loaded.spec, o, error);
    if (!job) {
        std::fprintf(stderr, "cannot create job: %s\n", error.c_str());
        std::exit(1);
    }
    return job;
}

double seconds(std::chrono::steady_clock::duration d)
{
    return std::chrono::duration<double>(d).count();
}

} // namespace

int main(int argc, char **argv)
{
    long long keys = 1000000, events = 6000000, throughputKeys = 100000;
    int runs = 3;
    std::string dir = (fs::temp_directory_path() / "tideline-bench-checkpoint").string();
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--keys")
            keys = std::atoll(argv[i + 1]);
        else if (a == "--events")
            events = std::atoll(argv[i + 1]);
        else if (a == "--throughput-keys")
            throughputKeys = std::atoll(argv[i + 1]);
        else if (a == "--runs")
            runs = std::atoi(argv[i + 1]);
        else if (a == "--dir")
            dir = argv[i + 1];
    }
    fs::remove_all(dir);
    fs::create_directories(dir);

    // --- 1. one checkpoint of `keys` window keys ---
    {
        ManualClock clock;
        auto job = makeJob(windowStatePipeline(keys, dir + "/state"), &clock);
        auto t0 = std::chrono::steady_clock::now();
        // Exactly `keys` events (the generator has twice as many, so the run does not end).
        if (job->runFor(keys) != Job::Status::Running) {
            std::fprintf(stderr, "the state run ended early: %s\n", job->failure().c_str());
            return 1;
        }
        job->publishMetrics();
        auto loaded = job->snapshot();
        const auto *win = loaded.node("win");
        std::printf(
            "window state: %lld keys loaded in %.2f s (state_entries=%lld, state_bytes=%lld)\n",
            static_cast<long long>(loaded.recordsRead),
            seconds(std::chrono::steady_clock::now() - t0),
            static_cast<long long>(win ? win->stateEntries : -1),
            static_cast<long long>(win ? win->stateBytes : -1));
        std::int64_t lastId = 0;
        for (int i = 0; i < runs; ++i) {
            clock.advance(1000);
            // The tick after the interval snapshots on the loop thread (this call) and hands
            // the bytes to the writer thread; the loop then goes on until the writer is done.
            auto s0 = std::chrono::steady_clock::now();
            job->runFor(1);
            double blockedMs = seconds(std::chrono::steady_clock::now() - s0) * 1000;
            observe::MetricsSnapshot s;
            while (true) {
                job->publishMetrics();
                s = job->snapshot();
                if (s.lastCheckpoint && s.lastCheckpoint->id != lastId)
                    break;
                clock.advance(1);
                job->runFor(1);
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            lastId = s.lastCheckpoint->id;
            std::printf(
                "checkpoint %lld: %s, duration %lld ms (loop blocked %.0f ms for the snapshot), "
                "%lld bytes on disk (%.1f MiB)\n",
                static_cast<long long>(s.lastCheckpoint->id), s.lastCheckpoint->status.c_str(),
                static_cast<long long>(s.lastCheckpoint->durationMs), blockedMs,
                static_cast<long long>(s.lastCheckpoint->bytes),
                static_cast<double>(s.lastCheckpoint->bytes) / (1 << 20));
            std::fflush(stdout);
        }
    }

    // --- 2. throughput, checkpoints every second vs none ---
    std::vector<double> with, without;
    std::vector<long long> counts;
    std::vector<double> avgDur;
    std::vector<long long> lastBytes, maxSize;
    for (int r = 0; r < runs; ++r) {
        for (int withCk = 0; withCk < 2; ++withCk) {
            std::string ck = withCk ? dir + "/tp" : std::string();
            if (withCk)
                fs::remove_all(ck);
            auto job = makeJob(throughputPipeline(events, throughputKeys, ck), nullptr);
            auto t0 = std::chrono::steady_clock::now();
            Job::Status st = job->run();
            double secs = seconds(std::chrono::steady_clock::now() - t0);
            if (st != Job::Status::Finished) {
                std::fprintf(stderr, "run failed: %s\n", job->failure().c_str());
                return 1;
            }
            auto s = job->snapshot();
            double eps = static_cast<double>(s.recordsRead) / secs;
            (withCk ? with : without).push_back(eps);
            if (withCk) {
                long long n = 0, total = 0, maxBytes = 0;
                for (const auto &c : s.checkpointHistory)
                    if (c.status == "completed") {
                        ++n;
                        total += c.durationMs;
                        maxBytes = std::max<long long>(maxBytes, c.bytes);
                    }
                maxSize.push_back(maxBytes);
                counts.push_back(n);
                avgDur.push_back(n ? static_cast<double>(total) / static_cast<double>(n) : 0);
                lastBytes.push_back(s.lastCheckpoint ? s.lastCheckpoint->bytes : 0);
            }
            std::printf("run %d %-18s %lld events in %.2f s = %.0f events/s\n", r + 1,
                        withCk ? "checkpoint 1/s:" : "no checkpoints:",
                        static_cast<long long>(s.recordsRead), secs, eps);
            std::fflush(stdout);
            if (withCk)
                std::printf(
                    "      %lld checkpoints, mean duration %.1f ms, largest %lld bytes on disk\n",
                    counts.back(), avgDur.back(), maxSize.back());
        }
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    double a = median(without), b = median(with);
    std::printf("median events/s: none %.0f, checkpoint every 1 s %.0f: overhead %.1f%%\n", a, b,
                100.0 * (a - b) / a);
    fs::remove_all(dir);
    return 0;
}
