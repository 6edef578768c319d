// The discard sink: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef discardSinkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "sink.discard";
    n.displayName = "Discard";
    n.category = "Sinks";
    n.help = "Counts records and keeps an order-independent checksum, writes nothing "
             "(benchmarks, dry runs).";
    n.isSink = true;
    n.inputs = {data("in", true)};
    kind.impl = {&makeDiscardSink, nullptr, nullptr, nullptr};
    return kind;
}

} // namespace tideline
