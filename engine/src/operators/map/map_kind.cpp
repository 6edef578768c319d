// The map node: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "expr/schema.hpp"
#include "operators/kind_def.hpp"

namespace tideline {

namespace {

// `set` adds the fields it computes, then `keep` keeps only those named, then `drop` removes.
std::vector<std::string> mapFields(const Json &params, std::vector<std::string> f)
{
    if (auto it = params.find("set"); it != params.end() && it->is_object())
        for (auto s = it->begin(); s != it->end(); ++s)
            if (!expr::fieldKnown(f, s.key()))
                f.push_back(s.key());
    if (auto it = params.find("keep"); it != params.end() && it->is_array() && !it->empty()) {
        std::vector<std::string> kept;
        for (const auto &k : *it)
            if (k.is_string() && expr::fieldKnown(f, k.get<std::string>()))
                kept.push_back(k.get<std::string>());
        f = kept;
    }
    if (auto it = params.find("drop"); it != params.end() && it->is_array())
        for (const auto &d : *it)
            if (d.is_string())
                std::erase(f, d.get<std::string>());
    return f;
}

} // namespace

using namespace describe;

KindDef mapKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "map";
    n.forwardsUpdates = true;
    n.displayName = "Map";
    n.category = "Transform";
    n.help = "Computes fields (set), then keeps or drops fields.";
    n.inputs = {data("in")};
    n.outputs = {data("out")};
    n.params = {p("set", ParamType::ExprMap, "{field: expression} computed for each record."),
                p("keep", ParamType::StringList, "Keep only these fields (after set)."),
                p("drop", ParamType::StringList, "Remove these fields (after set).")};
    kind.impl = {&makeMap, &validateMap, nullptr, &mapFields};
    return kind;
}

} // namespace tideline
