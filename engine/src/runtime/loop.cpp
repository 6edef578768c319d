// The loop: pulls from the sources in turn (a batch of at most JobOptions::batchSize each) and
// lets each batch run depth-first to completion, so between two batches no record is in
// flight: that is where ticks, checkpoints and rebalances happen. A RecoverableError restores
// the last completed checkpoint and goes round again (restart.cpp).

#include "checkpoint/coordinator.hpp"
#include "runtime/recoverable.hpp"
#include "runtime/runtime.hpp"

#include <tideline/engine/record_replay.hpp>

#include <algorithm>

namespace tideline {

void Runtime::tick(std::int64_t now)
{
    m_lastTickMs = now;
    for (int v : m_order) {
        Output out(*this, v);
        m_nodes[static_cast<std::size_t>(v)].op->onTick(now, out);
    }
    if (m_checkpointsLive)
        m_checkpoints->onTick(now);
    if (now - m_lastPublishMs >= 33)
        publish(false);
}

Job::Status Runtime::runFor(std::int64_t maxRecords)
{
    if (m_done)
        return m_final;
    if (!m_opened) {
        m_opened = true;
        m_startMs = m_clock->nowMs();
        m_lastTickMs = m_lastPublishMs = m_lastCallbackMs = m_startMs;
    }
    std::int64_t budget = maxRecords;
    // A RecoverableError restores the last checkpoint and goes round again.
    for (bool again = true; again;) {
        again = false;
        try {
            while (budget > 0) {
                if (stopRequested()) {
                    m_final = Job::Status::Stopped;
                    break;
                }
                bool produced = false;
                bool allFinished = true;
                for (std::size_t k = 0; k < m_sources.size() && budget > 0; ++k) {
                    int v = m_sources[(m_sourceCursor + k) % m_sources.size()];
                    Node &node = m_nodes[static_cast<std::size_t>(v)];
                    if (node.sourceFinished)
                        continue;
                    allFinished = false;
                    std::int64_t before = m_recordsRead;
                    Output out(sourceTarget(), v);
                    auto want
                        = static_cast<int>(std::min<std::int64_t>(budget, m_options.batchSize));
                    SourceOperator::Poll r = SourceOperator::Poll::Waiting;
                    try {
                        r = node.source->poll(out, want);
                    } catch (const RecoverableError &) {
                        throw;
                    } catch (const std::exception &) {
                        m_sourceFailed = true;
                        throw;
                    }
                    budget -= std::max<std::int64_t>(m_recordsRead - before,
                                                     r == SourceOperator::Poll::Produced ? 1 : 0);
                    if (r == SourceOperator::Poll::Produced)
                        produced = true;
                    else if (r == SourceOperator::Poll::Finished) {
                        node.sourceFinished = true;
                        if (m_options.capture) // --record: where this source's input ended
                            m_options.capture->endOf(node.spec->id);
                        produced = true;
                        if (m_sparkBatches) // Spark: the input's last batch ends first
                            sparkSourceEnded();
                        emitWatermark(v, kMaxTime);
                    }
                }
                m_sourceCursor = (m_sourceCursor + 1) % std::max<std::size_t>(1, m_sources.size());
                if (allFinished) {
                    m_final = Job::Status::Finished;
                    break;
                }
                std::int64_t now = m_clock->nowMs();
                if (now != m_lastTickMs)
                    tick(now);
                else if (m_checkpoints && m_checkpoints->savepointRequested())
                    // A clock that left out a pause (the designer's) can give the same ms as
                    // the last tick after one stepped record: a savepoint asked for while
                    // paused must not wait for the clock to move.
                    m_checkpoints->onTick(now);
                if (!produced)
                    m_clock->sleepMs(1);
            }
        } catch (const RecoverableError &e) {
            again = restartFromCheckpoint(e.what());
            if (!again) {
                fail(e.what()); // keeps the restart's own failure when it set one
                m_final = Job::Status::Failed;
            }
        } catch (const std::exception &e) {
            if (m_sourceFailed)
                settleAfterSourceFailure();
            fail(e.what());
            m_final = Job::Status::Failed;
        }
    }
    if (m_final == Job::Status::Running) {
        publish(false);
        return Job::Status::Running;
    }
    if (m_final != Job::Status::Failed) {
        try {
            if (m_checkpointsLive)
                finishCheckpoints();
            finishAll();
        } catch (const RecoverableError &e) {
            // E.g. the sink's last flush at the end of input: restore and read to the end again.
            if (m_final == Job::Status::Finished && restartFromCheckpoint(e.what())) {
                m_final = Job::Status::Running;
                return runFor(std::max<std::int64_t>(budget, 1));
            }
            fail(e.what());
            m_final = Job::Status::Failed;
        } catch (const std::exception &e) {
            fail(e.what());
            m_final = Job::Status::Failed;
        }
    }
    m_done = true;
    publish(true);
    return m_final;
}

void Runtime::finishCheckpoints()
{
    Status s = m_checkpoints->onBeforeFinish(m_final);
    if (const Status &last = m_checkpoints->finalCheckpoint(); !last.ok())
        // Like a Flink job whose final checkpoint failed after its sinks flushed: the output
        // is complete, the failure is reported, and only the restore point is older. Nothing
        // is lost: the next start restores the last completed checkpoint, its sinks truncate
        // back to that commit point, and the records since then are processed again.
        log(std::string("warning: the run ")
            + (m_final == Job::Status::Finished ? "finished" : "stopped")
            + " but its final checkpoint failed (" + last.message()
            + "); a next start without --fresh resumes from the last completed checkpoint and "
              "processes the input after it again");
    if (!s.ok())
        throw std::runtime_error(s.message());
}

void Runtime::finishAll()
{
    for (int v : m_order) {
        Output out(*this, v);
        try {
            m_nodes[static_cast<std::size_t>(v)].op->finish(out);
        } catch (const RecoverableError &) {
            throw; // already names its node; runFor() restores the last checkpoint
        } catch (const std::exception &e) {
            throw std::runtime_error("node `" + m_nodes[static_cast<std::size_t>(v)].spec->id
                                     + "`: " + e.what());
        }
    }
}

} // namespace tideline
