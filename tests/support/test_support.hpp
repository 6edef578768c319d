#pragma once
// Small helpers shared by engine tests: temp folders, files, and running a pipeline given as
// JSON text through the real loader, validator and Job (no shortcuts around the engine).

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tideline::testing {

inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void writeFile(const std::string &path, const std::string &content)
{
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

/// The file's non-empty lines (none when it does not exist).
inline std::vector<std::string> readLines(const std::string &path)
{
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

/// Writes `lines`, each followed by '\n' (an input file for source.file).
inline void writeLines(const std::string &path, const std::vector<std::string> &lines)
{
    std::ofstream out(path, std::ios::trunc);
    for (const auto &l : lines)
        out << l << '\n';
}

/// A fresh temp folder, removed when the object dies.
struct TempDir
{
    std::filesystem::path path;
    TempDir()
    {
        std::string tmpl
            = (std::filesystem::temp_directory_path() / "tideline-test-XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string &name) const { return (path / name).string(); }
};

struct RunResult
{
    bool valid = false;
    std::vector<Diagnostic> diagnostics;
    std::string createError;
    Job::Status status = Job::Status::Failed;
    observe::MetricsSnapshot metrics;
    std::string failure;
};

/// Loads + validates + runs to the end (or until maxRecords when > 0).
inline RunResult runPipeline(const std::string &json,
                             const std::string &baseDir,
                             Clock *clock = nullptr,
                             std::ostream *console = nullptr)
{
    RunResult r;
    LoadResult loaded = loadSpec(json);
    r.diagnostics = loaded.diagnostics;
    r.valid = loaded.ok();
    if (!r.valid)
        return r;
    JobOptions o;
    o.baseDir = baseDir;
    o.clock = clock;
    o.console = console;
    auto job = Job::create(*loaded.spec, o, r.createError);
    if (!job)
        return r;
    r.status = job->run();
    r.metrics = job->snapshot();
    r.failure = job->failure();
    return r;
}

/// In-process jobs for checkpoint and recovery tests: a temp folder as the pipeline folder, a
/// ManualClock (checkpoints and idleness by virtual time) and the run's log lines captured.
struct JobHarness
{
    TempDir tmp;
    std::vector<std::string> logs;
    tideline::ManualClock clock;

    std::string dir() const { return tmp.path.string(); }
    std::string file(const std::string &name) const { return dir() + "/" + name; }
    std::string ckdir() const { return dir() + "/checkpoints"; }

    std::unique_ptr<tideline::Job>
    make(const std::string &json, std::string &error, tideline::JobOptions extra = {})
    {
        tideline::LoadResult loaded = tideline::loadSpec(json);
        if (!loaded.ok()) {
            error = "invalid pipeline";
            for (const auto &d : loaded.diagnostics)
                error += "\n" + d.format();
            return nullptr;
        }
        tideline::JobOptions o = std::move(extra);
        o.baseDir = dir();
        o.clock = &clock;
        o.log = [this](const std::string &l) {
            logs.push_back(l);
        };
        return tideline::Job::create(*loaded.spec, o, error);
    }
    bool logged(const std::string &needle) const
    {
        return std::any_of(logs.begin(), logs.end(), [&](const std::string &l) {
            return l.find(needle) != std::string::npos;
        });
    }
    std::string allLogs() const
    {
        std::string s;
        for (const auto &l : logs)
            s += l + "\n";
        return s;
    }
    /// Runs `records` source records in slices, moving the clock so checkpoints trigger.
    void advance(tideline::Job &job,
                 std::int64_t records,
                 std::int64_t slice = 2000,
                 std::int64_t ms = 60)
    {
        for (std::int64_t done = 0; done < records; done += slice) {
            job.runFor(slice);
            clock.advance(ms);
        }
    }
};

/// Ids of the complete checkpoints (those with a manifest-N.json) in a checkpoint folder,
/// oldest first.
inline std::vector<std::int64_t> completeIds(const std::string &dir)
{
    std::vector<std::int64_t> ids;
    std::error_code ec;
    for (auto &e : std::filesystem::directory_iterator(dir, ec)) {
        std::string n = e.path().filename().string();
        if (n.rfind("manifest-", 0) == 0 && n.size() > 14 && n.substr(n.size() - 5) == ".json")
            ids.push_back(std::stoll(n.substr(9, n.size() - 14)));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

inline std::string diagnosticsText(const std::vector<Diagnostic> &ds)
{
    std::string s;
    for (const auto &d : ds)
        s += d.format() + "\n";
    return s;
}

} // namespace tideline::testing
