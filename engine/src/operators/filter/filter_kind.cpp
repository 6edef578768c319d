// The filter node: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef filterKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "filter";
    n.forwardsUpdates = true;
    n.schemaPassesThrough = true;
    n.displayName = "Filter";
    n.category = "Transform";
    n.help = "Keeps records for which the expression is true.";
    n.inputs = {data("in")};
    n.outputs = {data("out")};
    n.params
        = {req(p("expr", ParamType::Expr, "e.g. value > 10 and lower(country) in ['de', 'fr']"))};
    kind.impl = {&makeFilter, &validateFilter, nullptr, nullptr};
    return kind;
}

} // namespace tideline
