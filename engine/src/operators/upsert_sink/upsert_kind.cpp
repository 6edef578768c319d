// The upsert table sink: its catalog entry (ports, params, traits) and its implementation (factory
// and validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

KindDef upsertSinkKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "sink.upsert";
    n.writesFolder = true;
    n.displayName = "Upsert table";
    n.category = "Sinks";
    n.help = "Keeps the latest record per key in a RocksDB table; replays never duplicate "
             "rows. A record whose key is missing, null or an object goes to `errors`.";
    n.isSink = true;
    n.inputs = {data("in", true)};
    n.outputs = {errors()};
    n.params = {req(p("path", ParamType::Path, "Table folder (RocksDB).")),
                req(p("key", ParamType::StringList, "Fields that identify a row."))};
    kind.impl = {&makeUpsertSink, &validateUpsertSink, nullptr, nullptr};
    return kind;
}

} // namespace tideline
