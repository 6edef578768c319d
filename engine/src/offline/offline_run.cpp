#include "offline/offline_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace tideline::offline {

namespace fs = std::filesystem;

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

fs::path makeTempRoot(const std::string &root, const std::string &prefix, std::string &error)
{
    std::error_code ec;
    std::string pattern
        = ((root.empty() ? fs::temp_directory_path(ec) : fs::path(root)) / (prefix + "-XXXXXX"))
              .string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        error = "cannot create a temporary folder " + pattern;
        return {};
    }
    return pattern;
}

void forEachOnThreads(std::size_t total, int jobs, const std::function<void(std::size_t)> &each)
{
    if (total == 0)
        return;
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < total; i = next++)
            each(i);
    };
    unsigned n = jobs > 0 ? static_cast<unsigned>(jobs)
                          : std::max(1u, std::thread::hardware_concurrency());
    n = static_cast<unsigned>(std::min<std::size_t>(n, total));
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n; ++t)
        threads.emplace_back(worker);
    worker();
    for (auto &t : threads)
        t.join();
}

QuietJob::QuietJob(const std::string &baseDir)
{
    options.baseDir = baseDir;
    options.fresh = true;
    options.metricsIntervalMs = 1 << 30;
    options.console = &m_nullConsole;
    options.log = [](const std::string &) {
    };
}

std::string QuietJob::create(PipelineSpec &spec, const JobHooks &hooks)
{
    if (hooks.configure)
        if (std::string e = hooks.configure(spec, options); !e.empty())
            return e;
    std::string error;
    m_job = Job::create(spec, options, error);
    if (!m_job)
        return error;
    if (hooks.attach)
        hooks.attach(options, *m_job);
    return {};
}

std::string QuietJob::runToEnd(const std::atomic<bool> *cancel)
{
    Job::Status status = Job::Status::Running;
    while (status == Job::Status::Running) {
        if (cancel && cancel->load())
            m_job->requestStop();
        status = m_job->runFor(1 << 16);
    }
    if (status == Job::Status::Failed)
        return m_job->failure();
    // Stopped without a cancel: attach's stop (a replayed recording that ran out): what ran is
    // the input there was.
    if (status == Job::Status::Stopped && cancel && cancel->load())
        return "cancelled";
    return {};
}

} // namespace tideline::offline
