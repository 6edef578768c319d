#pragma once
// One libpq connection of sink.postgres (and of the designer's probes), with the two rules
// every message about it follows: the conninfo is shown without its password (redacted()),
// and any text from libpq or the server has the resolved password cut out before it is
// shown (scrub()), so a password given through ${env:…}/${file:…} never reaches a log, an
// error or an `errors` record.
//
// [Threading] Blocking calls on the caller's thread. The sink runs them on the loop thread
// in batches (one round trip per batch of rows, see postgres_sink.cpp for why).

#include <cstdint>
#include <libpq-fe.h>
#include <string>
#include <vector>

namespace tideline::pg {

/// The conninfo (key=value or postgresql:// URI) without its password, for messages.
/// Unparseable text is not shown at all (it might hold the password anywhere).
std::string redactConninfo(const std::string &conninfo);
/// The password the conninfo holds, "" when none.
std::string conninfoPassword(const std::string &conninfo);
/// True when the conninfo text holds a password that is not entirely a ${env:…}/${file:…}
/// reference (checked on the unresolved param).
bool hasLiteralPassword(const std::string &conninfo, std::string &why);

/// Quotes an SQL identifier ("a""b"), or a [schema.]name as "schema"."name".
std::string quoteIdent(const std::string &name);
std::string quoteQualified(const std::string &qualified);
/// Appends a string literal ('it''s'); standard_conforming_strings is on for our sessions.
void appendLiteral(std::string &out, std::string_view text);

/// The outcome of one statement.
struct Result
{
    bool ok = false;
    bool connectionLost = false; ///< the connection broke: reconnect, then decide
    std::string sqlstate;        ///< "23505", ... ("" when the server sent none)
    std::string message;         ///< the server's message (+ detail), scrubbed
    std::vector<std::vector<std::string>> rows;
    std::vector<std::vector<bool>> nulls;
    std::vector<std::string> columns;
    /// A row-level problem of the data (class 22 data exception, class 23 integrity
    /// constraint violation, 42804 datatype mismatch): that row goes to `errors`.
    bool rowProblem() const;
};

class Connection
{
public:
    Connection(std::string conninfo, std::string node);
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    /// Connects once; "" on success, else the reason (scrubbed, naming the redacted conninfo).
    [[nodiscard]] std::string connect();
    /// Connects, retrying with exponential backoff (100 ms doubling) for up to `budgetMs`.
    [[nodiscard]] std::string connectWithRetry(std::int64_t budgetMs);
    bool connected() const;
    void close();

    /// Runs `sql` (one or more statements; the last one's result is returned).
    Result exec(const std::string &sql);
    /// One statement with text parameters.
    Result execParams(const std::string &sql, const std::vector<std::string> &params);

    /// Cuts the password out of `text`.
    std::string scrub(std::string text) const;
    const std::string &redacted() const { return m_redacted; }
    /// "node `out` (host=... dbname=...)": the prefix of every message about this connection.
    std::string where() const { return "node `" + m_node + "` (" + m_redacted + ")"; }

private:
    Result collect(PGresult *res);

    std::string m_conninfo;
    std::string m_node;
    std::string m_redacted;
    std::string m_password;
    PGconn *m_conn = nullptr;
};

} // namespace tideline::pg
