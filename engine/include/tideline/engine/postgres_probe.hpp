#pragma once
// What the designer asks a sink.postgres node's server without running the pipeline: "Test
// connection" (connect, describe the table) and the output preview's read-back of the table's
// newest rows. Blocking (connect_timeout of the conninfo, else 5 s): call them off the GUI
// thread. Messages never contain the password (the conninfo is shown without it).

#include <tideline/engine/spec.hpp>

#include <string>
#include <vector>

namespace tideline {

struct PostgresProbe
{
    bool ok = false;
    /// One line for the user: "connected to host=... dbname=... (PostgreSQL 15.18): table
    /// public.results has 6 columns, 412 rows" or what went wrong.
    std::string message;
    /// readNewestPostgresRows: each row as a JSON object text, newest first.
    std::vector<std::string> rows;
};

/// Connects with the node's conninfo (${env:}/${file:} resolved) and describes its table.
PostgresProbe testPostgresConnection(const NodeSpec &node);
/// The `limit` most recently written rows of the node's table (by transaction id: an upsert
/// that rewrote a row makes it new again).
PostgresProbe readNewestPostgresRows(const NodeSpec &node, int limit);

} // namespace tideline
