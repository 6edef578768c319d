// --record / --replay around one run of tideline-run (record_replay.hpp).

#include "record_replay.hpp"

#include "log.hpp"

#include <tideline/engine/spec.hpp>

#include <fstream>
#include <sstream>

namespace tideline::runner {

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

std::string RecordReplay::prepare(const CliOptions &opt, PipelineSpec &spec, JobOptions &jo)
{
    const std::string text = readFile(opt.pipeline);
    std::string error;
    if (!opt.replayDir.empty()) {
        m_dir = opt.replayDir;
        m_replayer = recording::Replayer::open(opt.replayDir, spec, text, opt.replaySpeed, error);
        if (!m_replayer)
            return error;
        for (const auto &note : m_replayer->notes())
            log::warning("--replay: " + note);
        // A replay is a run from the start on the recorded input: it neither restores nor
        // writes the pipeline's checkpoints (its positions are the recording's).
        if (spec.settings.erase("checkpoint") > 0)
            log::info("--replay: checkpoints are off for the replay");
        jo.feed = m_replayer.get();
        jo.clock = &m_replayer->clock();
        return {};
    }
    if (!opt.recordDir.empty()) {
        m_dir = opt.recordDir;
        recording::Limits limits{opt.recordMaxRecords, opt.recordMaxBytes, opt.recordMaxDurationMs};
        m_recorder
            = recording::Recorder::create(opt.recordDir, spec, text, limits,
                                          jo.clock ? *jo.clock : SystemClock::instance(), error);
        if (!m_recorder)
            return error;
        jo.capture = m_recorder.get();
    }
    return {};
}

std::string RecordReplay::start(Job &job)
{
    if (m_replayer)
        m_replayer->onExhausted = [&job, this] {
            log::info("--replay: the recording ends here (the recorded run was stopped): "
                      "stopping the replay too");
            (void)this;
            job.requestStop();
        };
    if (!m_recorder)
        return {};
    m_recorder->onStopped = [&job, this] {
        log::info("--record: " + m_recorder->stoppedBy() + ": the recording is complete, stopping");
        job.requestStop();
    };
    return m_recorder->begin();
}

void RecordReplay::checkpoint()
{
    if (m_recorder)
        m_recorder->checkpoint();
}

std::string RecordReplay::finish(Job::Status status)
{
    if (m_replayer) {
        for (const auto &note : m_replayer->info().notes)
            if (note.find("cut off") != std::string::npos)
                log::warning("--replay: " + note);
        log::info("--replay: " + std::to_string(m_replayer->replayed()) + " recorded records from "
                  + m_dir);
        return {};
    }
    if (!m_recorder)
        return {};
    const std::string why = status == Job::Status::Finished  ? "end of input"
                            : status == Job::Status::Stopped ? "stopped"
                                                             : "failed";
    if (std::string e = m_recorder->finish(why); !e.empty())
        return e;
    const recording::Manifest m = m_recorder->manifest();
    log::info("--record: " + std::to_string(m.records) + " records (" + std::to_string(m.bytes)
              + " bytes, " + std::to_string(m.durationMs) + " ms) from "
              + std::to_string(m.sources.size()) + " source(s) into " + m_dir + " (" + m.stoppedBy
              + ")");
    return {};
}

} // namespace tideline::runner
