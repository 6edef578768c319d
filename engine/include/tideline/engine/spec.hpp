#pragma once
// PipelineSpec: the pipeline file (format "tideline/1"), the only serialized type.
//
// This is the ONE loader/writer of pipeline JSON; the designer and the runner both use it.
// Runtime types (operators, state) are never serialized through it. Loading never throws: it
// returns every problem at once as Diagnostics carrying node id, JSON path and a hint.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

/// Key order of params is preserved so that saved files diff cleanly.
using Json = nlohmann::ordered_json;

inline constexpr std::string_view kFormatV1 = "tideline/1";

struct NodeSpec
{
    std::string id;
    std::string kind;
    Json params = Json::object();
    Json ui; ///< Layout only ({"x":..,"y":..}); null when absent. The runner ignores it.

    bool operator==(const NodeSpec &) const = default;
};

struct Endpoint
{
    std::string node;
    std::string port;
    std::string str() const { return node + "." + port; }
    bool operator==(const Endpoint &) const = default;
    /// Parses "node.port" (the port is after the last dot). nullopt when malformed.
    static std::optional<Endpoint> parse(std::string_view s);
};

struct EdgeSpec
{
    Endpoint from;
    Endpoint to;
    bool operator==(const EdgeSpec &) const = default;
};

struct PipelineSpec
{
    std::string format = std::string(kFormatV1);
    std::string name;
    std::string description;
    Json settings = Json::object();
    std::vector<NodeSpec> nodes;
    std::vector<EdgeSpec> edges;
    Json ui; ///< Document-level layout (view position); optional.

    bool operator==(const PipelineSpec &) const = default;

    const NodeSpec *node(std::string_view id) const;
    NodeSpec *node(std::string_view id);
    int nodeIndex(std::string_view id) const;
};

struct Diagnostic
{
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    std::string nodeId;  ///< Empty for file-level problems.
    int nodeIndex = -1;  ///< Index in `nodes`, -1 when not about a node.
    std::string path;    ///< JSON path inside the file, e.g. "nodes[2].params.size_ms".
    std::string param;   ///< The param the problem is about (for focusing a field), or "".
    std::string message; ///< What is wrong and how to fix it.
    int column = -1;     ///< For expressions: 0-based column of the problem, else -1.

    bool isError() const { return severity == Severity::Error; }
    /// `nodes[2] "per_user": params.size_ms: must be > 0` (the runner's stderr format).
    std::string format() const;
};

struct LoadResult
{
    std::optional<PipelineSpec>
        spec; ///< Set when the file has the right shape (may still be invalid).
    std::vector<Diagnostic> diagnostics;
    bool ok() const;
};

struct ParseLimits
{
    std::size_t maxBytes = 16u << 20; ///< Largest accepted pipeline file (16 MiB).
    int maxDepth = 64;                ///< Deepest accepted nesting.
};

/// Checks size and nesting depth of JSON text without recursion (nlohmann copies and dumps
/// recursively and crashes on very deep documents). Returns an error message or "".
std::string checkJsonShape(std::string_view text, std::size_t maxBytes, int maxDepth);

/// Parses pipeline JSON into a spec: file shape only (kinds, params and graph are checked by
/// validate()). Unknown top-level keys are errors.
LoadResult parseSpec(std::string_view text, ParseLimits limits = {});
/// parseSpec + validate, the usual entry point.
LoadResult loadSpec(std::string_view text, ParseLimits limits = {});
/// loadSpec of a file; paths in it are also checked as resolved against its folder.
LoadResult loadSpecFile(const std::string &path, ParseLimits limits = {});

/// Writes the spec as pretty JSON (2-space indent, trailing newline). load(write(s)) == s.
std::string writeSpec(const PipelineSpec &spec);
Json specToJson(const PipelineSpec &spec);

} // namespace tideline
