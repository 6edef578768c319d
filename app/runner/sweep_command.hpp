#pragma once
// tideline-run --sweep: the what-if sweep over the engine's sweep API (tideline/engine/sweep.hpp).

#include "cli_options.hpp"
#include "replay_input.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <string>

namespace tideline::runner {

/// A combination's input when it is not the pipeline's own sources (a replayed recording).
using SweepInput = ReplayedInput;

/// Checks the --sweep specs against `spec`, runs every combination and prints the table on
/// stdout. Returns the exit status: 0 every combination ran, 2 a bad --sweep spec or an
/// unbounded input, 1 a combination failed (its row says why) or the sweep was interrupted.
int runSweepCommand(const CliOptions &opt,
                    const PipelineSpec &spec,
                    const std::string &baseDir,
                    const SweepInput &input = {});

} // namespace tideline::runner
