#pragma once
// source.kafka: consumes one topic; values parsed as JSON (simdjson), Kafka metadata exposed
// as `_kafka.topic`, `_kafka.partition`, `_kafka.offset`, `_kafka.key`, `_kafka.timestamp`.
//
// Positions. Every assigned partition gets a concrete start offset (never a logical one), so
// a checkpoint always holds a number per partition: checkpointed offset > (group mode) the
// group's committed offset > `start`. auto.offset.reset is always `error`: an offset that
// fell out of the log (retention) stops the run instead of silently skipping data.
//
// Modes. bounded: assign() every partition, read up to the end offsets seen at start (kept in
// the checkpoint so a restarted run ends at the same place), then Finished. Unbounded:
// subscribe() with group_id so several processes share the partitions (parallelism <=
// partitions). With partition_tasks (default) the runtime runs the nodes after this source as
// one task per partition and moves a partition's state with it: this source tells it about
// every assignment and revocation (PartitionTaskHost) and resumes a partition at the offset
// its moved state names.
//
// Offsets are committed to Kafka only in notifyCheckpointComplete() (after the checkpoint is
// durable), never on a timer, never before processing. With an exactly_once sink the
// transaction carries them instead.
//
// [Threading] librdkafka's threads fetch in the background; poll() takes what is already in
// the consumer queue with a zero timeout and returns Waiting when it is empty, so the loop is
// never blocked by Kafka (open(), rebalances and recovery may block briefly: they query
// offsets).
//
// Parallelism (TIDELINE_PARALLEL_SOURCES=1, parallel_source.cpp, as a file's chunks): a bounded
// source decodes its messages on the run's workers, a consumed batch a chunk, several batches
// in flight, and emits them on the loop thread in the order they were consumed; everything
// else a message does (its partition's position, the end of a bounded partition, an error
// event) still happens there, at emission, so positions, checkpoints and metrics are what the
// single-threaded source has after the same records.
//
// The class is declared here and defined in four files along its seams: kafka_source.cpp
// (construction, polling, checkpoints, the offsets an exactly_once sink reads),
// kafka_source_assign.cpp (start offsets, assignment and rebalances, commits),
// kafka_source_message.cpp (one consumed message: an error event or a record) and
// kafka_source_chunks.cpp (messages decoded on the workers).

#include "connectors/kafka/eos.hpp"
#include "connectors/kafka/kafka_message.hpp"
#include "operators/operators.hpp"
#include "operators/sources/chunk_runner.hpp"

