#pragma once
// The only engine surface that widgets see: plain, copyable figures (rust-analyzer's `ide`
// API idea). Standard library only, no engine or Qt types.
//
// Figures are cumulative for the run. A MetricsSnapshot is consistent: all of its numbers were
// taken at one point of the pipeline loop, between two records.

#include <tideline/observe/accounting.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tideline::observe {

/// Watermark of one input or source partition, for "why is the watermark here?".
struct InputWatermark
{
    std::string name;                      ///< "in", "left", "right" or "partition 3".
    std::optional<std::int64_t> watermark; ///< nullopt = -inf.
    bool idle = false;
    std::int64_t idleSinceMs = 0;    ///< Processing time at which it went idle.
    std::int64_t lastActivityMs = 0; ///< Processing time of its last record.
    std::int64_t lag = 0;            ///< Records behind (Kafka; -1 = not known yet), 0 otherwise.
    /// false: a Kafka partition that another process of the consumer group owns (it is not in
    /// this process's minimum).
    bool assigned = true;
};

struct NodeMetrics
{
    std::string node;
    std::string kind;
    std::int64_t recordsIn = 0;
    std::int64_t recordsOut = 0;
    std::int64_t late = 0;
    std::int64_t errors = 0;
    std::int64_t duplicatesDropped = 0;
    std::optional<std::int64_t> watermark;    ///< nullopt = -inf; INT64_MAX = ended.
    std::optional<std::int64_t> maxEventTime; ///< Largest event time seen (nullopt = none).
    std::int64_t stateEntries = 0;
    std::int64_t stateBytes = 0;
    std::int64_t stateSpilled = 0; ///< Of stateEntries, how many are on disk (state "rocksdb").
    std::int64_t openWindows = 0;
    /// Highest stateEntries / stateBytes so far, sampled before each watermark advance (state
    /// only shrinks there); 0 unless JobOptions::trackPeakState.
    std::int64_t peakStateEntries = 0;
    std::int64_t peakStateBytes = 0;
    std::uint64_t checksum = 0;         ///< sink.discard: order-independent checksum of rows
    int partitions = 0;                 ///< Sources: partitions read (Kafka: of the topic).
    std::vector<InputWatermark> inputs; ///< Per input / partition watermark detail.
    /// Every record accounted for (observe/accounting.hpp): fates by kind, late and error
    /// records by reason (records sent to those ports, not `errors`' other figures), and the
    /// input records still held in state (join).
    FateCounts fates{};
    CauseCounts lateCauses;
    CauseCounts errorCauses;
    std::int64_t held = 0;
    std::int64_t fate(Fate f) const { return fates[static_cast<std::size_t>(f)]; }
};

struct CheckpointInfo
{
    std::int64_t id = 0;
    std::string status; ///< "completed", "failed", "in_progress" or "" (none yet).
    std::int64_t durationMs = 0;
    std::int64_t bytes = 0;
    std::int64_t timeMs = 0;         ///< Processing time at which it finished.
    std::string failureCause;        ///< Set when status == "failed".
    std::string kind = "checkpoint"; ///< "checkpoint" (periodic or final) or "savepoint".
};

enum class JobState { Created, Running, Paused, Finished, Failed, Stopped };

struct MetricsSnapshot
{
    std::int64_t takenAtMs = 0; ///< Processing time of the snapshot.
    std::int64_t startedAtMs = 0;
    JobState state = JobState::Created;
    std::int64_t recordsRead = 0;   ///< Records taken from all sources.
    double eventsPerSecond = 0;     ///< Source records per second of processing time.
    std::vector<NodeMetrics> nodes; ///< In the pipeline file's node order.
    std::optional<CheckpointInfo> lastCheckpoint;
    std::vector<CheckpointInfo> checkpointHistory; ///< Newest last, bounded.
    std::string failure;                           ///< Set when state == Failed.
    /// Restarts from the last checkpoint after a recoverable error (a Kafka sink's fatal
    /// producer error), at most 3 per run.
    int restarts = 0;

    const NodeMetrics *node(const std::string &id) const
    {
        for (const auto &n : nodes)
            if (n.node == id)
                return &n;
        return nullptr;
    }
};

} // namespace tideline::observe
