// Running a sweep: each combination is one Job on a worker thread (a Job is single-threaded
// and shares nothing mutable with another one; see sweep.hpp), in its own temporary folder,
// measured through the engine's public surface only: a record tap on each sink (times only, no
// JSON) for results and latency, and the final MetricsSnapshot for the counts and the peak
// state (JobOptions::trackPeakState).

#include "offline/offline_run.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/sweep.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

namespace tideline::sweep {

namespace fs = std::filesystem;

namespace {

/// Points every sink and the checkpoint folder of `spec` into `dir`: files and consoles become
/// files there, upsert tables folders there, anything that writes to another system (Kafka,
/// PostgreSQL) a sink.discard — a what-if run must not publish.
void redirectOutputs(PipelineSpec &spec, const fs::path &dir)
{
    if (auto it = spec.settings.find("checkpoint"); it != spec.settings.end() && it->is_object())
        (*it)["dir"] = (dir / "checkpoints").string();
    for (auto &n : spec.nodes) {
        if (n.kind.rfind("sink.", 0) != 0)
            continue;
        if (n.kind == "sink.file" || n.kind == "sink.console") {
            const bool csv = n.params.value("format", std::string("jsonl")) == "csv";
            Json params = Json::object();
            if (n.kind == "sink.file")
                params = n.params;
            if (csv)
                params["format"] = "csv";
            params["path"] = (dir / "out" / (n.id + (csv ? ".csv" : ".jsonl"))).string();
            n.kind = "sink.file";
            n.params = std::move(params);
        } else if (n.kind == "sink.upsert") {
            n.params["path"] = (dir / "out" / (n.id + ".table")).string();
        } else if (n.kind != "sink.discard") {
            n.kind = "sink.discard";
            n.params = Json::object();
        }
    }
}

/// For each sink, the nodes whose data ports feed it: their rows are results.
std::map<std::string, std::set<std::string>> resultProducers(const PipelineSpec &spec)
{
    std::map<std::string, std::set<std::string>> producers;
    for (const auto &e : spec.edges) {
        const int from = spec.nodeIndex(e.from.node);
        if (from < 0)
            continue;
        const NodeKind *kind = findNodeKind(spec.nodes[static_cast<std::size_t>(from)].kind);
        if (kind == nullptr)
            continue;
        for (const auto &port : kind->outputs)
            if (port.name == e.from.port && port.role == PortRole::Data)
                producers[e.to.node].insert(e.from.node);
    }
    return producers;
}

double nearestRank(const std::vector<std::int64_t> &sorted, double p)
{
    const auto n = static_cast<double>(sorted.size());
    const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100.0 * n)));
    return static_cast<double>(sorted[std::min(rank, sorted.size()) - 1]);
}

/// What the sink taps collect in one run (on its loop thread).
struct Collector
{
    std::int64_t results = 0;
    std::int64_t flushedAtEnd = 0; ///< results emitted once every source had ended
    std::vector<std::int64_t> latencies;
    std::set<std::string> sourcesEnded;
    std::size_t sources = 0;
    bool inputEnded = false;
};

