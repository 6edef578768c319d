#pragma once
// The checkpoint writer: takes one checkpoint or savepoint of the job and makes it durable.
//
// [Threading] snapshot() runs on the loop thread, between two source batches, where no record
// is in flight (the loop pushes each batch depth-first to completion): that point is a
// consistent cut of the whole DAG without barriers, so checkpoint N is every node's
// snapshotState() + fingerprint + the runtime's side of the node (RuntimePort::captureNode).
// persist() then writes the bytes to a fresh RocksDB (state_db.hpp) and makes manifest-N.json
// durable (temp, fsync, rename, fsync folder); for periodic checkpoints it runs on a writer
// thread of its own so that the loop keeps processing (Flink's asynchronous snapshot phase).
// That thread touches only its Attempt: the captured bytes, and the operators' deferred
// snapshot closures (StateWriter::defer, e.g. spilled keys read through a RocksDB snapshot),
// whose owners promise they are safe to run beside the loop. Only when the loop sees it done
// does complete() call notifyCheckpointComplete(N) on every operator and apply retention.
// At most one attempt is in flight.

#include "checkpoint/runtime_port.hpp"
#include "checkpoint/state_db.hpp"
#include "checkpoint/store.hpp"
#include "checkpoint/task_pointer.hpp"

#include <tideline/engine/state_io.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace tideline::checkpoint {

class Writer
{
public:
    enum class Kind { Checkpoint, Savepoint };

    /// `settings` and `sharedDir` (the consumer group's folder, "" outside one) are the
    /// coordinator's and outlive the writer.
    Writer(RuntimePort &rt, const Settings &settings, const std::string &sharedDir);
    ~Writer();
    Writer(const Writer &) = delete;
    Writer &operator=(const Writer &) = delete;

    /// Takes checkpoint (into the checkpoint dir) or savepoint (into `target`) number `id`.
    /// Synchronous unless `async`: then the outcome comes from drain() (an ok Status here
    /// only means the attempt started). Failures are also logged and recorded.
    [[nodiscard]] Status take(Kind kind,
                              std::int64_t id,
                              const std::string &target,
                              const std::string &endStatus,
                              bool async);
    /// An asynchronous attempt is in flight.
    bool inFlight() const { return m_pending != nullptr; }
    /// The in-flight attempt has been written (drain() will not wait).
    bool written() const;
    /// Waits for the in-flight attempt, if any, and completes it. Its outcome (ok when none).
    [[nodiscard]] Status drain();

private:
    struct Attempt
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

    /// Loop thread: every node's state. false with a.error on failure.
    bool snapshot(Attempt &a, const std::string &endStatus);
    /// Any thread: state DB + manifest + task pointers (crash points live here).
    static void persist(Attempt &a);
    /// Loop thread: notify operators, retention, figures.
    [[nodiscard]] Status complete(Attempt &a);
    /// Loop thread: keeps the written state buffers for the next snapshot.
    void recycle(Attempt &a);
    /// Checkpoints a partition's pointer still names (never deleted by retention).
    std::vector<std::int64_t> pointedAt() const;

    RuntimePort &m_rt;
    const Settings &m_settings;
    const std::string &m_sharedDir;
    std::unique_ptr<Attempt> m_pending; ///< the in-flight asynchronous attempt
    /// Per node (index), the buffer of its last large snapshot, reused by the next one so the
    /// loop does not fault in fresh pages for every checkpoint (costs one state copy of RAM).
    std::vector<std::string> m_spare;
};

} // namespace tideline::checkpoint
