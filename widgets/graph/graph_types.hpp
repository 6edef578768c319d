#pragma once
// Plain value types shared by the graph model interface, the scene and its items.
// Nodes are addressed by their string id (the pipeline's stable node id), connections by the
// four names that make them up; the view never holds pointers into a document.

#include <QHashFunctions>
#include <QList>
#include <QString>

namespace tideline::widgets {

enum class PortRole { Data, Late, Errors };

struct PortInfo
{
    QString name;
    PortRole role = PortRole::Data;
    bool multi = false; ///< input only: accepts several connections
};

enum class NodeBadge { None, Warning, Error };

/// Everything a node item needs to draw itself.
struct NodeVisual
{
    QString id;
    QString kind;     ///< "window"
    QString title;    ///< "Window"
    QString category; ///< palette group, also picks the header colour
    QString summary;  ///< one short line about the params ("tumbling · 60 s")
    QList<PortInfo> inputs;
    QList<PortInfo> outputs;
    NodeBadge badge = NodeBadge::None;
    QString badgeText; ///< tooltip: the node's problems, one per line
};

struct ConnectionId
{
    QString fromNode;
    QString fromPort;
    QString toNode;
    QString toPort;

    bool operator==(const ConnectionId &) const = default;
    QString toString() const { return fromNode + '.' + fromPort + " -> " + toNode + '.' + toPort; }
};

inline size_t qHash(const ConnectionId &c, size_t seed = 0)
{
    return qHashMulti(seed, c.fromNode, c.fromPort, c.toNode, c.toPort);
}

} // namespace tideline::widgets
