#pragma once
// Exactly-once plumbing shared by source.kafka and sink.kafka (the Kafka Streams model).
//
// Per checkpoint epoch N the sink runs: begin_transaction -> produce -> (checkpoint barrier)
// send_offsets_to_transaction(O_N) -> state N with O_N written by the checkpoint ->
// notifyCheckpointComplete(N) -> commit_transaction. librdkafka cannot resume another
// instance's transaction, so after a crash the pending transaction is aborted (by the next
// init_transactions) and recovery decides from the group's committed offsets which checkpoint
// matches what Kafka committed: decideRecovery() below, kept free of librdkafka so it is
// tested against a test double (librdkafka 2.0.2's mock stores no TxnOffsetCommit).

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tideline::kafka {

/// partition -> next offset to read (Kafka's committed-offset convention).
using PartitionOffsets = std::map<std::int32_t, std::int64_t>;

/// What an exactly-once sink needs from the Kafka source that feeds it.
class OffsetSource
{
public:
    virtual ~OffsetSource() = default;
    virtual const std::string &bootstrap() const = 0;
    virtual const std::string &topic() const = 0;
    virtual const std::string &groupId() const = 0;
    /// Offsets as of the last snapshotState() (what the checkpoint being taken holds).
    virtual PartitionOffsets snapshotOffsets() const = 0;
    /// Offsets of what has been emitted so far (end of a bounded run without checkpoint).
    virtual PartitionOffsets currentOffsets() const = 0;
    /// The consumer's group metadata for send_offsets_to_transaction (caller destroys).
    virtual rd_kafka_consumer_group_metadata_t *groupMetadata() const = 0;
    /// The group's committed offsets for these partitions (blocking; recovery only).
    /// Returns false with `error` set when Kafka cannot answer.
    virtual bool committed(PartitionOffsets &inOut, std::string &error) const = 0;
    /// When true the source stops committing offsets itself: the transaction carries them.
    virtual void setOffsetsCommittedByTransaction(bool yes) = 0;
    /// After a transaction committed: commit the same offsets through the group (blocking).
    /// Redundant on a broker that stored the transaction's offsets; on one that does not
    /// (librdkafka 2.0.2's mock acknowledges TxnOffsetCommit without storing it) it is what
    /// lets recovery tell which checkpoint Kafka holds. Offsets never run ahead of committed
    /// output: this runs only once the transaction is committed. false with `error`.
    [[nodiscard]] virtual bool commitAfterTransaction(const PartitionOffsets &offsets,
                                                      std::string &error)
        = 0;
};

/// Sources register while alive. Compile builds operators in topological order on one
/// thread, so a sink bound at construction finds the source(s) of its own pipeline as the
/// most recent registrations on this thread.
void registerOffsetSource(OffsetSource *s);
void unregisterOffsetSource(OffsetSource *s);
/// The most recently registered live source on this thread, or nullptr.
OffsetSource *latestOffsetSource();

enum class Recovery {
    UseLatest,   ///< Kafka committed the latest checkpoint's transaction
    UsePrevious, ///< the latest transaction was aborted: restore the checkpoint before it
    Inconsistent ///< Kafka's offsets match neither: refuse to guess
};

struct RecoveryDecision
{
    Recovery action = Recovery::Inconsistent;
    std::string reason;
};

/// Which checkpoint matches Kafka. `latest` = offsets sent in the latest checkpoint's
/// transaction; `previous` = those of the checkpoint before it (nullopt: there is none, the
/// job started from `start`); `committed` = the group's committed offsets (missing = none).
RecoveryDecision decideRecovery(const PartitionOffsets &latest,
                                const std::optional<PartitionOffsets> &previous,
                                const PartitionOffsets &committed);

std::string formatOffsets(const PartitionOffsets &o);

} // namespace tideline::kafka
