// sink.postgres's node kind and its validation beyond the param descriptors: the rules
// readConfig() applies at run time (so validation refuses what the factory would), a
// conninfo password given literally, and the delivery pitfalls visible in the file.

#include "connectors/postgres/pg_conn.hpp"
#include "connectors/postgres/pg_table.hpp"
#include "connectors/postgres/postgres_sink.hpp"
#include "operators/kind_def.hpp"

namespace tideline {

namespace {

ParamDesc param(std::string name, ParamType type, std::string help)
{
    ParamDesc d;
    d.name = std::move(name);
    d.type = type;
    d.help = std::move(help);
    return d;
}

} // namespace

NodeKind postgresSinkKind()
{
    NodeKind n;
    n.kind = "sink.postgres";
    n.displayName = "PostgreSQL";
    n.category = "Sinks";
    n.help = "Writes records as rows of a PostgreSQL table (upsert by key or append), "
             "at-least-once or exactly-once; rows the server refuses go to `errors`.";
    n.isSink = true;
    n.inputs = {{"in", PortRole::Data, true}};
    n.outputs = {{"errors", PortRole::Errors, false}};

    ParamDesc conninfo = param("conninfo", ParamType::String,
                               "libpq connection string (host=... port=... dbname=... user=...); "
                               "a password only as ${env:NAME} or ${file:/path}.");
    conninfo.required = true;
    conninfo.references = true;
    ParamDesc table = param("table", ParamType::String,
                            "Target table, [schema.]name (taken literally, case-sensitive).");
    table.required = true;
    ParamDesc key = param("key", ParamType::StringList,
                          "Conflict columns (primary key or unique index) for mode upsert.");
    ParamDesc field = param("field", ParamType::String, "Record field (a.b for nested).");
    field.required = true;
    ParamDesc type = param("type", ParamType::Enum,
                           "Column type when the sink creates the table (else the table's).");
    type.choices = pg::supportedTypes();
    ParamDesc columns = param("columns", ParamType::ObjectList,
                              "Fields to write and their columns (default: the table's "
                              "columns, filled from fields of the same name).");
    columns.fields = {field,
                      param("column", ParamType::String,
                            "Column name (default: the field, dots as underscores)."),
                      type};
    ParamDesc create = param("create_table", ParamType::Bool,
                             "Create the table when it does not exist (types from `columns`, "
                             "else from the first record).");
    create.defaultValue = false;
    ParamDesc mode = param("mode", ParamType::Enum,
                           "upsert: INSERT ... ON CONFLICT (key) DO UPDATE (updates and replays "
                           "overwrite); append: every record is a new row.");
    mode.choices = {"upsert", "append"};
    mode.defaultValue = "upsert";
    ParamDesc delivery = param("delivery", ParamType::Enum,
                               "at_least_once: a transaction per batch; exactly_once: a "
                               "transaction per checkpoint epoch, with a progress row.");
    delivery.choices = {"at_least_once", "exactly_once"};
    delivery.defaultValue = "at_least_once";
    ParamDesc writer = param("writer", ParamType::String,
                             "exactly_once: this pipeline's name in the progress table (default: "
                             "the table); pipelines sharing a table and a sink id need their own.");
    ParamDesc progress = param("progress_table", ParamType::String,
                               "exactly_once: table of committed epochs (created if missing).");
    progress.defaultValue = "tideline_progress";
    ParamDesc batch = param("batch_rows", ParamType::Int, "Rows per INSERT statement.");
    batch.defaultValue = 1000;
    batch.min = 1;
    batch.max = 100000;
    ParamDesc retry = param("retry_ms", ParamType::Int,
                            "How long a lost connection is retried (backoff) before the last "
                            "checkpoint is restored.");
    retry.defaultValue = 10000;
    retry.min = 0;
    retry.max = 3600000;
    n.params
        = {conninfo, table, key, columns, create, mode, delivery, writer, progress, batch, retry};
    return n;
}

void validatePostgresSink(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (auto it = p.find("conninfo"); it != p.end() && it->is_string()) {
        std::string why;
        if (pg::hasLiteralPassword(it->get<std::string>(), why))
            ctx.error("conninfo", why);
    }
    pg::SinkConfig cfg;
    if (std::string e = pg::readConfig(p, cfg); !e.empty()) {
        // "params.NAME: message" -> the param and its message.
        const std::size_t colon = e.find(": ");
        ctx.error(e.substr(7, colon - 7), e.substr(colon + 2));
        return;
    }
    if (cfg.exactlyOnce && !ctx.spec.settings.contains("checkpoint"))
        ctx.warning("delivery", "exactly_once commits a transaction per checkpoint: without "
                                "settings.checkpoint everything is committed in one transaction "
                                "when a bounded run ends, and kept in the server until then");
    if (!cfg.exactlyOnce && !cfg.upsert && ctx.spec.settings.contains("checkpoint"))
        ctx.warning("mode", "append with at_least_once: after a crash the records since the last "
                            "checkpoint are appended again (duplicate rows); use mode upsert "
                            "with a key, or delivery exactly_once");
}

KindDef postgresKind()
{
    return {postgresSinkKind(), {&makePostgresSink, &validatePostgresSink, nullptr, nullptr}};
}

} // namespace tideline
