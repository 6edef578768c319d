#pragma once
// The Kafka source inspector's adapter: per-partition figures of a source.kafka node from a live
// snapshot, and the panel under the node's form (widgets/live/kafka_source_panel).
//
// The engine reports a Kafka source's partitions in two places: the source's NodeMetrics.inputs
// ("partition N": lag and last activity, from librdkafka's cached watermark offsets) and the
// watermark node downstream, which keeps one watermark per partition ("partition N":
// watermark, idle, idle since). kafkaSourceFigures() joins them by partition number.

#include "live/live_types.hpp"

#include <QObject>

namespace tideline::widgets {
class NodeInspector;
}
namespace tideline::live {
class KafkaSourcePanel;
}

namespace tideline::designer::live {

/// The first watermark node downstream of `sourceId` (following data edges through stateless
/// nodes, nearest first, file order among equals); "" when there is none.
QString downstreamWatermarkNode(const QList<tideline::live::NodeInfo> &nodes,
                                const QList<tideline::live::EdgeInfo> &edges,
                                const QString &sourceId);

/// Partitions of `sourceId` in `s`, sorted by partition number.
tideline::live::KafkaSourceFigures kafkaSourceFigures(const tideline::live::Snapshot &s,
                                                      const QList<tideline::live::NodeInfo> &nodes,
                                                      const QList<tideline::live::EdgeInfo> &edges,
                                                      const QString &sourceId);

class KafkaInspector final : public QObject
{
    Q_OBJECT
public:
    KafkaInspector(widgets::NodeInspector *inspector, QObject *parent = nullptr);

    tideline::live::KafkaSourcePanel *panel() const { return m_panel; }
    /// The node shown in the inspector (the panel is visible only for source.kafka).
    void showNode(const QString &id, const QString &kind);
    /// The pipeline of the current run (its node ids may differ from the edited document).
    void setRun(const QList<tideline::live::NodeInfo> &nodes,
                const QList<tideline::live::EdgeInfo> &edges);
    /// Feeds one frame's snapshot (what the live run does ~30 times a second).
    void update(const tideline::live::Snapshot &s);
    QString node() const { return m_node; }

private:
    widgets::NodeInspector *m_inspector;
    tideline::live::KafkaSourcePanel *m_panel;
    QString m_node;
    bool m_running = false;
    QList<tideline::live::NodeInfo> m_nodes;
    QList<tideline::live::EdgeInfo> m_edges;
};

} // namespace tideline::designer::live
