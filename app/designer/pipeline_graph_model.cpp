#include "pipeline_graph_model.hpp"

#include "catalog_adapter.hpp"
#include "json_bridge.hpp"
#include "pipeline_document.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

namespace tideline::designer {

PipelineGraphModel::PipelineGraphModel(PipelineDocument &doc, QObject *parent)
    : widgets::AbstractGraphModel(parent)
    , m_doc(doc)
{
    connect(&m_doc, &PipelineDocument::changed, this, &PipelineGraphModel::onChanged);
    connect(&m_doc, &PipelineDocument::diagnosticsChanged, this,
            &PipelineGraphModel::onDiagnostics);
    onDiagnostics();
}

widgets::ConnectionId PipelineGraphModel::toConnection(const EdgeSpec &e)
{
    return {qstr(e.from.node), qstr(e.from.port), qstr(e.to.node), qstr(e.to.port)};
}

EdgeSpec PipelineGraphModel::toEdge(const widgets::ConnectionId &c)
{
    return {{sstr(c.fromNode), sstr(c.fromPort)}, {sstr(c.toNode), sstr(c.toPort)}};
}

QStringList PipelineGraphModel::nodeIds() const
{
    QStringList ids;
    ids.reserve(qsizetype(m_doc.spec().nodes.size()));
    for (const auto &n : m_doc.spec().nodes)
        ids << qstr(n.id);
    return ids;
}

QList<widgets::ConnectionId> PipelineGraphModel::connections() const
{
    QList<widgets::ConnectionId> out;
    out.reserve(qsizetype(m_doc.spec().edges.size()));
    for (const auto &e : m_doc.spec().edges)
        out << toConnection(e);
    return out;
}

widgets::NodeVisual PipelineGraphModel::nodeVisual(const QString &id) const
{
    widgets::NodeVisual v;
    const NodeSpec *n = m_doc.spec().node(sstr(id));
    if (!n)
        return v;
    v.id = id;
    v.kind = qstr(n->kind);
    const NodeKind *kind = findNodeKind(n->kind);
    if (kind) {
        v.title = qstr(kind->displayName);
        v.category = qstr(kind->category);
        for (const auto &p : kind->inputs)
            v.inputs << portInfo(p);
        for (const auto &p : kind->outputs)
            v.outputs << portInfo(p);
    } else {
        // Unknown kind (a typo in a file): keep its edges drawable; validation names it.
        v.title = tr("Unknown kind");
        v.category = QStringLiteral("Unknown");
        v.inputs << widgets::PortInfo{QStringLiteral("in")};
        v.outputs << widgets::PortInfo{QStringLiteral("out")};
    }
    v.summary = nodeSummary(*n, kind);
    const Badge b = m_badges.value(id);
    v.badge = b.badge;
    v.badgeText = b.text;
    return v;
}

QPointF PipelineGraphModel::nodePosition(const QString &id) const
{
    const NodeSpec *n = m_doc.spec().node(sstr(id));
    if (!n || !n->ui.is_object())
        return {};
    auto num = [&](const char *key) {
        return n->ui.contains(key) && n->ui[key].is_number() ? n->ui[key].get<double>() : 0.0;
    };
    return {num("x"), num("y")};
}

QString PipelineGraphModel::checkConnection(const widgets::ConnectionId &c) const
{
    return qstr(checkNewEdge(m_doc.spec(), toEdge(c)));
}

void PipelineGraphModel::onChanged(const DocumentChange &change)
{
    using T = DocumentChange::Type;
    switch (change.type) {
    case T::Reset:
        Q_EMIT modelReset();
        break;
    case T::NodeAdded:
        Q_EMIT nodeAdded(change.nodeId);
        break;
    case T::NodeRemoved:
        Q_EMIT nodeRemoved(change.nodeId);
        break;
    case T::NodeMoved:
        Q_EMIT nodeMoved(change.nodeId);
        break;
    case T::NodeParamsChanged:
        Q_EMIT nodeUpdated(change.nodeId);
        break;
    case T::NodeRenamed:
        m_badges.insert(change.nodeId, m_badges.take(change.oldNodeId));
        Q_EMIT nodeRenamed(change.oldNodeId, change.nodeId);
        break;
    case T::EdgeAdded:
        Q_EMIT connectionAdded(toConnection(change.edge));
        break;
    case T::EdgeRemoved:
        Q_EMIT connectionRemoved(toConnection(change.edge));
        break;
    case T::PipelineSettingsChanged:
        break; // settings are not drawn on the canvas
    }
}

void PipelineGraphModel::onDiagnostics()
{
    QHash<QString, Badge> badges;
    for (const auto &d : m_doc.diagnostics()) {
        if (d.nodeId.empty())
            continue;
        Badge &b = badges[qstr(d.nodeId)];
        if (d.isError())
            b.badge = widgets::NodeBadge::Error;
        else if (b.badge == widgets::NodeBadge::None)
            b.badge = widgets::NodeBadge::Warning;
        const QString line = (d.isError() ? tr("Error: ") : tr("Warning: ")) + qstr(d.message);
        b.text += (b.text.isEmpty() ? QString() : QStringLiteral("\n")) + line;
    }
    QSet<QString> touched;
    for (auto it = badges.begin(); it != badges.end(); ++it)
        if (m_badges.value(it.key()) != it.value())
            touched.insert(it.key());
    for (auto it = m_badges.begin(); it != m_badges.end(); ++it)
        if (!badges.contains(it.key()))
            touched.insert(it.key());
    m_badges = std::move(badges);
    for (const auto &id : std::as_const(touched))
        if (m_doc.spec().node(sstr(id)))
            Q_EMIT nodeUpdated(id);
}

} // namespace tideline::designer
