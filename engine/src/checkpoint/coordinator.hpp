#pragma once
// Checkpoint coordinator: takes checkpoints and savepoints of a Runtime and restores them.
//
// [Threading] The snapshot runs on the pipeline loop thread, between two source batches, where
// no record is in flight (the loop pushes each batch depth-first to completion). That point is
// a consistent cut of the whole DAG without barriers, so checkpoint N is simply: every node's
// snapshotState() + fingerprint + the runtime's watermarks (sinks make their commit point
// durable inside snapshotState). The bytes are then written, by one writer thread so that the
// loop keeps processing (Flink's asynchronous snapshot phase), to a fresh RocksDB
// (state_db.hpp), then manifest-N.json is made durable (temp, fsync, rename, fsync folder).
// Only when the loop sees that finished does it call notifyCheckpointComplete(N) on every
// operator and delete checkpoints beyond `keep`. At most one checkpoint is in flight; final
// checkpoints and savepoints are written synchronously. requestSavepoint() is the only member
// callable from other threads.

#include "checkpoint/manifest.hpp"
#include "checkpoint/state_db.hpp"
#include "checkpoint/task_pointer.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/observe/metrics.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tideline {
class Runtime;
}

namespace tideline::checkpoint {

struct Settings
{
    bool enabled = false; ///< periodic checkpoints configured
    std::int64_t intervalMs = 10000;
    std::string dir; ///< absolute or relative to the working directory
    int keep = 3;
};

/// settings.checkpoint (dir relative to the pipeline folder) with JobOptions overrides applied.
Settings resolveSettings(const PipelineSpec &spec, const JobOptions &options);

using SavepointDone = std::function<void(bool ok, const std::string &message)>;

class Coordinator
{
public:
    explicit Coordinator(Runtime &rt);
    ~Coordinator();

    /// Reads the settings and restores (newest complete checkpoint, or JobOptions::restoreFrom)
    /// unless fresh. Returns "" or the reason the job must not run.
    [[nodiscard]] std::string init();

    void onTick(std::int64_t nowMs);
    void onBeforeFinish(Job::Status status);
    /// Thread-safe: the loop writes a savepoint to `dir` at its next tick.
    void requestSavepoint(const std::string &dir, SavepointDone done);

    const Settings &settings() const { return m_settings; }

    // --- Partition tasks (task_handover.cpp; runtime/partition_tasks.cpp calls these) ---
    /// Restores partition `p`'s instances: from the newest task pointer (any member's), else
    /// from this member's own restored checkpoint, else empty. Returns the offset to resume at
    /// (-1: the source decides). Throws when saved state exists but cannot be used.
    std::int64_t adoptPartition(int section, int p);
    /// Takes a synchronous checkpoint that still includes the leaving partitions (and writes
    /// their pointers). Its id, or -1 (checkpoints off, or it failed: logged).
    std::int64_t handOver(const std::vector<int> &partitions);

private:
    enum class Kind { Checkpoint, Savepoint };
    struct Pending
    {
        Kind kind = Kind::Checkpoint;
        std::string root;    ///< checkpoint dir, or the savepoint folder
        std::int64_t t0 = 0; ///< steady ms at snapshot start
        Manifest manifest;
        std::vector<NodeBlob> blobs;
        /// Per node, a writer with deferred parts that persist() runs first (else empty).
        std::vector<std::unique_ptr<StateWriter>> deferred;
        std::vector<int> nodeOf; ///< per blob: the runtime node it came from
        /// Partition tasks: pointers to write once the manifest is durable.
        std::string sharedDir;
        std::vector<TaskPointer> pointers;
        // Written by persist():
        std::string error, cause;
        std::string manifestPath, stateDir;
        std::uint64_t bytes = 0;
        std::int64_t t1 = 0;
        std::thread thread;
        std::atomic<bool> done{false};
    };
    struct Candidate
    {
        std::int64_t id = 0;
        bool hasManifest = false;
        bool hasState = false;
    };

    /// Takes one checkpoint (into the checkpoint dir) or savepoint (into `target`).
    /// Synchronous unless `async`; returns "" or the failure (metrics and log updated).
    [[nodiscard]] std::string
    take(Kind kind, const std::string &target, const std::string &endStatus, bool async);
    /// Loop thread: every node's state. false with p.error on failure.
    bool snapshot(Pending &p, const std::string &endStatus);
    /// Any thread: state DB + manifest (crash points live here).
    static void persist(Pending &p);
    /// Loop thread: notify operators, retention, figures. Returns "" or the failure.
    [[nodiscard]] std::string complete(Pending &p);
    /// Loop thread: keeps the written state buffers for the next snapshot.
    void recycle(Pending &p);
    /// Waits for and completes the in-flight checkpoint, if any.
    void drain();
    void serveSavepointRequests();
    void deleteOldCheckpoints(std::int64_t newest);

    std::vector<Candidate> scan(const std::string &dir) const;
    [[nodiscard]] std::string restoreFromCheckpointDir(const std::string &dir,
                                                       bool explicitRestore);
    [[nodiscard]] std::string restoreFromSavepoint(const std::string &dir);
    /// Reads manifest + state and verifies every checksum. false with `why`.
    bool load(const std::string &manifestPath,
              const std::string &baseDir,
              Manifest &m,
              std::map<std::string, std::string> &blobs,
              std::string &why) const;
    /// Matches state to nodes by id, reports restored/new/incompatible, restores.
    [[nodiscard]] std::string apply(const Manifest &m,
                                    std::map<std::string, std::string> &blobs,
                                    const std::string &origin,
                                    bool verbose);
    void discardAll(const std::string &dir);
    /// Partition tasks: members/<member>/ under the shared dir, locked. "" or error.
    [[nodiscard]] std::string enterMemberDir();
    struct StashedNode
    {
        NodeEntry entry;
        std::string blob;
    };
    /// Restores partition p's instances from saved entries (by instance id). "" or error.
    [[nodiscard]] std::string restoreInstances(int section,
                                               int p,
                                               std::map<std::string, StashedNode> &saved,
                                               const std::string &origin);
    /// Empties partition p's instances.
    void resetInstances(int section, int p);
    void log(const std::string &line) const;
    void record(const observe::CheckpointInfo &info);

    Runtime &m_rt;
    Settings m_settings;
    std::int64_t m_nextId = 1;
    std::int64_t m_lastEndMs = 0;
    bool m_finalTaken = false;
    std::unique_ptr<Pending> m_pending; ///< the in-flight asynchronous checkpoint
    /// Per node (index), the buffer of its last large snapshot, reused by the next one so the
    /// loop does not fault in fresh pages for every checkpoint (costs one state copy of RAM).
    std::vector<std::string> m_spare;

    std::mutex m_requestMutex;
    std::vector<std::pair<std::string, SavepointDone>> m_requests;
    std::atomic<bool> m_ended{false};

    // Partition tasks.
    std::string m_sharedDir; ///< the group's shared checkpoint dir ("" = not in tasks mode)
    bool m_preferStash = false;
    /// Instances' state from this member's restored checkpoint (or --restore), per
    /// (section, partition), used when the partition is assigned and no pointer is newer.
    std::map<std::pair<int, int>, std::map<std::string, StashedNode>> m_stash;
};

std::string checkpointStateDirName(std::int64_t id);
std::string checkpointManifestName(std::int64_t id);

} // namespace tideline::checkpoint
