#include "kafka_inspector.hpp"

#include "inspect/node_inspector.hpp"
#include "live/kafka_source_panel.hpp"

#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace tideline::designer::live {

namespace L = tideline::live;

namespace {
/// "partition 7" -> 7, anything else -> -1.
int partitionNumber(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^partition (\\d+)$"));
    const auto m = re.match(name);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}
} // namespace

QString downstreamWatermarkNode(const QList<L::NodeInfo> &nodes,
                                const QList<L::EdgeInfo> &edges,
                                const QString &sourceId)
{
    QHash<QString, QString> kinds;
    QHash<QString, int> order;
    for (int i = 0; i < nodes.size(); ++i) {
        kinds.insert(nodes[i].id, nodes[i].kind);
        order.insert(nodes[i].id, i);
    }
    // Breadth first over data edges: late/errors ports carry no partition watermarks.
    QStringList frontier{sourceId};
    QSet<QString> seen{sourceId};
    while (!frontier.isEmpty()) {
        QStringList next, found;
        for (const auto &e : edges) {
            if (!frontier.contains(e.fromNode) || e.fromPort == QLatin1String("late")
                || e.fromPort == QLatin1String("errors") || seen.contains(e.toNode))
                continue;
            seen.insert(e.toNode);
            if (kinds.value(e.toNode) == QLatin1String("watermark"))
                found << e.toNode;
            else
                next << e.toNode;
        }
        if (!found.isEmpty()) {
            std::sort(found.begin(), found.end(), [&](const QString &a, const QString &b) {
                return order.value(a) < order.value(b);
            });
            return found.front();
        }
        frontier = next;
    }
    return {};
}

L::KafkaSourceFigures kafkaSourceFigures(const L::Snapshot &s,
                                         const QList<L::NodeInfo> &nodes,
                                         const QList<L::EdgeInfo> &edges,
                                         const QString &sourceId)
{
    L::KafkaSourceFigures out;
    out.node = sourceId;
    out.nowMs = s.takenAtMs;
    out.watermarkNode = downstreamWatermarkNode(nodes, edges, sourceId);
    QMap<int, L::KafkaPartitionFigures> parts; // sorted by partition
    if (const L::NodeFigures *src = s.node(sourceId)) {
        out.recordsPerSecond = src->outRate;
        for (const auto &in : src->inputs) {
            const int p = partitionNumber(in.name);
            if (p < 0)
                continue;
            auto &f = parts[p];
            f.partition = p;
            f.assigned = true;
            f.lag = in.lag;
            f.lastActivityMs = in.lastActivityMs;
        }
    }
    const bool sourceReports = !parts.isEmpty();
    if (const L::NodeFigures *wm
        = out.watermarkNode.isEmpty() ? nullptr : s.node(out.watermarkNode)) {
        for (const auto &in : wm->inputs) {
            const int p = partitionNumber(in.name);
            if (p < 0)
                continue;
            const bool known = parts.contains(p);
            auto &f = parts[p];
            f.partition = p;
            // The watermark node knows every partition of the topic; one the source does not
            // report is read by another process of the group.
            f.assigned = known || !sourceReports;
            // A partition another member owns has no watermark here ("—", not −∞).
            f.hasWatermark = in.assigned && (known || !sourceReports);
            f.watermark = in.watermark;
            f.idle = in.idle;
            f.idleSinceMs = in.idleSinceMs;
            if (!known)
                f.lastActivityMs = 0; // the watermark node's "activity" starts at open()
        }
    }
    out.partitions = parts.values();
    return out;
}

KafkaInspector::KafkaInspector(widgets::NodeInspector *inspector, QObject *parent)
    : QObject(parent)
    , m_inspector(inspector)
    , m_panel(new L::KafkaSourcePanel)
{
    inspector->addSection(m_panel);
    m_panel->setVisible(false);
}

void KafkaInspector::showNode(const QString &id, const QString &kind)
{
    const bool kafka = kind == QLatin1String("source.kafka");
    m_node = kafka ? id : QString();
    m_panel->setVisible(kafka);
    if (kafka && !m_running)
        m_panel->showNotRunning(
            tr("Run the pipeline to see each partition's watermark, lag and idle state."));
}

void KafkaInspector::setRun(const QList<L::NodeInfo> &nodes, const QList<L::EdgeInfo> &edges)
{
    m_nodes = nodes;
    m_edges = edges;
    m_running = true;
    // While a run shows partitions they come first; the params are below.
    m_inspector->placeSection(m_panel, true);
}

void KafkaInspector::update(const L::Snapshot &s)
{
    if (m_node.isEmpty() || !m_running)
        return;
    if (!s.node(m_node)) {
        m_panel->showNotRunning(
            tr("“%1” is not part of the current run (added after it started).").arg(m_node));
        return;
    }
    m_panel->showFigures(kafkaSourceFigures(s, m_nodes, m_edges, m_node));
}

} // namespace tideline::designer::live
