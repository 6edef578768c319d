// Running a comparison: one Job per engine on a worker thread (a Job is single-threaded and
// shares nothing mutable with another), each in its own temporary folder prepared by
// expected::prepare, read back once the Job has closed its sinks. The pairs are compared
// afterwards, on the calling thread (compare_report.cpp).

#include "offline/offline_run.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/compare_engines.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>

namespace tideline::compare {

namespace fs = std::filesystem;

namespace {

std::vector<NodeDrops> dropsOf(const observe::MetricsSnapshot &snap)
{
    std::vector<NodeDrops> out;
    for (const auto &m : snap.nodes) {
        NodeDrops d;
        d.node = m.node;
        d.kind = m.kind;
        d.late = m.late;
        d.duplicates = m.fate(observe::Fate::Duplicate);
        d.unmatched = m.fate(observe::Fate::JoinUnmatched);
        d.errors = m.errors;
        d.lateCauses = m.lateCauses;
        d.errorCauses = m.errorCauses;
        if (d.late + d.duplicates + d.unmatched + d.errors > 0)
            out.push_back(std::move(d));
    }
    return out;
}

void runOne(const PipelineSpec &base,
            const Options &options,
            const fs::path &folder,
            EngineRun &run)
{
    const std::int64_t start = offline::nowMs();
    PipelineSpec spec = withEngine(base, run.engine);
    // Notes are what validation says about this mode and not about the pipeline in Flink mode
    // ("Spark has no late side output"): the warnings every mode shares are the file's own.
    std::set<std::string> shared;
    if (run.engine != "flink")
        for (const auto &d : validate(withEngine(base, "flink"), options.baseDir))
            shared.insert(d.format());
    for (const auto &d : validate(spec, options.baseDir)) {
        if (d.isError())
            run.error += (run.error.empty() ? "" : "; ") + d.format();
        else if (run.engine != "flink" && !shared.contains(d.format()))
            run.notes.push_back(d.format());
    }
    if (!run.error.empty())
        return;
    if (std::string e = expected::prepare(spec, folder.string(), "Compare engines", run.plan,
                                          static_cast<bool>(options.configureJob));
        !e.empty()) {
        run.error = e;
        return;
    }
    offline::QuietJob job(options.baseDir);
    if (std::string e = job.create(spec, {options.configureJob, options.attachJob}); !e.empty()) {
        run.error = e;
        return;
    }
    if (std::string e = job.runToEnd(options.cancel); !e.empty()) {
        run.error = e;
        return;
    }
    const observe::MetricsSnapshot snap = job.job().snapshot();
    run.recordsRead = snap.recordsRead;
    run.drops = dropsOf(snap);
    job.close(); // the sinks closed: their files complete
    run.outputs = expected::readOutputs(run.plan);
    run.wallMs = offline::nowMs() - start;
}

} // namespace

const std::vector<std::string> &allEngines()
{
    static const std::vector<std::string> engines = {"flink", "spark", "kafka-streams"};
    return engines;
}

std::string engineTitle(std::string_view engine)
{
    if (engine == "flink")
        return "Flink";
    if (engine == "spark")
        return "Spark";
    if (engine == "kafka-streams")
        return "Kafka Streams";
    return std::string(engine);
}

const std::vector<std::string> *EngineRun::rowsOf(std::string_view sinkId) const
{
    if (!ran())
        return nullptr;
    for (std::size_t i = 0; i < plan.captures.size() && i < outputs.size(); ++i)
        if (plan.captures[i].sinkId == sinkId)
            return &outputs[i].lines;
    return nullptr;
}

const EngineRun *Report::run(std::string_view engine) const
{
    for (const auto &r : runs)
        if (r.engine == engine)
            return &r;
    return nullptr;
}

bool Report::allAgree() const
{
    if (cancelled)
        return false;
    for (const auto &r : runs)
        if (!r.ran())
            return false;
    return std::all_of(pairs.begin(), pairs.end(), [](const PairDiff &p) { return p.diff.equal; });
}

PipelineSpec withEngine(const PipelineSpec &spec, std::string_view engine)
{
    PipelineSpec copy = spec;
    if (!copy.settings.is_object())
        copy.settings = Json::object();
    // Flink is the default: a file that names no mode runs exactly as written.
    if (engine == "flink" && !copy.settings.contains("semantics"))
        return copy;
    copy.settings["semantics"] = std::string(engine);
    return copy;
}

std::string check(const PipelineSpec &spec, const Options &options, bool boundedByCaller)
{
    if (options.engines.empty())
        return "name at least one engine to compare (flink, spark, kafka-streams)";
    for (const auto &e : options.engines)
        if (std::find(allEngines().begin(), allEngines().end(), e) == allEngines().end())
            return "unknown engine `" + e + "`: use flink, spark or kafka-streams";
    // prepare() writes nothing: the folder is only named in the copy it rewrites.
    PipelineSpec probe = spec;
    expected::Plan plan;
    return expected::prepare(probe, (fs::temp_directory_path() / "tideline-compare-probe").string(),
                             "Compare engines", plan, boundedByCaller);
}

Report run(const PipelineSpec &spec, const Options &options)
{
    Report report;
    for (const auto &e : options.engines) {
        EngineRun r;
        r.engine = e;
        report.runs.push_back(std::move(r));
    }
    if (std::string e = check(spec, options, static_cast<bool>(options.configureJob)); !e.empty()) {
        for (auto &r : report.runs)
            r.error = e;
        return report;
    }
    std::string tempError;
    const fs::path root = offline::makeTempRoot(options.tempRoot, "tideline-compare", tempError);
    if (root.empty()) {
        for (auto &r : report.runs)
            r.error = tempError;
        return report;
    }

    std::mutex doneMutex;
    offline::forEachOnThreads(report.runs.size(), options.jobs, [&](std::size_t i) {
        EngineRun &r = report.runs[i];
        if (options.cancel && options.cancel->load()) {
            r.error = "cancelled";
        } else {
            try {
                runOne(spec, options, root / r.engine, r);
            } catch (const std::exception &ex) {
                r.error = ex.what(); // e.g. out of memory: this engine only
            }
        }
        std::lock_guard lock(doneMutex);
        if (options.onRunFinished)
            options.onRunFinished(r);
    });
    std::error_code ec;
    fs::remove_all(root, ec);
    report.cancelled = options.cancel && options.cancel->load();
    for (const auto &r : report.runs)
        if (r.ran()) {
            report.unchecked = r.plan.unchecked;
            break;
        }
    comparePairs(report);
    return report;
}

} // namespace tideline::compare
