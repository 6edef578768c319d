#pragma once
// Left-to-right layered layout: a node's column is its longest distance from a source
// (topological depth); rows within a column follow the order of the parents, which keeps
// chains straight and crossings few for the pipelines people draw.

#include <tideline/engine/spec.hpp>

#include <QHash>
#include <QPointF>
#include <QString>

namespace tideline::designer {

/// Positions for every node (keyed by id).
QHash<QString, QPointF> layeredLayout(const PipelineSpec &spec);
/// Writes `ui` {x, y} for nodes without one (or all nodes when onlyMissing is false).
void applyAutoLayout(PipelineSpec &spec, bool onlyMissing);
/// True when a node has a usable ui {x, y}.
bool hasPosition(const NodeSpec &node);

} // namespace tideline::designer
