// The file sink: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef fileSinkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "sink.file";
    n.displayName = "File sink";
    n.category = "Sinks";
    n.help = "Writes records as JSON lines or CSV.";
    n.isSink = true;
    n.acceptsUpdates = false;
    n.inputs = {data("in", true)};
    n.params
        = {req(p("path", ParamType::Path, "File to write (relative to the pipeline file).")),
           choices(def(p("format", ParamType::Enum, "jsonl or csv."), "jsonl"), {"jsonl", "csv"})};
    kind.impl = {&makeFileSink, nullptr, nullptr, nullptr};
    return kind;
}

} // namespace tideline
