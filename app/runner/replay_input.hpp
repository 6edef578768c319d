#pragma once
// `--replay DIR` for the commands that run a pipeline several times (--sweep, --compare-engines):
// every run replays the recording on its own virtual clock in place of the pipeline's sources.

#include "cli_options.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <functional>
#include <string>

namespace tideline::runner {

/// Where each run's input comes from when it is not the pipeline's own sources. Empty: the
/// sources, which must end.
struct ReplayedInput
{
    std::function<std::string(PipelineSpec &, JobOptions &)> configureJob;
    std::function<void(const JobOptions &, Job &)> attachJob; ///< once the Job exists
    bool bounded = false; ///< configureJob makes every source end (a recording)
};

/// For `opt.replayDir`: checks the recording against `spec` (the error says which sources do
/// not match) and sets `out` so that each run opens its own Replayer (each Job on its own
/// thread) and stops where the recording runs out. Logs the recording's notes as warnings.
/// Returns "" or the error.
[[nodiscard]] std::string
openReplayedInput(const CliOptions &opt, const PipelineSpec &spec, ReplayedInput &out);

} // namespace tideline::runner
