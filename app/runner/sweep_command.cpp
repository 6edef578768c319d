#include "sweep_command.hpp"

#include "log.hpp"

#include <tideline/engine/sweep.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

namespace tideline::runner {

namespace {

std::atomic<bool> g_cancel{false}; // lock-free: set from the signal handler

extern "C" void onSweepSignal(int)
{
    if (g_cancel.exchange(true))
        std::_Exit(130); // a second Ctrl-C means "now"
}

} // namespace

int runSweepCommand(const CliOptions &opt,
                    const PipelineSpec &spec,
                    const std::string &baseDir,
                    const SweepInput &input)
{
    sweep::Plan plan;
    for (const auto &text : opt.sweeps) {
        sweep::Axis axis;
        std::string e = sweep::parseAxis(text, spec, axis);
        if (e.empty())
            e = sweep::addAxis(plan, std::move(axis));
        if (!e.empty()) {
            log::error(e, {{"file", opt.pipeline}});
            return 2;
        }
    }
    // --replay DIR: every combination runs on the recording instead of the sources.
    SweepInput replayInput;
    if (!opt.replayDir.empty() && !input.configureJob)
        if (std::string e = openReplayedInput(opt, spec, replayInput); !e.empty()) {
            log::error(e, {{"file", opt.pipeline}});
            return 2;
        }
    const SweepInput &in = replayInput.configureJob ? replayInput : input;
    // A replay (a recording in place of the sources, SweepInput) makes any pipeline bounded;
    // without one the sources themselves must end.
    if (std::string e = in.bounded ? std::string() : sweep::checkBounded(spec, "--sweep");
        !e.empty()) {
        log::error(e, {{"file", opt.pipeline}});
        return 2;
    }
    sweep::Options so;
    so.baseDir = baseDir;
    so.jobs = opt.sweepJobs;
    so.configureJob = in.configureJob;
    so.attachJob = in.attachJob;
    so.skipBoundedCheck = in.bounded;
    so.cancel = &g_cancel;
    so.onProgress = [](const sweep::Progress &p) {
        log::info("sweep: " + std::to_string(p.done) + "/" + std::to_string(p.total)
                  + " combinations done");
    };
    std::signal(SIGINT, onSweepSignal);
    std::signal(SIGTERM, onSweepSignal);
    std::signal(SIGHUP, onSweepSignal);
    const sweep::Result result = sweep::run(spec, plan, so);
    sweep::write(result, *sweep::parseFormat(opt.sweepFormat), std::cout);
    if (result.cancelled) {
        log::error("--sweep: interrupted; combinations not run say \"cancelled\"");
        return 1;
    }
    int failed = 0;
    for (const auto &r : result.rows)
        failed += r.error.empty() ? 0 : 1;
    if (failed) {
        log::error("--sweep: " + std::to_string(failed) + " of "
                   + std::to_string(result.rows.size())
                   + " combination(s) failed (see their rows)");
        return 1;
    }
    log::info("sweep: " + std::to_string(result.rows.size()) + " combinations in "
              + std::to_string(result.wallMs) + " ms");
    return 0;
}

} // namespace tideline::runner
