// The console sink: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef consoleSinkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "sink.console";
    n.displayName = "Console";
    n.category = "Sinks";
    n.help = "Prints records as JSON lines to standard output.";
    n.isSink = true;
    n.acceptsUpdates = false;
    n.inputs = {data("in", true)};
    kind.impl = {&makeConsoleSink, nullptr, nullptr, nullptr};
    return kind;
}

} // namespace tideline
