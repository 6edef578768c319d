#pragma once
// Copy/paste of sub-graphs. The clipboard carries a small pipeline written by the engine's
// own writer (so pasting into another designer or a text editor works), and pasting renames
// ids that are taken and shifts positions so the copy does not cover the original.

#include <tideline/engine/spec.hpp>

#include <QByteArray>
#include <QPointF>
#include <QStringList>

#include <optional>

namespace tideline::designer {

inline constexpr const char *kSubgraphMime = "application/x-tideline-pipeline";

/// Selected nodes (in document order) and the edges between them.
PipelineSpec extractSubgraph(const PipelineSpec &spec, const QStringList &ids);
std::string encodeSubgraph(const PipelineSpec &sub);
std::optional<PipelineSpec> decodeSubgraph(const std::string &text);

struct PastePlan
{
    std::vector<NodeSpec> nodes;
    std::vector<EdgeSpec> edges;
};
/// Renames clashing ids (window -> window_2) and offsets each ui position by `offset`.
PastePlan planPaste(const PipelineSpec &target, const PipelineSpec &sub, QPointF offset);

} // namespace tideline::designer
