#include "replay_input.hpp"

#include "log.hpp"

#include <tideline/engine/record_replay.hpp>

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

namespace tideline::runner {

namespace {

/// Every run's Replayer, kept until the command ends (the Jobs read from them).
struct Replayers
{
    std::mutex mutex;
    std::vector<std::unique_ptr<recording::Replayer>> open;
};

} // namespace

std::string openReplayedInput(const CliOptions &opt, const PipelineSpec &spec, ReplayedInput &out)
{
    std::ifstream in(opt.pipeline, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    auto probe = recording::Replayer::open(opt.replayDir, spec, text.str(), 0, error);
    if (!probe)
        return error;
    for (const auto &note : probe->notes())
        log::warning("--replay: " + note);
    auto replayers = std::make_shared<Replayers>();
    out.bounded = true;
    out.configureJob = [replayers, dir = opt.replayDir,
                        text = text.str()](PipelineSpec &run, JobOptions &jo) -> std::string {
        std::string openError;
        auto replayer = recording::Replayer::open(dir, run, text, 0, openError);
        if (!replayer)
            return openError;
        run.settings.erase("checkpoint"); // as for a single --replay
        jo.feed = replayer.get();
        jo.clock = &replayer->clock();
        std::lock_guard lock(replayers->mutex);
        replayers->open.push_back(std::move(replayer));
        return {};
    };
    // A recording of a stopped run (a source that never ended in it) ends the run where the
    // recording runs out, as a single --replay does.
    out.attachJob = [replayers](const JobOptions &jo, Job &job) {
        std::lock_guard lock(replayers->mutex);
        for (auto &r : replayers->open)
            if (r.get() == jo.feed)
                r->onExhausted = [&job] {
                    job.requestStop();
                };
    };
    return {};
}

} // namespace tideline::runner
