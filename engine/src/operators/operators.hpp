#pragma once
// What a node kind does (KindImpl: factory, validator, pitfall rules, field rule) and the
// factories and validators of the kinds whose operator file defines them apart from the kind's
// own file (<kind>_kind.cpp next to it, which pairs them with the catalog entry: kind_def.hpp).

#include "operators/params.hpp"

#include <tideline/engine/operator.hpp>
#include <tideline/engine/validate.hpp>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace tideline {

/// What a kind's pitfall rules see of the checked graph. validate() calls them once per node
/// of the kind, after the params, edges and event-time rules, on an acyclic graph only. A
/// pitfall is a warning: the pipeline runs, but likely not as its author meant.
struct PitfallContext
{
    const PipelineSpec &spec;
    const SpecGraph &graph;
    const std::vector<const NodeKind *> &kinds; ///< per node; null for an unknown kind
    std::size_t node;
    const std::vector<int> &nearestWatermark; ///< per node (see upstreamWatermark)
    const std::vector<int> &nearestSource;
    /// Per node that forwardsUpdates: the appending sinks it reaches (see appendingSinks).
    const std::vector<std::vector<int>> &forwardedSinks;
    const std::vector<std::vector<int>> &outEdges; ///< per node: indices of its valid edges
    std::vector<Diagnostic> &out;

    /// The nearest upstream node that assignsEventTime (first found walking up, depth first in
    /// edge order), or -1.
    int upstreamWatermark() const { return nearestWatermark[node]; }
    /// The nearest upstream source, found the same way, or -1.
    int upstreamSource() const { return nearestSource[node]; }
    /// Sinks that cannot take updates (acceptsUpdates false) reached from output `port`
    /// directly or through nodes that forwardsUpdates; sorted, each once.
    std::vector<int> appendingSinks(std::string_view port) const;
    /// The params of a node of known kind, read with its defaults: pitfalls read params
    /// whether or not they passed their checks (a value of the wrong type reads as the default).
    NodeParams params(std::size_t nodeIndex) const;
    const std::string &nodeId(std::size_t nodeIndex) const { return spec.nodes[nodeIndex].id; }
    /// A warning about `param` ("" for the node as a whole) of this node.
    void warning(const std::string &param, const std::string &message) const;
};

using OperatorFactory = std::unique_ptr<Operator> (*)(const OperatorContext &);
using NodeValidator = void (*)(const NodeValidationContext &);
using PitfallRule = void (*)(const PitfallContext &);
/// The fields of the output records given the input's, for a kind that reshapes records
/// predictably (validation's field checks: expr/schema.hpp).
using FieldsRule = std::vector<std::string> (*)(const Json &params, std::vector<std::string> in);

/// What a kind does, beside its catalog entry (operators/kind_def.hpp).
struct KindImpl
{
    OperatorFactory make = nullptr;   ///< null: listed, but not available in this build
    NodeValidator validate = nullptr; ///< rules beyond the param descriptors; may be null
    PitfallRule pitfalls = nullptr;   ///< may be null
    FieldsRule fields = nullptr;      ///< may be null: unknown unless schemaPassesThrough
};

/// The implementation of a kind, or nullptr when the kind has none in this build.
const KindImpl *findKindImpl(std::string_view kind);

// --- defined in each operator's file, named in its <kind>_kind.cpp ---
std::unique_ptr<Operator> makeGeneratorSource(const OperatorContext &);
std::unique_ptr<Operator> makeFileSource(const OperatorContext &);
void validateFileSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeWatermark(const OperatorContext &);
std::unique_ptr<Operator> makeWindow(const OperatorContext &);
void validateWindow(const NodeValidationContext &);
std::unique_ptr<Operator> makeFileSink(const OperatorContext &);
std::unique_ptr<Operator> makeConsoleSink(const OperatorContext &);
std::unique_ptr<Operator> makeDiscardSink(const OperatorContext &);
void validateGenerator(const NodeValidationContext &);
void validateWatermark(const NodeValidationContext &);
std::unique_ptr<Operator> makeFilter(const OperatorContext &);
void validateFilter(const NodeValidationContext &);
std::unique_ptr<Operator> makeMap(const OperatorContext &);
void validateMap(const NodeValidationContext &);
std::unique_ptr<Operator> makeDedup(const OperatorContext &);
/// dedup under settings.semantics "spark" / "kafka-streams" (dedup/mode_dedup.cpp).
std::unique_ptr<Operator> makeModeDedup(const OperatorContext &);
void validateDedup(const NodeValidationContext &);
std::unique_ptr<Operator> makeJoin(const OperatorContext &);
void validateJoin(const NodeValidationContext &);
std::unique_ptr<Operator> makeEnrich(const OperatorContext &);
void validateEnrich(const NodeValidationContext &);
std::unique_ptr<Operator> makeUpsertSink(const OperatorContext &);
void validateUpsertSink(const NodeValidationContext &);
std::unique_ptr<Operator> makeNexmarkSource(const OperatorContext &);
void validateNexmarkSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeTop(const OperatorContext &);
void validateTop(const NodeValidationContext &);
std::unique_ptr<Operator> makeWindowJoin(const OperatorContext &);
void validateWindowJoin(const NodeValidationContext &);
std::unique_ptr<Operator> makeKafkaSource(const OperatorContext &);
void validateKafkaSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeKafkaSink(const OperatorContext &);
void validateKafkaSink(const NodeValidationContext &);

} // namespace tideline
