#pragma once
// Validation of a PipelineSpec against the catalog and the contract's graph rules.
// Every problem is reported at once; errors make the pipeline invalid (runner exit 2),
// warnings are pitfalls (`--validate` prints them, the designer lists them).

#include <tideline/engine/spec.hpp>

#include <string_view>
#include <unordered_map>
#include <vector>

namespace tideline {

/// Errors and warnings, errors first within each node, nodes in file order.
std::vector<Diagnostic> validate(const PipelineSpec &spec);
/// The same, knowing the folder of the pipeline file: paths that overlap (a sink writing the
/// file a source reads, two sinks on one file, the checkpoint folder and a node's file) are
/// also compared as the runtime resolves them (relative to that folder, through symlinks).
/// Without it, relative paths are compared as written (`./a` and `a` are still the same).
std::vector<Diagnostic> validate(const PipelineSpec &spec, const std::string &baseDir);

/// What `tideline-run --validate` checks beyond validate(), on the machine it runs on, so that a
/// file that passes also starts there: every ${env:…}/${file:…} reference resolves, and every
/// file a node reads when it starts (ParamDesc::input) can be opened. `baseDir` is the
/// pipeline file's folder. The designer does not call it: a pipeline may be meant for another
/// machine.
std::vector<Diagnostic> validateEnvironment(const PipelineSpec &spec, const std::string &baseDir);

/// Would adding this edge be accepted? Returns "" or the reason it is refused (wrong
/// direction, unknown port, input already connected, cycle). Used by the designer while
/// dragging a connection.
std::string checkNewEdge(const PipelineSpec &spec, const EdgeSpec &edge);

/// The graph of a spec with O(1) lookups, built once per validate() run: validators use it
/// instead of scanning nodes and edges (which made validating a long chain quadratic).
struct SpecGraph
{
    explicit SpecGraph(const PipelineSpec &spec);
    /// Index of the first node with this id, or -1.
    int nodeIndex(std::string_view id) const;
    /// Per node: indexes of the edges into / out of it (edges naming an unknown node left out).
    std::vector<std::vector<int>> inEdges, outEdges;

private:
    std::unordered_map<std::string_view, int> m_ids;
};

/// Per-kind semantic checks live next to their operators; they add to `out`.
struct NodeValidationContext
{
    const PipelineSpec &spec;
    int nodeIndex;
    std::vector<Diagnostic> &out;
    const SpecGraph *graph = nullptr; ///< set by validate(); null when called on its own
    void error(const std::string &param, const std::string &message, int column = -1) const;
    void warning(const std::string &param, const std::string &message) const;
};

} // namespace tideline
