// The window join: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef windowJoinKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "window_join";
    n.stateKeyParam = "left_key";
    n.displayName = "Window join";
    n.category = "Windows & joins";
    n.help = "Joins left and right records with equal keys that fall in the same tumbling "
             "window; emits when the window closes.";
    n.needsEventTime = true;
    n.inputs = {data("left"), data("right")};
    n.outputs = {data("out"), late()};
    n.params = {
        range(req(p("size_ms", ParamType::Int, "Tumbling window length.")), 1),
        req(p("left_key", ParamType::StringList, "Key fields of left records.")),
        req(p("right_key", ParamType::StringList, "Key fields of right records.")),
        choices(def(p("output", ParamType::Enum,
                      "pairs: {left, right} per matching pair; left_semi: each left record "
                      "once when some right record matches (SQL IN / EXISTS)."),
                    "pairs"),
                {"pairs", "left_semi"}),
    };
    kind.impl = {&makeWindowJoin, &validateWindowJoin, nullptr, nullptr};
    return kind;
}

} // namespace tideline
