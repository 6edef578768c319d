#pragma once
// Small helpers shared by engine tests: temp folders, files, and running a pipeline given as
// JSON text through the real loader, validator and Job (no shortcuts around the engine).

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
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

inline std::vector<std::string> readLines(const std::string &path)
{
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
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
