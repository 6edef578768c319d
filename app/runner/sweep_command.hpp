#pragma once
// tideline-run --sweep: the what-if sweep over the engine's sweep API (tideline/engine/sweep.hpp).

#include "cli_options.hpp"

#include <tideline/engine/spec.hpp>

#include <string>

namespace tideline::runner {

/// Checks the --sweep specs against `spec`, runs every combination and prints the table on
/// stdout. Returns the exit status: 0 every combination ran, 2 a bad --sweep spec or an
/// unbounded input, 1 a combination failed (its row says why) or the sweep was interrupted.
int runSweepCommand(const CliOptions &opt, const PipelineSpec &spec, const std::string &baseDir);

} // namespace tideline::runner
