// The designer's probes of a sink.postgres node (postgres_probe.hpp): one short-lived
// connection each, with the same redaction rules as the sink.

#include "connectors/postgres/pg_conn.hpp"
#include "connectors/postgres/pg_table.hpp"
#include "runtime/references.hpp"

#include <tideline/engine/postgres_probe.hpp>

#include <stdexcept>

namespace tideline {

namespace {

/// Opens the node's connection; on failure `p` says why.
std::unique_ptr<pg::Connection> connect(const NodeSpec &node, pg::SinkConfig &cfg, PostgresProbe &p)
{
    if (std::string e = pg::readConfig(node.params, cfg); !e.empty()) {
        p.message = e;
        return nullptr;
    }
    std::string conninfo;
    try {
        conninfo = refs::resolveReferences(cfg.conninfo);
    } catch (const std::exception &e) {
        p.message = std::string("params.conninfo: ") + e.what();
        return nullptr;
    }
    auto c = std::make_unique<pg::Connection>(conninfo, node.id);
    if (std::string e = c->connect(); !e.empty()) {
        p.message = e;
        return nullptr;
    }
    return c;
}

} // namespace

PostgresProbe testPostgresConnection(const NodeSpec &node)
{
    PostgresProbe p;
    pg::SinkConfig cfg;
    auto c = connect(node, cfg, p);
    if (!c)
        return p;
    pg::Result v = c->exec("SHOW server_version");
    const std::string version = v.ok && !v.rows.empty() ? v.rows[0][0] : "?";
    std::string head = "connected to " + c->redacted() + " (PostgreSQL " + version + ")";
    pg::TableInfo t;
    if (std::string e = pg::describeTable(*c, cfg.table, t); !e.empty()) {
        p.message = head + ", but the table cannot be read: " + e;
        return p;
    }
    if (t.missing) {
        p.ok = cfg.createTable;
        p.message = head + ": the table " + cfg.table + " does not exist"
                    + (cfg.createTable ? " (the sink creates it: create_table)"
                                       : "; create it, or set create_table: true");
        return p;
    }
    if (std::string e = pg::resolveColumns(cfg, t); !e.empty()) {
        p.message = head + ", but " + e;
        return p;
    }
    pg::Result n = c->exec("SELECT count(*) FROM " + pg::quoteQualified(cfg.table));
    p.ok = true;
    p.message = head + ": table " + cfg.table + " has " + std::to_string(t.columns.size())
                + " columns" + (n.ok && !n.rows.empty() ? ", " + n.rows[0][0] + " rows" : "");
    return p;
}

PostgresProbe readNewestPostgresRows(const NodeSpec &node, int limit)
{
    PostgresProbe p;
    pg::SinkConfig cfg;
    auto c = connect(node, cfg, p);
    if (!c)
        return p;
    const std::string table = pg::quoteQualified(cfg.table);
    pg::Result r = c->exec("SELECT row_to_json(t)::text FROM " + table
                           + " t ORDER BY t.xmin::text::bigint DESC LIMIT "
                           + std::to_string(std::max(1, limit)));
    if (!r.ok) {
        p.message = "reading " + cfg.table + ": " + r.message;
        return p;
    }
    for (auto &row : r.rows)
        p.rows.push_back(std::move(row[0]));
    p.ok = true;
    p.message = std::to_string(p.rows.size()) + " newest rows of " + cfg.table + " ("
                + c->redacted() + ")";
    return p;
}

} // namespace tideline
