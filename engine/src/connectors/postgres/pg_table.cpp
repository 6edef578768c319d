#include "connectors/postgres/pg_table.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>

namespace tideline::pg {

const std::vector<std::string> &supportedTypes()
{
    static const std::vector<std::string> t
        = {"bigint", "double precision", "text", "boolean", "timestamptz", "jsonb"};
    return t;
}

ColumnKind kindOfType(const std::string &t)
{
    if (t == "bigint" || t == "integer" || t == "smallint" || t == "double precision" || t == "real"
        || t.rfind("numeric", 0) == 0)
        return ColumnKind::Number;
    if (t == "boolean")
        return ColumnKind::Bool;
    if (t == "timestamptz" || t.rfind("timestamp", 0) == 0 || t == "date")
        return ColumnKind::Time;
    if (t == "jsonb" || t == "json")
        return ColumnKind::Json;
    return ColumnKind::Text;
}

namespace {

bool validName(const std::string &s)
{
    return !s.empty() && s.find('\0') == std::string::npos && s.size() <= 63;
}

std::string stringList(const Json &p, const char *name, std::vector<std::string> &out)
{
    auto it = p.find(name);
    if (it == p.end())
        return {};
    if (!it->is_array())
        return std::string("params.") + name + ": a list of column names";
    for (const auto &v : *it) {
        if (!v.is_string() || !validName(v.get<std::string>()))
            return std::string("params.") + name + ": each entry is a column name (1-63 bytes)";
        out.push_back(v.get<std::string>());
    }
    return {};
}

} // namespace

std::string readConfig(const Json &p, SinkConfig &c)
{
    c.conninfo = p.value("conninfo", std::string());
    c.table = p.value("table", std::string());
    if (c.table.empty())
        return "params.table: name the table to write ([schema.]name)";
    if (std::count(c.table.begin(), c.table.end(), '.') > 1 || c.table.front() == '.'
        || c.table.back() == '.' || c.table.size() > 127)
        return "params.table: `" + c.table
               + "` is not [schema.]name (names are taken literally, without quotes)";
    if (std::string e = stringList(p, "key", c.key); !e.empty())
        return e;
    const std::string mode = p.value("mode", std::string("upsert"));
    c.upsert = mode == "upsert";
    c.exactlyOnce = p.value("delivery", std::string("at_least_once")) == "exactly_once";
    c.createTable = p.value("create_table", false);
    c.progressTable = p.value("progress_table", std::string("tideline_progress"));
    c.writer = p.value("writer", std::string());
    if (c.writer.empty())
        c.writer = c.table;
    c.batchRows = p.value("batch_rows", 1000);
    c.retryMs = p.value("retry_ms", std::int64_t(10000));
    if (c.upsert && c.key.empty())
        return "params.key: mode upsert needs the conflict columns (the table's primary key or a "
               "unique index), e.g. [\"user_id\", \"window_start\"]";
    if (auto it = p.find("columns"); it != p.end()) {
        if (!it->is_array())
            return "params.columns: a list of {field, column, type}";
        std::set<std::string> seen;
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json &e = (*it)[i];
            const std::string at = "params.columns[" + std::to_string(i) + "]";
            if (!e.is_object() || !e.contains("field") || !e["field"].is_string())
                return at + ".field: name the record field";
            Column col;
            col.field = e["field"].get<std::string>();
            col.column = e.value("column", std::string());
            if (col.column.empty()) {
                col.column = col.field;
                std::replace(col.column.begin(), col.column.end(), '.', '_');
            }
            if (!validName(col.column))
                return at + ".column: a column name of 1-63 bytes";
            if (!seen.insert(col.column).second)
                return at + ".column: `" + col.column + "` is mapped twice";
            col.type = e.value("type", std::string());
            if (!col.type.empty()) {
                const auto &ts = supportedTypes();
                if (std::find(ts.begin(), ts.end(), col.type) == ts.end())
                    return at + ".type: `" + col.type
                           + "` is not one of bigint, double precision, text, boolean, "
                             "timestamptz, jsonb";
                col.kind = kindOfType(col.type);
            }
            c.columns.push_back(std::move(col));
        }
        if (c.createTable)
            for (std::size_t i = 0; i < c.columns.size(); ++i)
                if (c.columns[i].type.empty())
                    return "params.columns[" + std::to_string(i)
                           + "].type: create_table needs each column's type";
        for (const auto &k : c.key)
            if (!seen.count(k))
                return "params.key: `" + k + "` is not one of the columns";
    }
    return {};
}

bool TableInfo::uniqueMatches(const std::vector<std::string> &key) const
{
    std::set<std::string> want(key.begin(), key.end());
    for (const auto &u : uniqueKeys)
        if (std::set<std::string>(u.begin(), u.end()) == want)
            return true;
    return false;
}

