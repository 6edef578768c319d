#pragma once
// What the what-if sweep (sweep_run.cpp) and the engine comparison (compare_run.cpp) share:
// both run several bounded Jobs to their end side by side, each on a worker thread with its
// outputs in its own temporary folder, and read what they measured once a Job has closed its
// sinks. A Job is single-threaded and shares nothing mutable with another one (sweep.hpp), so
// the only state the threads share is the index of the next run to take.

#include <tideline/engine/job.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace tideline::offline {

/// Steady-clock milliseconds, for the wall time a run reports.
std::int64_t nowMs();

/// Creates `<root>/<prefix>-XXXXXX` (root "" = the system's temporary folder). An empty path
/// and `error` set when it cannot.
[[nodiscard]] std::filesystem::path
makeTempRoot(const std::string &root, const std::string &prefix, std::string &error);

/// Runs each(i) for every i in [0, total) on `jobs` threads (0 = the machine's cores, never
/// more than `total`), the calling thread being one of them; returns when all have run.
/// `each` must not throw (catch inside: a failure belongs to its own run).
void forEachOnThreads(std::size_t total, int jobs, const std::function<void(std::size_t)> &each);

/// The two hooks a caller of a sweep or comparison may give (a replayed recording's are in
/// app/runner/replay_input.*): one adjusts the spec and options before the Job exists, the other
/// sees the Job before it runs.
struct JobHooks
{
    const std::function<std::string(PipelineSpec &, JobOptions &)> &configure;
    const std::function<void(const JobOptions &, Job &)> &attach;
};

/// One bounded run nobody watches: what a sink.console would print and the log go nowhere,
/// metrics are published only when asked (snapshot()), state starts fresh.
/// Not movable: options.console points into it.
class QuietJob
{
public:
    explicit QuietJob(const std::string &baseDir);
    QuietJob(const QuietJob &) = delete;
    QuietJob &operator=(const QuietJob &) = delete;

    /// Set before create() (for example trackPeakState).
    JobOptions options;

    /// hooks.configure (may rewrite `spec`), Job::create, hooks.attach. "" or why not.
    [[nodiscard]] std::string create(PipelineSpec &spec, const JobHooks &hooks);
    /// The Job create() made (taps go on it before runToEnd()).
    Job &job() { return *m_job; }
    /// Runs until the Job ends: "" when its input ended (or attach's hook stopped it),
    /// "cancelled" when `cancel` was set, else the Job's failure.
    [[nodiscard]] std::string runToEnd(const std::atomic<bool> *cancel);
    /// Destroys the Job: its sinks are closed and their files complete.
    void close() { m_job.reset(); }

private:
    struct NullBuffer : std::streambuf
    {
        int overflow(int c) override { return c; }
    };
    NullBuffer m_nullBuffer;
    std::ostream m_nullConsole{&m_nullBuffer};
    std::unique_ptr<Job> m_job;
};

} // namespace tideline::offline
