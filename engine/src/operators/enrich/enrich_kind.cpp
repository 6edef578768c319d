// The enrich node: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef enrichKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "enrich";
    n.displayName = "Enrich";
    n.category = "Windows & joins";
    n.help = "Looks each record up in a static table loaded at start and adds the row.";
    n.inputs = {data("in")};
    n.outputs = {data("out"), late()};
    n.params = {req(input(p("table", ParamType::Path, "CSV or JSON-lines file with the table."))),
                choices(p("format", ParamType::Enum, "Table format (default: by extension)."),
                        {"jsonl", "csv"}),
                req(p("key", ParamType::String, "Stream field to look up.")),
                req(p("table_key", ParamType::String, "Table column to match.")),
                choices(def(p("on_miss", ParamType::Enum,
                              "No row: pass unchanged, drop (counted) or send to late."),
                            "pass"),
                        {"pass", "drop", "late"}),
                p("as", ParamType::String, "Field to put the row under (default: node id).")};
    kind.impl = {&makeEnrich, &validateEnrich, nullptr, nullptr};
    return kind;
}

} // namespace tideline
