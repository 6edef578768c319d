#pragma once
// tideline-run --record DIR / --replay DIR: the recorder or replayer around one run.

#include "cli_options.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/record_replay.hpp>

#include <memory>
#include <string>

namespace tideline::runner {

class RecordReplay
{
public:
    /// Before Job::create: opens the recording (--replay: checks it matches the pipeline's
    /// sources, turns the spec's checkpoints off and points `jo` at the feed and its clock) or
    /// prepares the folder (--record). "" or the error (exit 1).
    [[nodiscard]] std::string prepare(const CliOptions &opt, PipelineSpec &spec, JobOptions &jo);
    /// After Job::create, before run(): the recording's clock starts; a limit or the end of
    /// the recording stops `job`. "" or the error.
    [[nodiscard]] std::string start(Job &job);
    /// Called every metrics interval on the loop thread: what a kill would leave.
    void checkpoint();
    /// After the run: closes the recording and says what it holds. "" or the error.
    [[nodiscard]] std::string finish(Job::Status status);

private:
    std::unique_ptr<recording::Recorder> m_recorder;
    std::unique_ptr<recording::Replayer> m_replayer;
    std::string m_dir;
};

} // namespace tideline::runner