#include <tideline/engine/record_json.hpp>

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tideline::kafka {

inline constexpr int kQueryTimeoutMs = 10000;
inline constexpr int kMaxBatch = 4096;

struct TopparList
{
    rd_kafka_topic_partition_list_t *list;
    explicit TopparList(int size = 8)
        : list(rd_kafka_topic_partition_list_new(size))
    {
    }
    ~TopparList() { rd_kafka_topic_partition_list_destroy(list); }
    TopparList(const TopparList &) = delete;
    TopparList &operator=(const TopparList &) = delete;
};

class KafkaChunk;

class KafkaSource final : public SourceOperator, public OffsetSource, public sources::ChunkedSource
{
public:
    explicit KafkaSource(const OperatorContext &ctx);
    ~KafkaSource() override;

    void open() override;
    int partitions() const override { return std::max(1, m_partitionCount); }
    // Group mode: partitions come and go with rebalances, so they run as tasks whose state
    // moves with them (runtime/partition_tasks.cpp).
    bool partitionTasks() const override { return !m_bounded && m_tasks; }
    bool hasRecordsLeft(int partition) const override;
    void setTaskHost(PartitionTaskHost *host) override { m_host = host; }
    std::map<int, std::int64_t> taskPositions() const override { return currentOffsets(); }
    Poll poll(Output &out, int maxRecords) override;
    void reportMetrics(observe::NodeMetrics &m) const override;
    void onTick(std::int64_t nowMs, Output &) override { m_nowMs = nowMs; }
    /// A bounded source without --record decodes on the workers (kafka_source_chunks.cpp).
    [[nodiscard]] bool runChunksOn(sources::ChunkRunner &runner) override;

    // --- checkpoints ---
    void snapshotState(StateWriter &w) const override;
    void restoreState(StateReader &r) override;
    std::string stateFingerprint() const override { return "kafka/" + m_topic; }
    void notifyCheckpointComplete(std::int64_t) override;

    // --- OffsetSource ---
    const std::string &bootstrap() const override { return m_bootstrap; }
    const std::string &topic() const override { return m_topic; }
    const std::string &groupId() const override { return m_group; }
    PartitionOffsets snapshotOffsets() const override { return m_snapshot; }
    PartitionOffsets currentOffsets() const override;
    rd_kafka_consumer_group_metadata_t *groupMetadata() const override;
    bool committed(PartitionOffsets &io, std::string &error) const override;
    void setOffsetsCommittedByTransaction(bool yes) override { m_txnCommits = yes; }
    bool commitAfterTransaction(const PartitionOffsets &offsets, std::string &error) override;

private:
    enum class Start { Earliest, Latest, Committed };
    struct PartState
    {
        std::int64_t next = -1; ///< next offset to emit
        std::int64_t end = -1;  ///< bounded: stop before this offset
        std::int64_t lastActivityMs = 0;
        bool done = false;
    };

    // kafka_source_assign.cpp
    /// Concrete start offset for a partition without a checkpointed position.
    std::int64_t startOffset(std::int32_t p, bool preferCommitted, std::int64_t &hiOut);
    void start();
    static void onRebalance(rd_kafka_t *rk,
                            rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts,
                            void *opaque);
    void rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts);
    static void onCommit(rd_kafka_t *,
                         rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *,
                         void *opaque);
    /// Before closing: wait (bounded) for an asynchronous commit still in flight, so the last
    /// checkpoint's offsets reach the group.
    void flushCommit();

    // kafka_source_message.cpp
    /// One message: an error event, or a record to emit. Returns whether it emitted.
    bool handle(rd_kafka_message_t *m, Output &out);
    /// handle()'s part before decoding: an error message handled (thrown, or counted), the
    /// partition's position moved on. Whether the message is to be emitted.
    [[nodiscard]] bool accept(rd_kafka_message_t *m);
    void finishPartition(std::int32_t p, PartState &st);
    void capture(rd_kafka_message_t *m, const Message &msg);

    OperatorContext m_ctx; // a copy: the compile-time context does not outlive compile()
    std::string m_node;
    std::string m_bootstrap, m_topic, m_group;
    Start m_start = Start::Earliest;
    bool m_bounded = false;
    bool m_tasks = true; ///< params.partition_tasks
    Json m_properties;

    rd_kafka_t *m_rk = nullptr;
    rd_kafka_queue_t *m_queue = nullptr;
    int m_partitionCount = 0;
    bool m_started = false;
    bool m_isRestored = false;
    bool m_txnCommits = false;
    PartitionTaskHost *m_host = nullptr;                    ///< the runtime, in group mode
    std::map<std::int32_t, PartState> m_parts;              ///< assigned partitions
    std::map<std::int32_t, PartState> m_restored;           ///< from the checkpoint, until start()
    std::map<std::int32_t, PartState> m_restoredUnassigned; ///< group mode: not assigned yet
    int m_remaining = 0;                                    ///< bounded: partitions not done
    mutable PartitionOffsets m_snapshot;                    ///< offsets of the last snapshot
    PartitionOffsets m_lastCommitted;
    int m_commitsInFlight = 0;
    std::int64_t m_commitFailures = 0;
    std::int64_t m_transientErrors = 0;
    std::int64_t m_rebalances = 0;
    std::int64_t m_nowMs = 0;
    std::string m_failure;

    std::vector<rd_kafka_message_t *> m_batch;
    MessageDecoder m_decoder;
    // kafka_source_chunks.cpp
    /// Consumes batches into chunks while there is room, then emits from the oldest.
    [[nodiscard]] Poll pollChunks(Output &out, int maxRecords);
    std::unique_ptr<sources::ChunkQueue<KafkaChunk>> m_chunks; ///< destroyed before m_rk
    std::size_t m_chunkAt = 0;                                 ///< the front chunk's next message
    recording::Capture *m_capture = nullptr;                   ///< --record
    int m_captureSource = -1;
};

} // namespace tideline::kafka
