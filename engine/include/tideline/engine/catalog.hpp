#pragma once
// The catalog of node kinds: ports and parameter descriptors, published by the engine.
//
// One source of truth: validation checks params against these descriptors, the designer
// generates its inspector forms from them, and the format reference documents them. What the
// engine needs to know of a kind beyond its ports and params is a trait below, never a test
// of its name; the kind's code lives next to its operator (ARCHITECTURE.md, "Node kinds").

#include <tideline/engine/spec.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tideline {

enum class ParamType {
    Int,    ///< integer (JSON number without fraction)
    Number, ///< any JSON number
    Bool,
    String,
    Enum,       ///< string from `choices`
    Path,       ///< file path (relative to the pipeline file's folder)
    Expr,       ///< expression (filter/map language)
    StringList, ///< array of field paths / strings
    ExprMap,    ///< object {field: expression}
    Object,     ///< nested object with its own `fields`
    ObjectList, ///< array of objects with `fields` (window aggregates)
    StringMap,  ///< object {string: string} (Kafka properties)
};

const char *paramTypeName(ParamType t);

struct ParamDesc
{
    std::string name;
    ParamType type = ParamType::String;
    bool required = false;
    Json defaultValue;         ///< null when there is none
    std::optional<double> min; ///< inclusive bounds for Int/Number
    std::optional<double> max;
    std::vector<std::string> choices; ///< for Enum
    std::string help;                 ///< one sentence, shown in the inspector
    bool secret = false;              ///< must be given as ${env:..}/${file:..}
    /// ${env:NAME} / ${file:/path} references are resolved in this param (connection
    /// settings, secrets, paths). Everywhere else such text is a validation error, and the
    /// runtime never resolves it: an expression or a computed field cannot read a file.
    bool references = false;
    /// Path: a file the node reads when it starts. Such a node's open() only reads, so
    /// validateEnvironment() opens the node to judge the file as the run does.
    bool input = false;
    std::vector<ParamDesc> fields; ///< for Object / ObjectList
};

enum class PortRole { Data, Late, Errors };

struct PortDesc
{
    std::string name;
    PortRole role = PortRole::Data;
    bool multi = false; ///< input only: accepts several edges (a union), e.g. sinks
};

struct NodeKind
{
    std::string kind;        ///< "window"
    std::string displayName; ///< "Window"
    std::string category;    ///< "Sources", "Time", "Transform", "Windows & joins", "Sinks"
    std::string help;
    std::vector<PortDesc> inputs;
    std::vector<PortDesc> outputs;
    std::vector<ParamDesc> params;
    bool needsEventTime = false; ///< requires an upstream `watermark` node
    bool isSource = false;
    bool isSink = false;
    bool acceptsUpdates = true; ///< sinks: can take "emit":"update" records meaningfully
    /// The param naming the fields its state is split by ("key", "by", "left_key"); "" when
    /// it keeps no per-key state. Empty in a node: one state for every record.
    std::string stateKeyParam;

    // --- traits: what the engine asks of a kind, instead of testing its name ---
    /// The watermark node: it assigns event time (records leaving its data ports carry it,
    /// those on `errors` do not) and its output watermark is its own, not its inputs'.
    bool assignsEventTime = false;
    /// filter, map: every output record comes from one input record and an update stays an
    /// update, so a sink reached through it receives what the node upstream emits.
    bool forwardsUpdates = false;
    /// watermark, filter, dedup: output records have exactly the fields of the input's.
    bool schemaPassesThrough = false;
    /// A source whose records always have these top-level fields (the generator); empty when
    /// they depend on the data.
    std::vector<std::string> fixedFields;
    /// sink.upsert: its `path` is a folder it writes, not a file.
    bool writesFolder = false;
    /// source.kafka: reads a topic other processes write, so it is partitioned, its event
    /// times come from the producers' clocks, and unbounded it joins a consumer group.
    bool readsTopic = false;

    const ParamDesc *param(std::string_view name) const;
    const PortDesc *input(std::string_view name) const;
    const PortDesc *output(std::string_view name) const;
};

/// Every node kind, in palette order.
const std::vector<NodeKind> &nodeKinds();
const NodeKind *findNodeKind(std::string_view kind);

/// A params object filled with every param's default (what the designer puts in a new node).
Json defaultParams(const NodeKind &kind);

/// Closest candidate by edit distance, or "" when nothing is close (for "did you mean").
std::string closestMatch(std::string_view word, const std::vector<std::string> &candidates);

} // namespace tideline
