// tideline-bench-checkpoint [--keys N] [--events N] [--throughput-keys N] [--window-ms N]
//                           [--state-memory-mb MB] [--runs N] [--dir DIR] [--parallelism N]
//
// --parallelism N runs every job with N instances of the window (issue 22): a checkpoint then
// quiesces the stage and merges its instances' state into one (the loop-blocked figure
// includes waiting for the workers' rounds in flight).
//
// 1. Checkpoint of window state: a tumbling window keyed by event_id (so N events = N keys,
//    all in one open window) is loaded with N events, then one checkpoint is taken through the
//    normal periodic path. Prints duration (snapshot + RocksDB write + fsyncs + manifest), how
//    long the loop was blocked, and size on disk.
// 2. Throughput: generator (1M users) -> watermark -> window (keyed by user_id, 600 s tumbling
//    at 10,000 events/s of event time, so one window sees 6M events and ~1M distinct keys) ->
//    sink.discard, unpaced, with checkpoints every 1000 ms vs none; alternating runs. The
//    window's state entries are sampled every second so the figure says how much state the
//    checkpoints really carried. Reported per wall second and per CPU second: the loop thread's
//    CPU (what the pipeline pays) and the whole process's (adds the checkpoint writer thread).
//    --state-memory-mb MB runs both settings with settings.state "rocksdb" and that budget
//    (cold keys spill to RocksDB; spilled keys reach checkpoints through the writer thread).

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <time.h>
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

std::string throughputPipeline(long long events,
                               long long keys,
                               long long windowMs,
                               const std::string &ckdir,
                               double stateMemoryMb)
{
    std::string entries;
    if (!ckdir.empty())
        entries = R"("checkpoint": {"interval_ms": 1000, "dir": ")" + ckdir + R"(", "keep": 2})";
    if (stateMemoryMb > 0)
        entries += std::string(entries.empty() ? "" : ", ")
                   + R"("state": "rocksdb", "state_memory_mb": )" + std::to_string(stateMemoryMb);
    const std::string settings
        = entries.empty() ? std::string() : R"("settings": {)" + entries + "},";
    return R"({"format": "tideline/1", "name": "bench-checkpoint-throughput", )" + settings + R"(
  "nodes": [
    {"id": "gen", "kind": "source.generator", "params": {"count": )"
           + std::to_string(events) + R"(, "rate_per_s": 10000, "keys": )" + std::to_string(keys)
           + R"(, "seed": 3,
      "disorder": {"max_delay_ms": 500}}},
    {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time", "max_out_of_orderness_ms": 500}},
    {"id": "win", "kind": "window", "params": {"type": "tumbling", "size_ms": )"
           + std::to_string(windowMs) + R"(, "key": ["user_id"],
      "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}},
    {"id": "out", "kind": "sink.discard", "params": {}}
  ],
  "edges": [{"from": "gen.out", "to": "wm.in"}, {"from": "wm.out", "to": "win.in"}, {"from": "win.out", "to": "out.in"}]
})";
}

int g_parallelism = 1; ///< --parallelism

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
    o.parallelism = g_parallelism;
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

