#pragma once
// `tideline-run --expect DIR` and `--update-expected`: run a bounded pipeline and compare each
// sink's output with DIR/<sink id>.jsonl (or .csv), or write those files.
//
// Why the run writes into a temporary folder: a check must not touch what the pipeline's real
// runs produced (their output files, upsert tables and checkpoints), and must not resume from
// those checkpoints. So every sink's path (and the checkpoint dir) is pointed into a fresh
// folder; the pipeline otherwise runs exactly as written, checkpoints and staging included.
// `sink.console` is captured as the JSON lines it prints; a sink.upsert table is compared by its
// rows in key order (what `--dump-table` prints).

#include "output_diff.hpp"

#include <tideline/engine/spec.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace tideline::runner {

struct SinkCapture
{
    std::string sinkId;
    std::string kind;         ///< the sink's kind as written in the pipeline
    std::string capturedPath; ///< where this run writes it (inside the temporary folder)
    std::string expectedName; ///< "<sink id>.jsonl" or "<sink id>.csv"
    bool jsonLines = true;
    bool table = false; ///< a sink.upsert folder, read back with dumpUpsertTable
    RowIdentity identity;
};

/// Points every sink (and the checkpoint dir) of `spec` into `tempDir` and says what each
/// sink's output will be compared as. Sinks whose output is not a file (sink.kafka,
/// sink.discard) are listed in `unchecked` with the reason. Refuses (returns the error) a
/// pipeline that would never end: --expect needs bounded inputs.
[[nodiscard]] std::string prepareExpect(PipelineSpec &spec,
                                        const std::string &tempDir,
                                        std::vector<SinkCapture> &captures,
                                        std::vector<std::string> &unchecked);

/// After the run: compares (or, with `update`, writes) each capture against `expectedDir`,
/// printing a report to `out`. Returns the exit status: 0 all equal (or written), 1 a
/// difference or a missing/stale expected file.
[[nodiscard]] int checkExpected(const std::vector<SinkCapture> &captures,
                                const std::vector<std::string> &unchecked,
                                const std::string &expectedDir,
                                bool update,
                                std::ostream &out);

} // namespace tideline::runner
