// The top node (max with ties): its catalog entry (ports, params, traits) and its implementation
// (factory and validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef topKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "top";
    n.stateKeyParam = "by";
    n.displayName = "Top (max with ties)";
    n.category = "Windows & joins";
    n.help = "Per group, keeps the rows with the largest (or smallest) value of a field, ties "
             "included, and emits them when the watermark completes the group.";
    n.needsEventTime = true;
    n.inputs = {data("in")};
    n.outputs = {data("out"), late()};
    n.params = {
        req(p("field", ParamType::String, "Numeric field to rank by, e.g. num or bid.price.")),
        choices(def(p("order", ParamType::Enum,
                      "max keeps the largest values, min the "
                      "smallest."),
                    "max"),
                {"max", "min"}),
        range(p("size_ms", ParamType::Int,
                "Tumbling window assigned here (adds window_start/window_end); without it "
                "rows are grouped by `by` and a group completes at its latest event time."),
              1),
        p("by", ParamType::StringList,
          "Group fields (default: [\"window_start\", \"window_end\"] without size_ms, none "
          "with it)."),
    };
    kind.impl = {&makeTop, &validateTop, nullptr, nullptr};
    return kind;
}

} // namespace tideline
