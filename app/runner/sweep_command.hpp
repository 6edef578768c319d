#pragma once
// tideline-run --sweep: the what-if sweep over the engine's sweep API (tideline/engine/sweep.hpp).

#include "cli_options.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <functional>
#include <string>

namespace tideline::runner {

/// Where the combinations' input comes from when it is not the pipeline's own sources: the hook
/// `--replay DIR` passes (each combination replays the recording in place of its sources, so
/// the input is bounded whatever the sources say). Empty: the sources, which must end.
struct SweepInput
{
    std::function<std::string(PipelineSpec &, JobOptions &)> configureJob;
    std::function<void(const JobOptions &, Job &)> attachJob; ///< once the Job exists
    bool bounded = false; ///< configureJob makes every source end (a recording)
};

/// Checks the --sweep specs against `spec`, runs every combination and prints the table on
/// stdout. Returns the exit status: 0 every combination ran, 2 a bad --sweep spec or an
/// unbounded input, 1 a combination failed (its row says why) or the sweep was interrupted.
int runSweepCommand(const CliOptions &opt,
                    const PipelineSpec &spec,
                    const std::string &baseDir,
                    const SweepInput &input = {});

} // namespace tideline::runner
