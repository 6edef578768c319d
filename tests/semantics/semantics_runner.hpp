#pragma once
// Runs source.file -> watermark (time_field "t") -> NODE -> one sink.file that takes both
// NODE.out and NODE.late, so the file shows rows and late records in the order the run produced
// them (which is what the peers' tests check batch by batch or record by record).
//
// Each output line is shortened for comparison: a window row is its JSON text as written; a
// late wrapper is "late t=<record.t> wm=<watermark>"; a dedup row is "pass id=<id> t=<t>".

#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <string>
#include <vector>

namespace tideline::testing {

struct ModeRun
{
    std::vector<std::string> lines;   ///< shortened output, in order
    std::vector<std::string> reasons; ///< the reason of each late wrapper, in order
    std::string error;                ///< empty when the pipeline validated and finished
    observe::MetricsSnapshot metrics;
};

inline std::string shorten(const std::string &line, std::string *reason)
{
    const Json j = Json::parse(line);
    if (j.contains("reason") && j.contains("record")) {
        *reason = j["reason"].get<std::string>();
        return "late t=" + j["record"]["t"].dump() + " wm=" + j["watermark"].dump();
    }
    if (j.contains("id") && !j.contains("window_start"))
        return "pass id=" + j["id"].dump() + " t=" + j["t"].dump();
    return j.dump();
}

/// `settings`: the pipeline's settings object; `node`: {"kind": ..., "params": ...}.
inline ModeRun runMode(const std::string &dir,
                       const Json &settings,
                       const Json &node,
                       std::int64_t delayMs,
                       const std::vector<Json> &input)
{
    static int runs = 0;
    const std::string tag = std::to_string(++runs);
    std::vector<std::string> lines;
    for (const auto &r : input)
        lines.push_back(r.dump());
    writeLines(dir + "/in" + tag + ".jsonl", lines);
    Json j = Json::parse(R"({"format": "tideline/1", "name": "semantics", "nodes": [], "edges": [
        {"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "op.in"},
        {"from": "op.out", "to": "all.in"}, {"from": "op.late", "to": "all.in"}]})");
    j["settings"] = settings;
    j["nodes"].push_back(
        {{"id", "src"}, {"kind", "source.file"}, {"params", {{"path", "in" + tag + ".jsonl"}}}});
    j["nodes"].push_back({{"id", "wm"},
                          {"kind", "watermark"},
                          {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", delayMs}}}});
    j["nodes"].push_back({{"id", "op"}, {"kind", node["kind"]}, {"params", node["params"]}});
    j["nodes"].push_back(
        {{"id", "all"}, {"kind", "sink.file"}, {"params", {{"path", "out" + tag + ".jsonl"}}}});
    ModeRun r;
    const LoadResult loaded = loadSpec(j.dump());
    if (!loaded.ok() || !loaded.spec) {
        for (const auto &d : loaded.diagnostics)
            r.error += d.format() + "\n";
        return r;
    }
    JobOptions o;
    o.baseDir = dir;
    auto job = Job::create(*loaded.spec, std::move(o), r.error);
    if (!job)
        return r;
    if (job->run() != Job::Status::Finished) {
        r.error = "run failed: " + job->failure();
        return r;
    }
    job->publishMetrics();
    r.metrics = job->snapshot();
    for (const auto &l : readLines(dir + "/out" + tag + ".jsonl")) {
        std::string reason;
        r.lines.push_back(shorten(l, &reason));
        if (!reason.empty())
            r.reasons.push_back(reason);
    }
    return r;
}

} // namespace tideline::testing
