#pragma once
// sink.postgres's params (read once, by the factory and the validator alike), the target
// table as the server describes it, and records turned into SQL row literals.
//
// Rows are written as multi-row `INSERT ... VALUES (...), (...)` with every value a quoted
// literal: PostgreSQL coerces each literal to its column's type, so a value that does not
// fit (text into bigint, a malformed timestamp) is refused by the server with its own message
// and that row goes to `errors`. timestamptz columns take integers as epoch milliseconds;
// jsonb/json columns take nested objects (and any value) as JSON text.

#include "connectors/postgres/pg_conn.hpp"

#include <tideline/engine/record.hpp>
#include <tideline/engine/spec.hpp>

#include <string>
#include <vector>

namespace tideline::pg {

enum class ColumnKind { Number, Bool, Time, Json, Text };

struct Column
{
    std::string field;  ///< record field (top-level or dotted path)
    std::string column; ///< column name (taken literally)
    std::string type;   ///< SQL type ("bigint", "timestamp with time zone", ...)
    ColumnKind kind = ColumnKind::Text;
};

/// The types `columns[].type` and create_table accept.
const std::vector<std::string> &supportedTypes();
ColumnKind kindOfType(const std::string &sqlType);

struct SinkConfig
{
    std::string conninfo; ///< unresolved (as in the file)
    std::string table;    ///< [schema.]name, taken literally
    std::vector<std::string> key;
    std::vector<Column> columns; ///< empty: the table's columns
    bool createTable = false;
    bool upsert = true;
    bool exactlyOnce = false;
    std::string progressTable = "tideline_progress";
    std::string writer; ///< names this pipeline in the progress table ("" = the table)
    int batchRows = 1000;
    std::int64_t retryMs = 10000;
};

/// Reads the params; returns "" or "params.X: problem" (the first one).
std::string readConfig(const Json &params, SinkConfig &out);

/// The table's columns (name, SQL type, has a default) or `missing` = true.
struct TableInfo
{
    bool missing = false;
    struct Col
    {
        std::string name, type;
        bool hasDefault = false;
    };
    std::vector<Col> columns;
    bool hasUniqueOn(const std::vector<std::string> &key) const { return uniqueMatches(key); }
    std::vector<std::vector<std::string>> uniqueKeys; ///< column sets of unique indexes
    bool uniqueMatches(const std::vector<std::string> &key) const;
};

/// Describes `table`; "" or the server's reason.
std::string describeTable(Connection &c, const std::string &table, TableInfo &out);

/// Fills `cfg.columns` from the table where they were not given, checks the given ones
/// and the key against it; "" or "params.X: problem".
std::string resolveColumns(SinkConfig &cfg, const TableInfo &table);
/// CREATE TABLE IF NOT EXISTS for the configured columns (key = primary key in upsert mode).
std::string createTableSql(const SinkConfig &cfg);
/// CREATE TABLE IF NOT EXISTS for the progress table.
std::string createProgressSql(const std::string &progressTable);

/// Columns for a table created from the first record (no `columns` given): one per top-level
/// field, typed by its value.
std::vector<Column> columnsFromRecord(const Record &r);

/// Appends "(v1, v2, ...)" for `r`; "" or why the row cannot be written (a NUL in a string).
std::string appendRow(const Record &r, const std::vector<Column> &cols, std::string &out);
/// The key's literals joined (to keep the latest row per key inside one batch).
void appendKey(const Record &r,
               const std::vector<Column> &cols,
               const std::vector<int> &keyCols,
               std::string &out);

/// "INSERT INTO t (cols) VALUES " and the ON CONFLICT tail.
std::string insertHead(const SinkConfig &cfg);
std::string insertTail(const SinkConfig &cfg);

} // namespace tideline::pg