std::string describeTable(Connection &c, const std::string &table, TableInfo &out)
{
    out = {};
    const std::string reg = quoteQualified(table);
    Result r = c.execParams("SELECT a.attname, format_type(a.atttypid, a.atttypmod),"
                            " a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''"
                            " FROM pg_attribute a WHERE a.attrelid = to_regclass($1)"
                            " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                            {reg});
    if (!r.ok)
        return r.message;
    if (r.rows.empty()) {
        Result e = c.execParams("SELECT to_regclass($1) IS NULL", {reg});
        if (!e.ok)
            return e.message;
        out.missing = e.rows.empty() || e.rows[0][0] == "t";
        if (out.missing)
            return {};
    }
    for (const auto &row : r.rows) {
        std::string type = row[1] == "timestamp with time zone" ? "timestamptz" : row[1];
        out.columns.push_back({row[0], type, row[2] == "t"});
    }
    Result u
        = c.execParams("SELECT array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey) k"
                       " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k), chr(1))"
                       " FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisunique",
                       {reg});
    if (!u.ok)
        return u.message;
    for (const auto &row : u.rows) {
        std::vector<std::string> cols;
        std::string cur;
        for (char ch : row[0]) {
            if (ch == '\1') {
                cols.push_back(cur);
                cur.clear();
            } else {
                cur += ch;
            }
        }
        cols.push_back(cur);
        out.uniqueKeys.push_back(std::move(cols));
    }
    return {};
}

std::string resolveColumns(SinkConfig &cfg, const TableInfo &t)
{
    auto find = [&](const std::string &name) -> const TableInfo::Col * {
        for (const auto &c : t.columns)
            if (c.name == name)
                return &c;
        return nullptr;
    };
    if (cfg.columns.empty()) {
        // Every column a record can fill: those with a default (serial ids, now()) are left
        // to the server unless they are part of the key.
        for (const auto &c : t.columns) {
            bool isKey = std::find(cfg.key.begin(), cfg.key.end(), c.name) != cfg.key.end();
            if (c.hasDefault && !isKey)
                continue;
            cfg.columns.push_back({c.name, c.name, c.type, kindOfType(c.type)});
        }
    } else {
        for (std::size_t i = 0; i < cfg.columns.size(); ++i) {
            auto &col = cfg.columns[i];
            const TableInfo::Col *tc = find(col.column);
            if (!tc)
                return "params.columns[" + std::to_string(i) + "].column: the table " + cfg.table
                       + " has no column `" + col.column + "`";
            col.type = tc->type;
            col.kind = kindOfType(tc->type);
        }
    }
    for (const auto &k : cfg.key)
        if (!find(k))
            return "params.key: the table " + cfg.table + " has no column `" + k + "`";
    if (cfg.upsert && !t.uniqueMatches(cfg.key)) {
        std::string keys;
        for (const auto &k : cfg.key)
            keys += (keys.empty() ? "" : ", ") + k;
        return "params.key: the table " + cfg.table + " has no primary key or unique index on ("
               + keys + "), which INSERT ... ON CONFLICT needs; add one, or use mode append";
    }
    return {};
}

std::string createTableSql(const SinkConfig &cfg)
{
    std::string sql = "CREATE TABLE IF NOT EXISTS " + quoteQualified(cfg.table) + " (";
    for (std::size_t i = 0; i < cfg.columns.size(); ++i)
        sql += (i ? ", " : "") + quoteIdent(cfg.columns[i].column) + " " + cfg.columns[i].type;
    if (cfg.upsert && !cfg.key.empty()) {
        sql += ", PRIMARY KEY (";
        for (std::size_t i = 0; i < cfg.key.size(); ++i)
            sql += (i ? ", " : "") + quoteIdent(cfg.key[i]);
        sql += ")";
    }
    return sql + ")";
}

std::string createProgressSql(const std::string &progressTable)
{
    // One row per committed checkpoint epoch of each (writer, node): the primary key makes a
    // second commit of the same epoch fail instead of applying its rows twice.
    return "CREATE TABLE IF NOT EXISTS " + quoteQualified(progressTable)
           + " (pipeline text NOT NULL, node text NOT NULL, epoch bigint NOT NULL,"
             " checkpoint_id bigint, rows bigint NOT NULL, committed_by text NOT NULL,"
             " committed_at timestamptz NOT NULL DEFAULT now(),"
             " PRIMARY KEY (pipeline, node, epoch))";
}

std::vector<Column> columnsFromRecord(const Record &r)
{
    std::vector<Column> cols;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < r.size(); ++i) {
        std::string name(r.nameAt(i));
        const std::size_t end = fieldpath::segmentEnd(name, 0);
        const bool nested = end < name.size();
        std::string top;
        fieldpath::appendUnquoted(top, std::string_view(name).substr(0, end));
        if (!seen.insert(top).second)
            continue;
        Column c;
        c.field = name.substr(0, end);
        c.column = top;
        const Value v = r.valueAt(i);
        if (nested || v.type == ValueType::Raw)
            c.type = "jsonb";
        else if (v.type == ValueType::Int)
            c.type = "bigint";
        else if (v.type == ValueType::Double)
            c.type = "double precision";
        else if (v.type == ValueType::Bool)
            c.type = "boolean";
        else
            c.type = "text";
        c.kind = kindOfType(c.type);
        cols.push_back(std::move(c));
    }
    return cols;
}

