#pragma once
// The narrow adapter between engine types and the widgets' Qt-side structs. Nothing else in
// the designer converts catalog descriptors or diagnostics for the views.

#include "graph/graph_types.hpp"
#include "inspect/field_descriptor.hpp"
#include "palette/palette_entry.hpp"
#include "problems/problem.hpp"

#include <tideline/engine/catalog.hpp>

#include <QHash>
#include <QList>

namespace tideline::designer {

QList<widgets::PaletteEntry> paletteEntries();
widgets::FieldDescriptor fieldDescriptor(const ParamDesc &desc);
QList<widgets::FieldDescriptor> fieldDescriptors(const NodeKind &kind);
widgets::PortInfo portInfo(const PortDesc &port);
widgets::Problem problem(const Diagnostic &d);
QList<widgets::Problem> problems(const std::vector<Diagnostic> &diagnostics);

/// The node's problems for the inspector: field name -> message, plus node-level text.
struct NodeProblems
{
    QHash<QString, QString> byField;
    QString node;
};
NodeProblems nodeProblems(const std::vector<Diagnostic> &diagnostics, const QString &nodeId);

/// One short line about a node's most telling params ("tumbling · size_ms 60000").
QString nodeSummary(const NodeSpec &node, const NodeKind *kind);

/// The path params that resolve against the pipeline file's folder (not absolute, not a
/// ${env:}/${file:} reference), as "node.param = value": an unsaved pipeline with any cannot
/// run (Run, Check) until it has a folder.
QStringList relativePathParams(const PipelineSpec &spec);

} // namespace tideline::designer