void runOne(const PipelineSpec &base,
            const Plan &plan,
            std::size_t index,
            const Options &options,
            const fs::path &folder,
            Row &row)
{
    const std::int64_t start = offline::nowMs();
    row.values = plan.valuesOf(index);
    PipelineSpec spec = apply(base, plan, index);
    for (const auto &d : validate(spec, options.baseDir))
        if (d.isError())
            row.error += (row.error.empty() ? "" : "; ") + d.format();
    if (!row.error.empty())
        return;

    redirectOutputs(spec, folder);
    offline::QuietJob run(options.baseDir);
    run.options.trackPeakState = true;
    if (std::string e = run.create(spec, {options.configureJob, options.attachJob}); !e.empty()) {
        row.error = e;
        return;
    }
    Job &job = run.job();
    Collector collected;
    // The end of the input: once every source has sent its final watermark, what comes out is
    // the flush of what was still open — in a stream it would come out later, so it is no
    // latency sample (a session gap longer than the input would otherwise show 0).
    std::set<std::string> sourceIds;
    for (const auto &n : spec.nodes)
        if (const NodeKind *kind = findNodeKind(n.kind); kind && kind->isSource)
            sourceIds.insert(n.id);
    collected.sources = sourceIds.size();
    job.setWatermarkTap([&collected, sourceIds](const observe::WatermarkTapEvent &e) {
        if (e.which != observe::WatermarkTapEvent::Which::Output || e.watermark != kMaxTime
            || !sourceIds.contains(e.node))
            return;
        collected.sourcesEnded.insert(e.node);
        collected.inputEnded = collected.sourcesEnded.size() == collected.sources;
    });
    for (const auto &[sink, producers] : resultProducers(spec)) {
        const int idx = spec.nodeIndex(sink);
        if (idx < 0 || spec.nodes[static_cast<std::size_t>(idx)].kind.rfind("sink.", 0) != 0)
            continue;
        observe::TapFilter filter;
        filter.dataOut = false;
        filter.lateAndErrors = false;
        filter.recordJson = false;
        (void)job.setTap(
            sink,
            [&collected, from = producers](const observe::TapEvent &e) {
                if (!from.contains(e.from))
                    return; // a late or error record sent aside, not a result
                ++collected.results;
                if (collected.inputEnded)
                    ++collected.flushedAtEnd;
                else if (e.eventTime && e.maxEventTime)
                    collected.latencies.push_back(
                        std::max<std::int64_t>(0, *e.maxEventTime - *e.eventTime));
            },
            filter);
    }
    if (std::string e = run.runToEnd(options.cancel); !e.empty()) {
        row.error = e;
        return;
    }
    const observe::MetricsSnapshot snap = job.snapshot();
    row.inputRecords = snap.recordsRead;
    for (const auto &m : snap.nodes) {
        row.lateDropped += m.late;
        row.lateAccepted += m.fate(observe::Fate::LateAccepted);
        row.peakStateEntries += m.peakStateEntries;
        row.peakStateBytes += m.peakStateBytes;
        const NodeKind *kind = findNodeKind(m.kind);
        if (kind == nullptr)
            continue;
        for (const auto &port : kind->outputs)
            if (port.role == PortRole::Late) {
                row.accepted += m.recordsIn - m.late;
                break;
            }
    }
    row.results = collected.results;
    row.resultsAtEnd = collected.flushedAtEnd;
    std::sort(collected.latencies.begin(), collected.latencies.end());
    if (!collected.latencies.empty()) {
        row.latencyP50Ms = nearestRank(collected.latencies, 50);
        row.latencyP99Ms = nearestRank(collected.latencies, 99);
    }
    run.close(); // sinks closed before their folder goes
    row.wallMs = offline::nowMs() - start;
}

} // namespace

Result run(const PipelineSpec &spec, const Plan &plan, const Options &options)
{
    const std::int64_t start = offline::nowMs();
    Result result;
    for (const auto &a : plan.axes)
        result.axes.push_back(a.label());
    const std::size_t total = plan.combinations();
    result.rows.resize(total);
    if (total == 0)
        return result;

    // A source that never ends would hold its worker forever: refuse before anything runs.
    if (std::string e = options.skipBoundedCheck ? std::string() : checkBounded(spec, "A sweep");
        !e.empty()) {
        for (std::size_t i = 0; i < total; ++i) {
            result.rows[i].values = plan.valuesOf(i);
            result.rows[i].error = e;
        }
        return result;
    }
    std::string tempError;
    const fs::path root = offline::makeTempRoot(options.tempRoot, "tideline-sweep", tempError);
    if (root.empty()) {
        for (std::size_t i = 0; i < total; ++i) {
            result.rows[i].values = plan.valuesOf(i);
            result.rows[i].error = tempError;
        }
        return result;
    }

    std::mutex progressMutex;
    std::size_t done = 0;
    offline::forEachOnThreads(total, options.jobs, [&](std::size_t i) {
        Row &row = result.rows[i];
        if (options.cancel && options.cancel->load()) {
            row.values = plan.valuesOf(i);
            row.error = "cancelled";
        } else {
            const fs::path folder = root / ("combination-" + std::to_string(i));
            try {
                runOne(spec, plan, i, options, folder, row);
            } catch (const std::exception &e) {
                row.error = e.what(); // e.g. out of memory: this combination only
            }
            std::error_code rm;
            fs::remove_all(folder, rm);
        }
        std::lock_guard lock(progressMutex);
        ++done;
        if (options.onProgress)
            options.onProgress(Progress{done, total, i});
    });
    std::error_code ec;
    fs::remove_all(root, ec);

    // Completeness against the most permissive combination: the one that accepted the most.
    std::int64_t most = 0;
    for (const auto &r : result.rows)
        if (r.error.empty())
            most = std::max(most, r.accepted);
    for (auto &r : result.rows)
        r.completeness = !r.error.empty() ? 0.0
                         : most == 0      ? 1.0
                                     : static_cast<double>(r.accepted) / static_cast<double>(most);
    result.cancelled = options.cancel && options.cancel->load();
    result.wallMs = offline::nowMs() - start;
    return result;
}

} // namespace tideline::sweep