namespace {

void appendEpochMs(std::int64_t ms, std::string &out)
{
    std::int64_t secs = ms / 1000, frac = ms % 1000;
    if (frac < 0) {
        frac += 1000;
        --secs;
    }
    std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03d+00", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(frac));
    out += buf;
}

/// The JSON text of the object at `path` (its fields re-rooted into a record of their own).
std::string objectJson(const Record &r, std::string_view path)
{
    Record sub;
    for (std::size_t i = 0; i < r.size(); ++i) {
        std::string_view n = r.nameAt(i);
        if (n.size() > path.size() && n.compare(0, path.size(), path) == 0 && n[path.size()] == '.')
            sub.set(n.substr(path.size() + 1), r.valueAt(i));
    }
    std::string out;
    appendJson(sub, out);
    return out;
}

} // namespace

std::string appendRow(const Record &r, const std::vector<Column> &cols, std::string &out)
{
    out += '(';
    std::string text;
    for (std::size_t c = 0; c < cols.size(); ++c) {
        if (c)
            out += ", ";
        const Column &col = cols[c];
        const int idx = r.indexOf(col.field);
        if (idx < 0) {
            if (r.hasObject(col.field))
                appendLiteral(out, objectJson(r, col.field));
            else
                out += "NULL";
            continue;
        }
        const Value v = r.valueAt(static_cast<std::size_t>(idx));
        text.clear();
        switch (v.type) {
        case ValueType::Null:
            out += "NULL";
            continue;
        case ValueType::Bool:
            text = v.b ? "true" : "false";
            break;
        case ValueType::Int:
            if (col.kind == ColumnKind::Time)
                appendEpochMs(v.i, text);
            else
                text = std::to_string(v.i);
            break;
        case ValueType::Double:
            // Out of int64's range the cast is undefined; such a time goes as written and
            // PostgreSQL's rejection of it names the row.
            if (col.kind == ColumnKind::Time && std::isfinite(v.d) && std::fabs(v.d) < 9.2e18)
                appendEpochMs(static_cast<std::int64_t>(std::floor(v.d)), text);
            else
                appendJsonValue(v, text);
            break;
        case ValueType::String:
            if (col.kind == ColumnKind::Json)
                appendJsonString(v.s, text);
            else
                text.assign(v.s);
            break;
        case ValueType::Raw:
            text.assign(v.s);
            break;
        }
        if (text.find('\0') != std::string::npos)
            return "field `" + col.field + "` holds a NUL byte, which PostgreSQL text cannot";
        appendLiteral(out, text);
    }
    out += ')';
    return {};
}

void appendKey(const Record &r,
               const std::vector<Column> &cols,
               const std::vector<int> &keyCols,
               std::string &out)
{
    for (int k : keyCols) {
        const int idx = r.indexOf(cols[static_cast<std::size_t>(k)].field);
        if (idx < 0) {
            out += "\x01N";
            continue;
        }
        out += '\x01';
        appendJsonValue(r.valueAt(static_cast<std::size_t>(idx)), out);
    }
}

std::string insertHead(const SinkConfig &cfg)
{
    std::string sql = "INSERT INTO " + quoteQualified(cfg.table) + " (";
    for (std::size_t i = 0; i < cfg.columns.size(); ++i)
        sql += (i ? ", " : "") + quoteIdent(cfg.columns[i].column);
    return sql + ") VALUES ";
}

std::string insertTail(const SinkConfig &cfg)
{
    if (!cfg.upsert)
        return {};
    std::string sql = " ON CONFLICT (";
    for (std::size_t i = 0; i < cfg.key.size(); ++i)
        sql += (i ? ", " : "") + quoteIdent(cfg.key[i]);
    sql += ") DO ";
    std::string set;
    for (const auto &c : cfg.columns)
        if (std::find(cfg.key.begin(), cfg.key.end(), c.column) == cfg.key.end())
            set += (set.empty() ? "" : ", ") + quoteIdent(c.column) + " = EXCLUDED."
                   + quoteIdent(c.column);
    return sql + (set.empty() ? "NOTHING" : "UPDATE SET " + set);
}

} // namespace tideline::pg
