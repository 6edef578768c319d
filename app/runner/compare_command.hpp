#pragma once
// tideline-run --compare-engines: the pipeline once per semantics mode, over the engine's
// compare API (tideline/engine/compare_engines.hpp).

#include "cli_options.hpp"

#include <tideline/engine/spec.hpp>

#include <string>

namespace tideline::runner {

/// Runs the pipeline under each engine asked for (all three by default; --replay DIR feeds each
/// run the recording) and prints the report on stdout. Returns the exit status: 0 all engines
/// ran and agree, 1 they differ (or one could not run, or it was interrupted), 2 the pipeline
/// cannot be compared (unbounded input, no sink whose output can be compared, a bad recording).
int runCompareCommand(const CliOptions &opt, const PipelineSpec &spec, const std::string &baseDir);

} // namespace tideline::runner
