#pragma once
// Adapts a PipelineDocument to the canvas' AbstractGraphModel: node looks from the catalog,
// badges from the diagnostics, connection checks from the engine's checkNewEdge().

#include "document_change.hpp"
#include "graph/abstract_graph_model.hpp"

#include <QHash>

namespace tideline::designer {

class PipelineDocument;

class PipelineGraphModel final : public widgets::AbstractGraphModel
{
    Q_OBJECT
public:
    explicit PipelineGraphModel(PipelineDocument &doc, QObject *parent = nullptr);

    QStringList nodeIds() const override;
    QList<widgets::ConnectionId> connections() const override;
    widgets::NodeVisual nodeVisual(const QString &id) const override;
    QPointF nodePosition(const QString &id) const override;
    QString checkConnection(const widgets::ConnectionId &c) const override;

    static widgets::ConnectionId toConnection(const EdgeSpec &e);
    static EdgeSpec toEdge(const widgets::ConnectionId &c);

private:
    void onChanged(const DocumentChange &change);
    void onDiagnostics();

    struct Badge
    {
        widgets::NodeBadge badge = widgets::NodeBadge::None;
        QString text;
        bool operator==(const Badge &) const = default;
    };

    PipelineDocument &m_doc;
    QHash<QString, Badge> m_badges;
};

} // namespace tideline::designer
