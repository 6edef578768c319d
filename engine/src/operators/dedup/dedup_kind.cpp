// The dedup node: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef dedupKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "dedup";
    n.schemaPassesThrough = true;
    n.stateKeyParam = "key";
    n.displayName = "Dedup";
    n.category = "Windows & joins";
    n.help = "Passes the first record of each key; drops repeats while the key is "
             "remembered (until W >= first time + within_ms).";
    n.needsEventTime = true;
    n.inputs = {data("in")};
    n.outputs = {data("out"), late()};
    n.params = {req(p("key", ParamType::StringList, "Fields that identify a record.")),
                range(req(p("within_ms", ParamType::Int,
                            "How long (event time) a key is "
                            "remembered.")),
                      1)};
    kind.impl = {&makeDedup, &validateDedup, nullptr, nullptr};
    return kind;
}

} // namespace tideline
