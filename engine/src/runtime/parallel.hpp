#pragma once
// Parallel keyed stages (settings.parallelism, tideline-run --parallelism; ARCHITECTURE.md
// "Parallel execution"). A keyed node (a keyed window, dedup) runs as N operator instances,
// instance k always on worker thread k; in the graph it is one ParallelStage, an Operator the
// loop drives like any other:
//   - processRecord: the record's key (encoded as the operator encodes it) picks a key group
//     (hash % kKeyGroups) and the key group an instance (kg * N / kKeyGroups, as Flink assigns
//     key groups to subtasks); the record is appended to that instance's input of the open
//     round, as one step of the round.
//   - processWatermark: appended to every instance's input, as one step: each instance sees
//     its keys' records in arrival order with every watermark at the place the single
//     threaded node saw it, so every decision it takes (late, fire, evict) is the same.
//   - rounds go to the workers (WorkerPool) when big enough or on the loop's tick; a worker
//     runs its instance over its input, capturing what the instance emits, each output tagged
//     with the step that caused it.
//   - the loop thread collects finished rounds in order and replays their outputs through the
//     node's Output step by step: a record step's outputs as the one instance emitted them; a
//     watermark step's outputs merged across instances into the contract's order (window_end,
//     window_start, key, as the window sorts one instance's firings), then the watermark. So
//     the node emits exactly the sequence the single instance would have.
//   - checkpoints and savepoints (issue 22): before the snapshot the loop quiesces every stage
//     (quiesce: the open round handed over, every round replayed: no record is on a worker,
//     every instance has seen every watermark the stage got); the stage then saves its
//     instances as ONE state in the single-instance node's format (checkpoint/keyed_state.hpp:
//     snapshotMerged), and a restore at any M splits that state by key group, each instance
//     keeping the keys routing would send it (restoreKeyed). Parallelism is in neither the
//     state nor its fingerprint: a checkpoint taken at N restores at M, or at 1.
// [Threading] An instance is touched by its worker only while a round is in flight, and by the
// loop thread only when no round is (finish, quiesce and the snapshot after it, restore,
// destruction); outputs, fate counts and metrics cross over in the round, handed back under
// the pool's mutex.

#include "operators/keys/group_key_codec.hpp"
#include "operators/keys/hash.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/sources/chunk_runner.hpp"
#include "operators/window/aggregates.hpp"

#include <tideline/engine/operator.hpp>
#include <tideline/engine/record_json.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace tideline::fusable {
class PreKeyed;
class PreAggregated;
} // namespace tideline::fusable

namespace tideline::parallel {

/// Key groups: the unit keyed state is assigned to instances by (Flink's max parallelism).
/// The most instances a stage can have.
inline constexpr int kKeyGroups = 128;

inline int instanceOfKeyGroup(int keyGroup, int n)
{
    return keyGroup * n / kKeyGroups;
}

/// Key group of a key encoded as the operator encodes it, from its keys::hashBytes: what
/// routing and a restore split by key (parallel_checkpoint.cpp) both use. The fused path hands
/// the hash on to the instance, whose table then does not hash the key again.
inline int keyGroupOfHash(std::uint64_t hash)
{
    // The hash mixed once more and its top bits, so that the bits the instances' own tables
    // use for slots and tags stay evenly spread inside each instance.
    static_assert(kKeyGroups == 128);
    return static_cast<int>((hash * 0x9E3779B97F4A7C15ull) >> 57); // 7 bits
}
inline int keyGroupOf(std::string_view key)
{
    return keyGroupOfHash(keys::hashBytes(key));
}

struct Round;
class Capture;
struct OutputPool;
class ParallelStage;

/// N worker threads; worker k runs instance k of every parallel stage, tasks in FIFO order.
/// Sources' chunks (parsing a piece of a file, generating an index range) go to a queue any
/// worker takes from when its own queue is empty (operators/sources/chunk_runner.hpp).
class WorkerPool final : public sources::ChunkRunner
{
public:
    explicit WorkerPool(int n);
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    int size() const { return static_cast<int>(m_workers.size()); }
    /// Hands instance k's part of the round to worker k (loop thread).
    void submit(ParallelStage &stage, Round &round);
    /// Is every instance done with the round? (loop thread)
    bool done(const Round &round);
    /// Blocks until every instance is done with the round (loop thread).
    void wait(const Round &round);

    int threads() const override { return size(); }
    void submitChunk(sources::ChunkTask &task) override;
    void waitChunk(sources::ChunkTask &task) override;
    void cancelChunk(sources::ChunkTask &task) override;

private:
    struct Task
    {
        ParallelStage *stage;
        Round *round;
    };
    void work(int k);

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::vector<std::deque<Task>> m_queues;
    std::deque<sources::ChunkTask *> m_chunks; ///< for any worker
    std::vector<std::thread> m_workers;
    bool m_stop = false;
    /// What the loop thread is blocked on in m_done (a Round or a ChunkTask), else null. A
    /// worker wakes it only for that: woken for every chunk and round that finished, it ran a
    /// few microseconds and slept again about a thousand times per 2M-line file, each time
    /// taking a core from a worker (worker_pool.cpp).
    const void *m_awaited = nullptr;
    template<class Done>
    void awaitOnLoop(std::unique_lock<std::mutex> &lock, const void *what, Done done);
    /// The loop thread runs chunks while it waits only when a core is left over for it: with
    /// as many workers as cores, a chunk on the loop thread is a third thread on two cores,
    /// taking turns with the worker whose instance the loop is waiting for.
    bool m_loopRunsChunks = false;
};

/// What a stage needs to know of the node it runs in parallel.
struct StageConfig
{
    int node = -1;                 ///< runtime node index (Output, fate rows)
    bool window = false;           ///< window (merge fired results by key) or dedup
    std::vector<std::string> keys; ///< key field paths, canonical
    /// Free each input record on the worker once its instance ran it, not in the loop thread's
    /// replay: when the sources make their records on the workers (parallel_source.cpp), the
    /// buffers then go back to the pool of a thread that allocates records.
    bool freeOnWorker = false;
    /// Records of other nodes for sinks that also read this stage arrive on inputs 1.. (entry
    /// = input - 1) and are handed back, in order among the stage's outputs, through this.
    std::function<void(int entry, Record &&record)> deliverDeferred;
};

class ParallelStage final : public Operator
{
public:
    ParallelStage(StageConfig cfg,
                  std::vector<std::unique_ptr<Operator>> instances,
                  WorkerPool &pool,
                  OutputTarget &runtime);
    ~ParallelStage() override;

