#pragma once
// Live figures drawn on the designer's canvas, through GraphScene's public API only
// (nodeItem()/connectionItem() geometry): under each node its in/out rate, watermark with its
// lag behind the newest event, state entries and late count; on each edge its throughput.
// The labels are separate scene items placed at each refresh, so the canvas' own items and
// their painting stay untouched; clear() removes every label.

#include "live_types.hpp"

#include <QHash>
#include <QObject>
#include <QPointer>

namespace tideline::widgets {
class GraphScene;
}

namespace tideline::live {

class OverlayLabel;

class CanvasOverlay final : public QObject
{
    Q_OBJECT
public:
    explicit CanvasOverlay(widgets::GraphScene *scene, QObject *parent = nullptr);
    ~CanvasOverlay() override;

    void update(const Snapshot &s, const QList<EdgeInfo> &edges);
    /// The canvas' zoom: labels keep a readable size on screen when it is small (applies at
    /// the next update()).
    void setViewZoom(double zoom);
    double labelScale() const { return m_labelScale; }
    void clear();
    /// The text currently shown under a node / on an edge ("" when none).
    QString nodeText(const QString &node) const;
    QString edgeText(const QString &fromNode,
                     const QString &fromPort,
                     const QString &toNode,
                     const QString &toPort) const;

private:
    OverlayLabel *label(QHash<QString, OverlayLabel *> &map, const QString &key, bool edge);
    QPointer<widgets::GraphScene> m_scene;
    QHash<QString, OverlayLabel *> m_nodes;
    QHash<QString, OverlayLabel *> m_edges;
    double m_labelScale = 1;
};

} // namespace tideline::live
