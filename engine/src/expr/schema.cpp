#include "expr/schema.hpp"

#include "operators/operators.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>

namespace tideline::expr {

namespace {

/// The node feeding `input` of node `nodeIndex` (first such edge), or -1.
int feeder(const PipelineSpec &spec, const SpecGraph &graph, int nodeIndex, std::string_view input)
{
    for (int e : graph.inEdges[static_cast<std::size_t>(nodeIndex)]) {
        const EdgeSpec &edge = spec.edges[static_cast<std::size_t>(e)];
        if (edge.to.port == input)
            return graph.nodeIndex(edge.from.node);
    }
    return -1;
}

std::optional<std::vector<std::string>>
fieldsOut(const PipelineSpec &spec, const SpecGraph &graph, int nodeIndex, int depth)
{
    // Walks up at most 64 nodes (so validating a long chain stays linear), looking edges up
    // in the graph index rather than scanning the edge list.
    if (depth > 64 || nodeIndex < 0)
        return std::nullopt;
    const NodeSpec &n = spec.nodes[static_cast<std::size_t>(nodeIndex)];
    const NodeKind *kind = findNodeKind(n.kind);
    if (!kind)
        return std::nullopt;
    if (!kind->fixedFields.empty())
        return kind->fixedFields;
    auto upstream = [&]() -> std::optional<std::vector<std::string>> {
        return fieldsOut(spec, graph, feeder(spec, graph, nodeIndex, "in"), depth + 1);
    };
    if (kind->schemaPassesThrough)
        return upstream();
    // A kind that reshapes records predictably says how (KindImpl::fields: map).
    if (const KindImpl *impl = findKindImpl(n.kind); impl && impl->fields) {
        auto in = upstream();
        if (!in || !n.params.is_object())
            return std::nullopt;
        return impl->fields(n.params, std::move(*in));
    }
    return std::nullopt;
}

} // namespace

std::optional<std::vector<std::string>>
knownInputFields(const PipelineSpec &spec, int nodeIndex, const std::string &input)
{
    const SpecGraph graph(spec);
    return fieldsOut(spec, graph, feeder(spec, graph, nodeIndex, input), 1);
}

std::optional<std::vector<std::string>> knownInputFields(const NodeValidationContext &ctx,
                                                         const std::string &input)
{
    if (!ctx.graph)
        return knownInputFields(ctx.spec, ctx.nodeIndex, input);
    return fieldsOut(ctx.spec, *ctx.graph, feeder(ctx.spec, *ctx.graph, ctx.nodeIndex, input), 1);
}

bool fieldKnown(const std::vector<std::string> &fields, const std::string &path)
{
    for (const auto &f : fields) {
        if (f == path)
            return true;
        if (path.size() > f.size() && path[f.size()] == '.' && path.starts_with(f))
            return true;
        if (f.size() > path.size() && f[path.size()] == '.' && f.starts_with(path))
            return true;
    }
    return false;
}

std::string unknownFieldMessage(const std::vector<std::string> &fields, const std::string &path)
{
    std::string list;
    for (const auto &f : fields)
        list += (list.empty() ? "" : ", ") + f;
    std::string close = closestMatch(path, fields);
    return "field '" + path + "' is not in the records arriving here (they have " + list + ")"
           + (close.empty() ? std::string() : "; did you mean '" + close + "'?")
           + " It will always be null.";
}

} // namespace tideline::expr
