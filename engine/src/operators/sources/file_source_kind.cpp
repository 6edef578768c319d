// The file source: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef fileSourceKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "source.file";
    n.displayName = "File source";
    n.category = "Sources";
    n.help = "Reads records from a JSON-lines or CSV file in file order.";
    n.isSource = true;
    n.outputs = {data("out"), errors()};
    n.params
        = {req(input(p("path", ParamType::Path, "File to read (relative to the pipeline file)."))),
           choices(def(p("format", ParamType::Enum,
                         "jsonl: one JSON object per line; "
                         "csv: header line then rows."),
                       "jsonl"),
                   {"jsonl", "csv"}),
           paceParam()};
    kind.impl = {&makeFileSource, &validateFileSource, nullptr, nullptr};
    return kind;
}

} // namespace tideline
