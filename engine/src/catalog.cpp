// The catalog of node kinds as the engine publishes it. Each kind's entry is written in its
// own <kind>_kind.cpp next to its operator and listed in operators/kind_list.cpp; help texts
// are written for the designer's inspector: one sentence, what and why.

#include "operators/kind_def.hpp"

#include <tideline/engine/catalog.hpp>

#include <algorithm>

namespace tideline {

const char *paramTypeName(ParamType t)
{
    switch (t) {
    case ParamType::Int:
        return "integer";
    case ParamType::Number:
        return "number";
    case ParamType::Bool:
        return "boolean";
    case ParamType::String:
        return "string";
    case ParamType::Enum:
        return "string";
    case ParamType::Path:
        return "string (path)";
    case ParamType::Expr:
        return "string (expression)";
    case ParamType::StringList:
        return "array of strings";
    case ParamType::ExprMap:
        return "object {field: expression}";
    case ParamType::Object:
        return "object";
    case ParamType::ObjectList:
        return "array of objects";
    case ParamType::StringMap:
        return "object {name: string}";
    }
    return "?";
}

const ParamDesc *NodeKind::param(std::string_view name) const
{
    for (const auto &d : params)
        if (d.name == name)
            return &d;
    return nullptr;
}
const PortDesc *NodeKind::input(std::string_view name) const
{
    for (const auto &d : inputs)
        if (d.name == name)
            return &d;
    return nullptr;
}
const PortDesc *NodeKind::output(std::string_view name) const
{
    for (const auto &d : outputs)
        if (d.name == name)
            return &d;
    return nullptr;
}

const std::vector<NodeKind> &nodeKinds()
{
    static const std::vector<NodeKind> kinds = [] {
        std::vector<NodeKind> k;
        for (const auto &d : kindDefs())
            k.push_back(d.desc);
        return k;
    }();
    return kinds;
}

const NodeKind *findNodeKind(std::string_view kind)
{
    for (const auto &k : nodeKinds())
        if (k.kind == kind)
            return &k;
    return nullptr;
}

Json defaultParams(const NodeKind &kind)
{
    Json params = Json::object();
    for (const auto &d : kind.params) {
        if (d.type == ParamType::Object) {
            Json sub = Json::object();
            for (const auto &f : d.fields)
                if (!f.defaultValue.is_null())
                    sub[f.name] = f.defaultValue;
            if (d.required)
                params[d.name] = sub;
        } else if (!d.defaultValue.is_null()) {
            params[d.name] = d.defaultValue;
        }
    }
    return params;
}

std::string closestMatch(std::string_view word, const std::vector<std::string> &candidates)
{
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j)
            prev[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i) {
            cur[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
                cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
            }
            std::swap(prev, cur);
        }
        return prev[b.size()];
    };
    std::string best;
    std::size_t bestD = std::string::npos;
    for (const auto &c : candidates) {
        std::size_t d = distance(word, c);
        // A common prefix (size -> size_ms) is a strong hint even when the distance is large.
        bool prefix = c.rfind(word, 0) == 0 || std::string_view(word).rfind(c, 0) == 0;
        if (prefix)
            d = std::min<std::size_t>(d, 1);
        if (d < bestD) {
            bestD = d;
            best = c;
        }
    }
    std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
    return bestD <= limit ? best : std::string();
}

} // namespace tideline