double cpuSeconds(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    long long keys = 1000000, events = 6000000, throughputKeys = 1000000, windowMs = 600000;
    double stateMemoryMb = 0; // > 0: the throughput runs use settings.state "rocksdb"
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
        else if (a == "--window-ms")
            windowMs = std::atoll(argv[i + 1]);
        else if (a == "--state-memory-mb")
            stateMemoryMb = std::atof(argv[i + 1]);
        else if (a == "--runs")
            runs = std::atoi(argv[i + 1]);
        else if (a == "--dir")
            dir = argv[i + 1];
        else if (a == "--parallelism")
            g_parallelism = std::max(1, std::atoi(argv[i + 1]));
    }
    std::printf("parallelism %d\n", g_parallelism);
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
            const double c0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
            const double p0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
            job->runFor(1);
            const double blockedMs = seconds(std::chrono::steady_clock::now() - s0) * 1000;
            const double blockedCpuMs = (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0) * 1000;
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
            // CPU of the other threads (checkpoint writer, RocksDB flush) while it was written.
            const double backgroundCpuMs = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - p0
                                            - (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0))
                                           * 1000;
            std::printf(
                "checkpoint %lld: %s, duration %lld ms (loop blocked %.0f ms, %.0f ms CPU, for the "
                "snapshot; %.0f ms CPU in other threads), %lld bytes on disk (%.1f MiB)\n",
                static_cast<long long>(s.lastCheckpoint->id), s.lastCheckpoint->status.c_str(),
                static_cast<long long>(s.lastCheckpoint->durationMs), blockedMs, blockedCpuMs,
                backgroundCpuMs, static_cast<long long>(s.lastCheckpoint->bytes),
                static_cast<double>(s.lastCheckpoint->bytes) / (1 << 20));
            std::fflush(stdout);
        }
    }

    // --- 2. throughput, checkpoints every second vs none ---
    struct Run
    {
        double eps = 0, loopEps = 0, procEps = 0;
    };
    std::vector<Run> with, without;
    for (int r = 0; r < runs; ++r) {
        for (int withCk = 0; withCk < 2; ++withCk) {
            std::string ck = withCk ? dir + "/tp" : std::string();
            if (withCk)
                fs::remove_all(ck);
            auto job = makeJob(
                throughputPipeline(events, throughputKeys, windowMs, ck, stateMemoryMb), nullptr);
            // State carried by the window, sampled at each metrics publish (every second).
            long long samples = 0, sumEntries = 0, maxEntries = 0;
            auto t0 = std::chrono::steady_clock::now();
            const double loop0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
            const double proc0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
            Job::Status st = Job::Status::Running;
            auto lastSample = t0;
            while (st == Job::Status::Running) {
                st = job->runFor(200000);
                auto now = std::chrono::steady_clock::now();
                if (now - lastSample >= std::chrono::milliseconds(500)) {
                    lastSample = now;
                    job->publishMetrics();
                    auto snap = job->snapshot();
                    if (const auto *win = snap.node("win")) {
                        ++samples;
                        sumEntries += win->stateEntries;
                        maxEntries = std::max<long long>(maxEntries, win->stateEntries);
                    }
                }
            }
            const double secs = seconds(std::chrono::steady_clock::now() - t0);
            const double loopCpu = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - loop0;
            const double procCpu = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - proc0;
            if (st != Job::Status::Finished) {
                std::fprintf(stderr, "run failed: %s\n", job->failure().c_str());
                return 1;
            }
            auto s = job->snapshot();
            const auto n = static_cast<double>(s.recordsRead);
            Run run{n / secs, n / loopCpu, n / procCpu};
            (withCk ? with : without).push_back(run);
            std::printf("run %d %-18s %lld events in %.2f s = %.0f events/s; per CPU s: loop "
                        "thread %.0f, process %.0f; window state: mean %lld, max %lld keys\n",
                        r + 1, withCk ? "checkpoint 1/s:" : "no checkpoints:",
                        static_cast<long long>(s.recordsRead), secs, run.eps, run.loopEps,
                        run.procEps, samples ? sumEntries / samples : 0LL, maxEntries);
            if (withCk) {
                long long count = 0, total = 0, maxBytes = 0, failed = 0;
                for (const auto &c : s.checkpointHistory) {
                    if (c.status == "completed") {
                        ++count;
                        total += c.durationMs;
                        maxBytes = std::max<long long>(maxBytes, c.bytes);
                    } else if (c.status == "failed") {
                        ++failed;
                    }
                }
                std::printf("      %lld checkpoints (%lld failed), mean duration %.1f ms, largest "
                            "%lld bytes on disk\n",
                            count, failed,
                            count ? static_cast<double>(total) / static_cast<double>(count) : 0.0,
                            maxBytes);
            }
            std::fflush(stdout);
        }
    }
    auto pick = [](const std::vector<Run> &v, double Run::*f) {
        std::vector<double> x;
        for (const auto &r : v)
            x.push_back(r.*f);
        return median(x);
    };
    auto overhead = [](double none, double ck) {
        return 100.0 * (none - ck) / none;
    };
    const double a = pick(without, &Run::eps), b = pick(with, &Run::eps);
    const double la = pick(without, &Run::loopEps), lb = pick(with, &Run::loopEps);
    const double pa = pick(without, &Run::procEps), pb = pick(with, &Run::procEps);
    std::printf("median events/s (wall): none %.0f, checkpoint every 1 s %.0f: overhead %.1f%%\n",
                a, b, overhead(a, b));
    std::printf("median events per loop-thread CPU s: none %.0f, checkpoint every 1 s %.0f: "
                "overhead %.1f%%\n",
                la, lb, overhead(la, lb));
    std::printf("median events per process CPU s: none %.0f, checkpoint every 1 s %.0f: "
                "overhead %.1f%%\n",
                pa, pb, overhead(pa, pb));
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("peak memory (max RSS): %.0f MiB\n", static_cast<double>(ru.ru_maxrss) / 1024);
    fs::remove_all(dir);
    return 0;
}
