#include "measure.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>

namespace tideline::bench {

namespace {

double seconds(const timeval &tv)
{
    return double(tv.tv_sec) + double(tv.tv_usec) / 1e6;
}

double loadAverage()
{
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

} // namespace

void discardSinks(PipelineSpec &spec)
{
    for (auto &n : spec.nodes) {
        const NodeKind *k = findNodeKind(n.kind);
        if (k && k->isSink && n.kind != "sink.discard") {
            n.kind = "sink.discard";
            n.params = Json::object();
        }
    }
    // A discard sink has no late/errors outputs of its own; edges into sinks stay valid.
}

Measurement runPipeline(const PipelineSpec &spec,
                        const std::string &baseDir,
                        const std::vector<std::string> &stateNodes,
                        const JobOptions &base)
{
    Measurement m;
    for (const auto &d : validate(spec)) {
        if (d.isError()) {
            m.failure += d.format() + "\n";
        }
    }
    if (!m.failure.empty())
        return m;
    JobOptions opts = base;
    opts.baseDir = baseDir;
    opts.metricsIntervalMs = 1 << 30; // no callbacks during the run
    std::string error;
    auto job = Job::create(spec, opts, error);
    if (!job) {
        m.failure = error;
        return m;
    }
    m.loadBefore = loadAverage();
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    auto t0 = std::chrono::steady_clock::now();
    Job::Status status;
    if (stateNodes.empty()) {
        status = job->run();
    } else {
        for (const auto &id : stateNodes)
            m.state.push_back(StateFigures{id});
        // runFor() publishes metrics when it returns Running, so each chunk ends in a sample.
        while ((status = job->runFor(kStateSampleRecords)) == Job::Status::Running) {
            auto snap = job->snapshot();
            for (auto &sf : m.state)
                for (const auto &n : snap.nodes)
                    if (n.node == sf.node) {
                        sf.peakEntries = std::max(sf.peakEntries, n.stateEntries);
                        sf.peakBytes = std::max(sf.peakBytes, n.stateBytes);
                    }
        }
    }
    auto t1 = std::chrono::steady_clock::now();
    getrusage(RUSAGE_SELF, &after);
    if (status != Job::Status::Finished) {
        m.failure = "run ended with status " + std::to_string(int(status)) + ": " + job->failure();
        return m;
    }
    m.wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    m.userSeconds = seconds(after.ru_utime) - seconds(before.ru_utime);
    m.sysSeconds = seconds(after.ru_stime) - seconds(before.ru_stime);
    m.peakRssMiB = double(after.ru_maxrss) / 1024.0; // ru_maxrss is KiB on Linux
    auto snap = job->snapshot();
    m.events = snap.recordsRead;
    for (const auto &n : snap.nodes) {
        if (n.kind == "sink.discard") {
            m.rows += n.recordsOut;
            m.checksum += n.checksum;
        }
        for (auto &sf : m.state)
            if (n.node == sf.node) {
                sf.finalEntries = n.stateEntries;
                sf.peakEntries = std::max(sf.peakEntries, n.stateEntries);
                sf.recordsIn = n.recordsIn;
                sf.recordsOut = n.recordsOut;
                sf.late = n.late;
                sf.duplicatesDropped = n.duplicatesDropped;
            }
    }
    return m;
}

std::string human(double v)
{
    char buf[32];
    if (v >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
    else if (v >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1fK", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

void print(const std::string &benchmark,
           const std::string &description,
           const Measurement &m,
           const std::string &extraJson)
{
    std::printf("benchmark          %s\n", benchmark.c_str());
    std::printf("pipeline           %s\n", description.c_str());
    std::printf("events             %lld\n", static_cast<long long>(m.events));
    std::printf("wall_s             %.3f\n", m.wallSeconds);
    std::printf("events_per_s       %s (%.0f)\n", human(m.eventsPerSecond()).c_str(),
                m.eventsPerSecond());
    std::printf("cpu_s              %.3f (user %.3f, sys %.3f)\n", m.cpuSeconds(), m.userSeconds,
                m.sysSeconds);
    std::printf("events_per_cpu_s   %s (%.0f)   <- per core\n",
                human(m.eventsPerCpuSecond()).c_str(), m.eventsPerCpuSecond());
    std::printf("peak_rss_mib       %.1f\n", m.peakRssMiB);
    std::printf("rows               %lld\n", static_cast<long long>(m.rows));
    std::printf("checksum           %016llx\n", static_cast<unsigned long long>(m.checksum));
    std::printf("load_avg_1m        %.2f (at start; the machine is shared)\n", m.loadBefore);
    std::string stateJson;
    for (const auto &sf : m.state) {
        std::printf("node %-13s in %lld, out %lld, late %lld, duplicates_dropped %lld\n",
                    sf.node.c_str(), static_cast<long long>(sf.recordsIn),
                    static_cast<long long>(sf.recordsOut), static_cast<long long>(sf.late),
                    static_cast<long long>(sf.duplicatesDropped));
        std::printf("peak_state_entries %lld (node %s; max of state_entries sampled every %lld "
                    "source records; state_bytes peak %.1f MiB)\n",
                    static_cast<long long>(sf.peakEntries), sf.node.c_str(),
                    static_cast<long long>(kStateSampleRecords), double(sf.peakBytes) / 1048576.0);
        std::printf("final_state_entries %lld (node %s, after the inputs ended and the "
                    "watermark passed everything)\n",
                    static_cast<long long>(sf.finalEntries), sf.node.c_str());
        stateJson += ",\"" + sf.node + "_peak_state_entries\":" + std::to_string(sf.peakEntries)
                     + ",\"" + sf.node
                     + "_final_state_entries\":" + std::to_string(sf.finalEntries);
    }
    std::printf("json {\"benchmark\":\"%s\",\"events\":%lld,\"wall_s\":%.3f,\"events_per_s\":%.0f,"
                "\"cpu_s\":%.3f,\"events_per_cpu_s\":%.0f,\"peak_rss_mib\":%.1f,\"rows\":%lld,"
                "\"checksum\":\"%016llx\",\"load_avg_1m\":%.2f%s%s%s}\n",
                benchmark.c_str(), static_cast<long long>(m.events), m.wallSeconds,
                m.eventsPerSecond(), m.cpuSeconds(), m.eventsPerCpuSecond(), m.peakRssMiB,
                static_cast<long long>(m.rows), static_cast<unsigned long long>(m.checksum),
                m.loadBefore, stateJson.c_str(), extraJson.empty() ? "" : ",", extraJson.c_str());
    std::fflush(stdout);
}

} // namespace tideline::bench
