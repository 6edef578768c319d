// tideline-run: validate or execute a pipeline file headless (the contract's runner).

#include "cli_options.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/metrics_json.hpp>
#include <tideline/engine/validate.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace {

std::atomic<tideline::Job *> g_job{nullptr};
volatile std::sig_atomic_t g_signals = 0;

extern "C" void onSignal(int)
{
    ++g_signals;
    if (g_signals > 1)
        std::_Exit(130); // a second Ctrl-C means "now"
    if (tideline::Job *job = g_job.load())
        job->requestStop();
}

int printDiagnostics(const std::vector<tideline::Diagnostic> &diags, const std::string &file)
{
    int errors = 0, warnings = 0;
    for (const auto &d : diags) {
        std::cerr << file << ": " << d.format() << "\n";
        (d.isError() ? errors : warnings)++;
    }
    if (errors)
        std::cerr << file << ": " << errors << " error(s), " << warnings
                  << " warning(s); the pipeline is invalid\n";
    return errors;
}

} // namespace

int main(int argc, char **argv)
{
    using namespace tideline;
    runner::CliOptions opt;
    std::string usageError = runner::parseCli(argc, argv, opt);
    if (opt.help) {
        std::cout << runner::usage();
        return 0;
    }
    if (opt.version) {
        std::cout << "tideline-run " << TIDELINE_VERSION << " (pipeline format tideline/1)\n";
        return 0;
    }
    if (!usageError.empty()) {
        std::cerr << "tideline-run: " << usageError << "\n";
        return 2;
    }

    LoadResult loaded = loadSpecFile(opt.pipeline);
    int errors = printDiagnostics(loaded.diagnostics, opt.pipeline);
    if (errors || !loaded.spec)
        return 2;
    if (opt.validateOnly) {
        std::cerr << opt.pipeline << ": valid";
        std::size_t warnings = loaded.diagnostics.size();
        if (warnings)
            std::cerr << " (" << warnings << " warning(s))";
        std::cerr << "\n";
        return 0;
    }

    std::ofstream metricsOut;
    if (!opt.metricsFile.empty()) {
        metricsOut.open(opt.metricsFile, std::ios::app);
        if (!metricsOut) {
            std::cerr << "tideline-run: cannot open metrics file " << opt.metricsFile << "\n";
            return 1;
        }
    }

    JobOptions jo;
    jo.baseDir = std::filesystem::absolute(opt.pipeline).parent_path().string();
    jo.metricsIntervalMs = opt.metricsIntervalMs;
    jo.fresh = opt.fresh;
    jo.checkpointDirOverride = opt.checkpointDir;
    jo.resetState = opt.resetState;
    jo.restoreFrom = opt.restoreFrom;
    jo.savepointOnStop = opt.savepointDir;
    jo.log = [](const std::string &line) { std::cerr << "tideline-run: " << line << "\n"; };
    if (metricsOut.is_open())
        jo.onMetrics = [&metricsOut](const observe::MetricsSnapshot &s) {
            for (const auto &n : s.nodes)
                metricsOut << nodeMetricsLine(n, s.takenAtMs) << "\n";
            metricsOut << runMetricsLine(s) << "\n";
            metricsOut.flush();
        };

    std::string error;
    auto job = Job::create(*loaded.spec, jo, error);
    if (!job) {
        std::cerr << "tideline-run: " << error << "\n";
        return 1;
    }
    g_job.store(job.get());
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);

    Job::Status status = job->run();
    g_job.store(nullptr);
    if (status == Job::Status::Failed) {
        std::cerr << "tideline-run: " << job->failure() << "\n";
        return 1;
    }
    auto snap = job->snapshot();
    std::cerr << "tideline-run: " << (status == Job::Status::Stopped ? "stopped" : "done") << ": "
              << snap.recordsRead << " records read in " << (snap.takenAtMs - snap.startedAtMs)
              << " ms\n";
    return 0;
}
