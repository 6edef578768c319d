// The pipeline spec's model (endpoints, node lookup, diagnostics) and writing it back as JSON.
// Reading a spec is spec_parse.cpp.
#include <tideline/engine/spec.hpp>

namespace tideline {

std::optional<Endpoint> Endpoint::parse(std::string_view s)
{
    auto dot = s.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size())
        return std::nullopt;
    return Endpoint{std::string(s.substr(0, dot)), std::string(s.substr(dot + 1))};
}

const NodeSpec *PipelineSpec::node(std::string_view id) const
{
    for (const auto &n : nodes)
        if (n.id == id)
            return &n;
    return nullptr;
}
NodeSpec *PipelineSpec::node(std::string_view id)
{
    for (auto &n : nodes)
        if (n.id == id)
            return &n;
    return nullptr;
}
int PipelineSpec::nodeIndex(std::string_view id) const
{
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].id == id)
            return static_cast<int>(i);
    return -1;
}

std::string Diagnostic::format() const
{
    std::string s = severity == Severity::Error ? "" : "warning: ";
    std::string rest = path;
    if (nodeIndex >= 0) {
        std::string head = "nodes[" + std::to_string(nodeIndex) + "]";
        s += head + " \"" + nodeId + "\"";
        if (rest.rfind(head, 0) == 0)
            rest = rest.substr(head.size());
        if (!rest.empty() && rest[0] == '.')
            rest = rest.substr(1);
        s += ": ";
    }
    if (!rest.empty())
        s += rest + ": ";
    s += message;
    return s;
}

bool LoadResult::ok() const
{
    if (!spec)
        return false;
    for (const auto &d : diagnostics)
        if (d.isError())
            return false;
    return true;
}

Json specToJson(const PipelineSpec &spec)
{
    Json j = Json::object();
    j["format"] = spec.format;
    if (!spec.name.empty())
        j["name"] = spec.name;
    if (!spec.description.empty())
        j["description"] = spec.description;
    if (!spec.settings.empty())
        j["settings"] = spec.settings;
    Json nodes = Json::array();
    for (const auto &n : spec.nodes) {
        Json jn = Json::object();
        jn["id"] = n.id;
        jn["kind"] = n.kind;
        jn["params"] = n.params;
        if (!n.ui.is_null())
            jn["ui"] = n.ui;
        nodes.push_back(std::move(jn));
    }
    j["nodes"] = std::move(nodes);
    Json edges = Json::array();
    for (const auto &e : spec.edges)
        edges.push_back(Json{{"from", e.from.str()}, {"to", e.to.str()}});
    j["edges"] = std::move(edges);
    if (!spec.ui.is_null())
        j["ui"] = spec.ui;
    return j;
}

std::string writeSpec(const PipelineSpec &spec)
{
    return specToJson(spec).dump(2) + "\n";
}

} // namespace tideline
