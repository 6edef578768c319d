#pragma once
// Qt-side figures of a running pipeline: what the live views draw. The designer's EngineBridge
// converts the engine's observe:: structs into these (widgets never include engine headers).
// Times are milliseconds; event times since the epoch, processing times from the run's clock.

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <cstdint>
#include <limits>
#include <optional>

namespace tideline::live {

/// INT64_MAX: the watermark of an input that ended (+inf).
inline constexpr qint64 kEnded = std::numeric_limits<qint64>::max();

struct InputWatermarkFigures
{
    QString name;                    ///< "in <- wm", "partition 3"
    std::optional<qint64> watermark; ///< nullopt = -inf
    bool idle = false;
    qint64 idleSinceMs = 0;
    qint64 lastActivityMs = 0;
    qint64 lag = 0;
    bool assigned = true; ///< false: a partition another member of the consumer group owns
};

struct NodeFigures
{
    QString node;
    QString kind;
    qint64 recordsIn = 0;
    qint64 recordsOut = 0;
    qint64 late = 0;
    qint64 errors = 0;
    qint64 duplicatesDropped = 0;
    std::optional<qint64> watermark; ///< nullopt = -inf, kEnded = ended
    std::optional<qint64> maxEventTime;
    qint64 stateEntries = 0;
    qint64 stateBytes = 0;
    qint64 openWindows = 0;
    QList<InputWatermarkFigures> inputs;
    double inRate = 0; ///< records/s over the last snapshots (computed by LiveHistory)
    double outRate = 0;
    /// Every record accounted for (the engine's observe/accounting.hpp): each way the node
    /// consumed, dropped or made records, in words with its count ("duplicate", 41), only
    /// those that occurred; late and errors by reason; records held in state.
    QList<QPair<QString, qint64>> accounted;
    QList<QPair<QString, qint64>> lateByReason;
    QList<QPair<QString, qint64>> errorsByReason;
    qint64 held = 0;
    bool balanced = true; ///< in = out + every fate + late + errors + held
    QString balanceText;  ///< "in 84 = join_matched 80 + late 2 + join_unmatched 2"
};

struct CheckpointFigures
{
    qint64 id = 0;
    QString status; ///< completed | failed | in_progress | ""
    qint64 durationMs = 0;
    qint64 bytes = 0;
    qint64 timeMs = 0;
    QString failureCause;
    /// checkpoint | savepoint (the engine's CheckpointInfo::kind).
    QString kind = QStringLiteral("checkpoint");
};

struct Snapshot
{
    qint64 takenAtMs = 0;
    qint64 startedAtMs = 0;
    QString state; ///< Created | Running | Paused | Finished | Failed | Stopped
    qint64 recordsRead = 0;
    double eventsPerSecond = 0;
    QList<NodeFigures> nodes;
    std::optional<CheckpointFigures> lastCheckpoint;
    QList<CheckpointFigures> checkpointHistory;
    QString failure;

    const NodeFigures *node(const QString &id) const
    {
        for (const auto &n : nodes)
            if (n.node == id)
                return &n;
        return nullptr;
    }
    qint64 elapsedMs() const { return takenAtMs - startedAtMs; }
};

/// One Kafka partition of a source.kafka node, as the Kafka source inspector shows it. The
/// source reports lag and activity per partition; the watermark node downstream reports the
/// partition's watermark and idleness (it keeps one watermark per partition).
struct KafkaPartitionFigures
{
    int partition = 0;
    bool assigned = true;            ///< false: another member of the group reads it
    bool hasWatermark = false;       ///< a watermark node downstream reports this partition
    std::optional<qint64> watermark; ///< nullopt = -inf
    bool idle = false;
    qint64 idleSinceMs = 0;
    qint64 lastActivityMs = 0; ///< processing time of its last record (0 = none yet)
    qint64 lag = 0;            ///< records between the read position and the log end (-1: unknown)
};

struct KafkaSourceFigures
{
    QString node;
    QString watermarkNode; ///< "" when no watermark node is downstream
    QList<KafkaPartitionFigures> partitions;
    double recordsPerSecond = 0; ///< the source's measured output rate
    qint64 nowMs = 0;            ///< processing time of the snapshot
};

enum class TapRole { Data, Late, Errors };

/// One record seen by a tap (a node's input or output).
struct TappedRecord
{
    QString node;
    QString port;
    QString from;       ///< inputs: upstream node id
    bool input = false; ///< true: arrived at `port`; false: sent on `port`
    TapRole role = TapRole::Data;
    std::optional<qint64> eventTime;
    std::optional<qint64> watermark; ///< the node's watermark at that moment (nullopt = -inf)
    QString json;                    ///< the record (unwrapped for late/errors)
    QString reason;
    QString raw;
    qint64 recordsRead = 0;
    qint64 processingTimeMs = 0;
};

struct WatermarkChange
{
    QString node;
    bool input = false; ///< combined input watermark (true) or output watermark
    qint64 watermark = 0;
    qint64 recordsRead = 0;
    qint64 processingTimeMs = 0;
};

/// What the views need to know about a node beyond its figures (from the pipeline file).
struct NodeInfo
{
    QString id;
    QString kind;
    QJsonObject params;
    QStringList outputs; ///< output port names
};

struct EdgeInfo
{
    QString fromNode;
    QString fromPort;
    QString toNode;
    QString toPort;
};

} // namespace tideline::live
