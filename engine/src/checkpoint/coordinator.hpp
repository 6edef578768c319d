#pragma once
// Checkpoint coordinator: the scheduler. It decides when a checkpoint or savepoint is taken
// (every interval_ms from the end of the previous attempt, a savepoint asked for from another
// thread, the final checkpoint when the run ends, a hand-over on revoke) and wires the parts
// that do the work: the store (store.hpp: the folder), the writer (writer.hpp: snapshot and
// persist), the restorer (restorer.hpp) and, in a consumer group, the member (member.hpp).
// It sees the job only through RuntimePort.
//
// [Threading] Every member runs on the loop thread, except requestSavepoint(), callable from
// any thread (it queues the request under a mutex; the loop serves it at its next tick).

#include "checkpoint/member.hpp"
#include "checkpoint/restorer.hpp"
#include "checkpoint/runtime_port.hpp"
#include "checkpoint/store.hpp"
#include "checkpoint/writer.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tideline::checkpoint {

using SavepointDone = std::function<void(bool ok, const std::string &message)>;

class Coordinator
{
public:
    explicit Coordinator(RuntimePort &rt);
    ~Coordinator();

    /// Reads the settings, configures the state backends and restores (newest complete
    /// checkpoint, or JobOptions::restoreFrom) unless fresh. Fails with the reason the job
    /// must not run.
    [[nodiscard]] Status init();

    /// Loop thread, between records (now = clock time): completes a written checkpoint,
    /// serves savepoint requests, starts the next checkpoint when it is due.
    void onTick(std::int64_t nowMs);
    /// The run stops (finished or stopped), before sinks are finished: the final checkpoint,
    /// then the savepoint on stop. Fails when the savepoint on stop fails (the run fails).
    /// A failed final checkpoint does not fail the run (see finalCheckpoint()).
    [[nodiscard]] Status onBeforeFinish(Job::Status status);
    /// The final checkpoint's outcome, once onBeforeFinish() ran (ok when none was taken).
    const Status &finalCheckpoint() const { return m_final; }
    /// Thread-safe: the loop writes a savepoint to `dir` at its next tick.
    void requestSavepoint(const std::string &dir, SavepointDone done);

    const Settings &settings() const { return m_settings; }

    // --- Partition tasks (runtime/partition_tasks.cpp calls these; member.hpp) ---
    std::int64_t adoptPartition(int section, int p) { return m_member.adoptPartition(section, p); }
    /// A synchronous checkpoint that still includes the leaving partitions (and writes their
    /// pointers). Its id, or -1 (checkpoints off, or it failed: logged).
    std::int64_t handOver(const std::vector<int> &partitions);

private:
    [[nodiscard]] Status
    take(Writer::Kind kind, const std::string &target, const std::string &endStatus, bool async);
    /// Completes the in-flight checkpoint, if any (its outcome is logged and recorded).
    void drain();
    void serveSavepointRequests();

public:
    /// A savepoint was asked for and not taken yet (any thread).
    [[nodiscard]] bool savepointRequested() const
    {
        std::lock_guard lock(m_requestMutex);
        return !m_requests.empty();
    }

private:
    RuntimePort &m_rt;
    Settings m_settings;
    GroupMember m_member;
    Writer m_writer;
    std::int64_t m_nextId = 1;
    std::int64_t m_lastEndMs = 0;
    bool m_finalTaken = false;
    Status m_final;

    mutable std::mutex m_requestMutex;
    std::vector<std::pair<std::string, SavepointDone>> m_requests;
    std::atomic<bool> m_ended{false};
};

} // namespace tideline::checkpoint
