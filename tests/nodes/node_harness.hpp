#pragma once
// Runs small pipelines through the public Job API for the node tests: writes input files into
// a temporary folder, loads + validates the spec, runs it to the end (or step by step) and
// reads back the JSONL files the sinks wrote.

#include "qt_lines.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <QStringList>
#include <QTemporaryDir>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nodetest {

using tideline::Json;

inline QStringList readLines(const std::string &path)
{
    return tideline::testing::readQLines(path);
}
using tideline::testing::writeLines;

inline std::vector<Json> readJsonLines(const std::string &path)
{
    std::vector<Json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            out.push_back(Json::parse(line));
    return out;
}

using tideline::testing::diagnosticsText;

struct Run
{
    tideline::Job::Status status = tideline::Job::Status::Failed;
    std::string error; ///< create/validation error, or the run's failure
    tideline::observe::MetricsSnapshot metrics;
    std::unique_ptr<tideline::Job> job;

    const tideline::observe::NodeMetrics &node(const std::string &id) const
    {
        static const tideline::observe::NodeMetrics none;
        const auto *m = metrics.node(id);
        return m ? *m : none;
    }
    bool ok() const { return status == tideline::Job::Status::Finished; }
};

class Harness
{
public:
    Harness() = default;
    bool valid() const { return m_tmp.isValid(); }
    std::string dir() const { return m_tmp.path().toStdString(); }
    std::string path(const std::string &name) const { return dir() + "/" + name; }

    /// Loads `pipeline` (validating it) and creates the job; error set on failure.
    Run create(const Json &pipeline)
    {
        Run r;
        const tideline::LoadResult loaded = tideline::loadSpec(pipeline.dump());
        if (!loaded.ok() || !loaded.spec) {
            r.error = "invalid pipeline:\n" + diagnosticsText(loaded.diagnostics);
            return r;
        }
        tideline::JobOptions options;
        options.baseDir = dir();
        options.clock = &m_clock;
        r.job = tideline::Job::create(*loaded.spec, std::move(options), r.error);
        if (r.job)
            r.status = tideline::Job::Status::Running;
        return r;
    }

    /// Runs `pipeline` to the end.
    Run run(const Json &pipeline)
    {
        Run r = create(pipeline);
        if (!r.job)
            return r;
        r.status = r.job->run();
        if (r.status != tideline::Job::Status::Finished)
            r.error = "run ended with failure: " + r.job->failure();
        r.job->publishMetrics();
        r.metrics = r.job->snapshot();
        return r;
    }

    /// Steps `r` by `records` source records and refreshes its metrics.
    static void step(Run &r, std::int64_t records)
    {
        r.status = r.job->runFor(records);
        if (r.status == tideline::Job::Status::Failed)
            r.error = r.job->failure();
        r.job->publishMetrics();
        r.metrics = r.job->snapshot();
    }

    /// A unique file name for one test's data.
    std::string fresh(const std::string &stem, const std::string &ext)
    {
        return stem + "_" + std::to_string(++m_counter) + "." + ext;
    }

private:
    QTemporaryDir m_tmp;
    tideline::ManualClock m_clock;
    int m_counter = 0;
};

inline Json node(const std::string &id, const std::string &kind, Json params = Json::object())
{
    return Json{{"id", id}, {"kind", kind}, {"params", std::move(params)}};
}

inline Json edge(const std::string &from, const std::string &to)
{
    return Json{{"from", from}, {"to", to}};
}

inline Json pipeline(const std::string &name, std::vector<Json> nodes, std::vector<Json> edges)
{
    Json j = {{"format", "tideline/1"}, {"name", name}};
    j["nodes"] = Json::array();
    for (auto &n : nodes)
        j["nodes"].push_back(std::move(n));
    j["edges"] = Json::array();
    for (auto &e : edges)
        j["edges"].push_back(std::move(e));
    return j;
}

} // namespace nodetest