    void processRecord(int input, Record &&record, Output &out) override;
    void processWatermark(Timestamp w, Output &out) override;
    /// Hands the open round to the workers and replays every round they finished.
    void onTick(std::int64_t nowMs, Output &out) override;
    /// Every round replayed, then each instance's finish (loop thread, workers idle).
    void finish(Output &out) override;
    void reportMetrics(observe::NodeMetrics &m) const override;
    /// The single-instance node's fingerprint: parallelism does not shape the state.
    std::string stateFingerprint() const override;
    /// Hands the open round to the workers and replays every round in flight (loop thread):
    /// afterwards the instances are idle and hold everything the stage was given. The loop
    /// calls it before every checkpoint or savepoint (RuntimePort::quiesce).
    void quiesce(Output &out);
    /// The instances' state merged into the single-instance node's (only when quiesced).
    void snapshotState(StateWriter &w) const override;
    /// The single-instance format, split: instance k keeps the keys of its key groups.
    void restoreState(StateReader &r) override;
    // notifyCheckpointComplete is not forwarded to the instances: it comes at a later tick,
    // when rounds may be on the workers, and the keyed operators run in parallel (windows,
    // dedup) have nothing to commit.
    /// Largest event time among the records it was given for its instances (not the passed
    /// through ones): the node's max_event_time.
    Timestamp maxEventTime() const { return m_maxTime; }

    /// Worker k: runs instance k over its input of the round.
    void runInstance(int k, Round &round) noexcept;

    // The fused path (fused_source.hpp, parallel_fused.cpp): rounds built on the workers from
    // one chunk of the source each, records already stamped and routed to their instance.
    /// A round to build a chunk into: a replayed one (its record slots warm), else a new one.
    std::unique_ptr<Round> takeFusedRound();
    /// Hands a built round to the workers (loop thread; its wStart set), after the open one.
    void submitFused(std::unique_ptr<Round> round, Output &out);
    int instanceCount() const { return static_cast<int>(m_instances.size()); }
    /// The aggregates when every instance takes a record's aggregate inputs instead of the
    /// record (fusable::PreAggregated), else null.
    const std::vector<window::AggSpec> *preAggregates() const;
    const StageConfig &config() const { return m_cfg; }

private:
    void runFused(int k, Round &round) noexcept;
    void replayFused(Round &round, Output &out);
    /// The watermark the fused rounds handed over reach: the watermark node's own emission of
    /// it afterwards is already in them.
    Timestamp m_fusedW = kMinTime;
    bool m_inFusedReplay = false;       ///< a deferred record now is in order: deliver it at once
    std::vector<Timestamp> m_fusedSeen; ///< per instance: its watermark (its worker only)
    std::vector<std::unique_ptr<Round>> m_fusedSpare;
    /// Per instance: it takes a record with its key encoded already (null: processRecord).
    std::vector<fusable::PreKeyed *> m_preKeyed;
    /// Per instance: it takes aggregate inputs (null: records), and its parser of the lines of
    /// a late record given as inputs (its worker only).
    std::vector<fusable::PreAggregated *> m_preAggregated;
    std::vector<std::unique_ptr<RecordParser>> m_lateParsers;

    void submitOpen();
    /// Replays finished rounds from the front; `all`: waits for every round in flight.
    void collect(bool all, Output &out);
    void replay(Round &round, Output &out);
    std::uint32_t nextStep();

    StageConfig m_cfg;
    std::vector<std::unique_ptr<Operator>> m_instances;
    WorkerPool &m_pool;
    OutputTarget &m_runtime;
    keys::GroupKeyCodec m_groupKey; ///< window keys, as the window encodes them
    keys::KeyEncoder m_dedupKey;    ///< dedup keys, as dedup encodes them
    std::string m_keyBuf;
    Timestamp m_maxTime = kMinTime;
    /// Per instance: the open round's marks it was given already (a watermark item before
    /// its next record, or at submit, covers the rest).
    std::vector<std::uint32_t> m_marksGiven;
    void giveMarks(std::size_t k);
    bool m_finished = false;
    bool m_poolSized = false;
    std::unique_ptr<Round> m_open;
    std::deque<std::unique_ptr<Round>> m_inFlight;
    std::vector<std::unique_ptr<Round>> m_spare; ///< replayed rounds, reused
    /// Per instance, its metrics after the last round replayed (reportMetrics sums them).
    std::vector<observe::NodeMetrics> m_instanceMetrics;
    /// Firings' output vectors, passed from round to round (output_pool.hpp); before the
    /// captures, which fill them.
    std::unique_ptr<OutputPool> m_outputs;
    /// Per instance: the OutputTarget its worker captures outputs into.
    std::vector<std::unique_ptr<Capture>> m_captures;
};

} // namespace tideline::parallel
