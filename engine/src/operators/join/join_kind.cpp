// The interval join: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef joinKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "join";
    n.stateKeyParam = "left_key";
    n.displayName = "Interval join";
    n.category = "Windows & joins";
    n.help = "Joins left and right records with equal keys when "
             "l.t + lower_ms <= r.t <= l.t + upper_ms.";
    n.needsEventTime = true;
    n.inputs = {data("left"), data("right")};
    n.outputs = {data("out"), late()};
    n.params = {req(p("left_key", ParamType::StringList, "Key fields of left records.")),
                req(p("right_key", ParamType::StringList, "Key fields of right records.")),
                req(p("lower_ms", ParamType::Int, "Lower bound of r.t - l.t (may be < 0).")),
                req(p("upper_ms", ParamType::Int, "Upper bound of r.t - l.t.")),
                choices(def(p("type", ParamType::Enum,
                              "left_outer also emits left records that never matched."),
                            "inner"),
                        {"inner", "left_outer"})};
    kind.impl = {&makeJoin, &validateJoin, nullptr, nullptr};
    return kind;
}

} // namespace tideline
