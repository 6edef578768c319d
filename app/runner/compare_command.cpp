#include "compare_command.hpp"

#include "log.hpp"
#include "replay_input.hpp"

#include <tideline/engine/compare_engines.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>

namespace tideline::runner {

namespace {

std::atomic<bool> g_cancel{false}; // lock-free: set from the signal handler

extern "C" void onCompareSignal(int)
{
    if (g_cancel.exchange(true))
        std::_Exit(130); // a second Ctrl-C means "now"
}

} // namespace

int runCompareCommand(const CliOptions &opt, const PipelineSpec &spec, const std::string &baseDir)
{
    ReplayedInput input;
    if (!opt.replayDir.empty())
        if (std::string e = openReplayedInput(opt, spec, input); !e.empty()) {
            log::error(e, {{"file", opt.pipeline}});
            return 2;
        }
    compare::Options co;
    co.baseDir = baseDir;
    if (!opt.compareEngineNames.empty())
        co.engines = opt.compareEngineNames;
    co.configureJob = input.configureJob;
    co.attachJob = input.attachJob;
    co.cancel = &g_cancel;
    if (std::string e = compare::check(spec, co, input.bounded); !e.empty()) {
        log::error("--compare-engines: " + e, {{"file", opt.pipeline}});
        return 2;
    }
    co.onRunFinished = [](const compare::EngineRun &r) {
        log::info("compare engines: " + compare::engineTitle(r.engine)
                  + (r.ran() ? " ran in " + std::to_string(r.wallMs) + " ms"
                             : " did not run: " + r.error));
    };
    std::signal(SIGINT, onCompareSignal);
    std::signal(SIGTERM, onCompareSignal);
    std::signal(SIGHUP, onCompareSignal);
    const compare::Report report = compare::run(spec, co);
    if (opt.compareFormat == "json")
        compare::writeJson(report, std::cout);
    else
        compare::printReport(report, std::cout);
    if (report.cancelled) {
        log::error("--compare-engines: interrupted");
        return 1;
    }
    return report.allAgree() ? 0 : 1;
}

} // namespace tideline::runner
