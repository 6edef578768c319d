#pragma once
// The graph canvas' view of a document: structure and looks only, addressed by node id.
//
// The scene observes a model through these signals and never changes it: user gestures come
// out of the scene as intents (GraphScene's signals) that the application turns into undoable
// commands, which change the document, which emits these signals.

#include "graph_types.hpp"

#include <QObject>
#include <QPointF>
#include <QStringList>

namespace tideline::widgets {

class AbstractGraphModel : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    virtual QStringList nodeIds() const = 0;
    virtual QList<ConnectionId> connections() const = 0;
    virtual NodeVisual nodeVisual(const QString &id) const = 0;
    virtual QPointF nodePosition(const QString &id) const = 0;
    /// "" when the connection would be accepted, otherwise the reason it is refused.
    virtual QString checkConnection(const ConnectionId &c) const = 0;

Q_SIGNALS:
    void modelReset();
    void nodeAdded(const QString &id);
    void nodeRemoved(const QString &id);
    void nodeUpdated(const QString &id); ///< looks changed (params, badge)
    void nodeMoved(const QString &id);
    void nodeRenamed(const QString &oldId, const QString &newId);
    void connectionAdded(const tideline::widgets::ConnectionId &c);
    void connectionRemoved(const tideline::widgets::ConnectionId &c);
};

} // namespace tideline::widgets
