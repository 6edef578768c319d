#pragma once
// The check's verdict on the canvas: a small pill above each checked sink node (a green tick
// and "ok", a red cross and "FAIL · 3"), through GraphScene's public API only. Each pill is a
// child item of its node, so it follows drags and goes with the node; clear() removes them.

#include "check_types.hpp"

#include <QHash>
#include <QObject>
#include <QPointer>

namespace tideline::widgets {

class GraphScene;
class CheckMarkerItem;

class CheckMarkers final : public QObject
{
    Q_OBJECT
public:
    explicit CheckMarkers(GraphScene *scene, QObject *parent = nullptr);
    ~CheckMarkers() override;

    /// One marker per sink of the report that is on the canvas (others are skipped).
    void show(const QList<SinkCheck> &sinks);
    void clear();
    /// The canvas' zoom: zoomed out, the pills grow to stay readable (as the live labels do).
    void setViewZoom(double zoom);
    /// The text of a node's marker ("" when it has none), for tests.
    QString markerText(const QString &nodeId) const;

private:
    QPointer<GraphScene> m_scene;
    QHash<QString, QPointer<CheckMarkerItem>> m_items;
    double m_scale = 1;
};

} // namespace tideline::widgets
