#include "connectors/postgres/pg_conn.hpp"

#include <chrono>
#include <thread>

namespace tideline::pg {

namespace {

/// The parsed options of a conninfo, or nullptr (caller frees with PQconninfoFree).
PQconninfoOption *parse(const std::string &conninfo)
{
    char *err = nullptr;
    PQconninfoOption *o = PQconninfoParse(conninfo.c_str(), &err);
    if (err)
        PQfreemem(err); // libpq's message may quote the text, and so the password
    return o;
}

bool isReferenceOnly(const std::string &v)
{
    // ${env:NAME} or ${file:/path}, nothing around it.
    return v.size() > 3 && v.rfind("${", 0) == 0 && v.back() == '}'
           && (v.rfind("${env:", 0) == 0 || v.rfind("${file:", 0) == 0)
           && v.find('}') == v.size() - 1;
}

} // namespace

std::string redactConninfo(const std::string &conninfo)
{
    PQconninfoOption *opts = parse(conninfo);
    if (!opts)
        return "conninfo not shown: it does not parse";
    std::string out;
    for (PQconninfoOption *o = opts; o->keyword; ++o) {
        if (!o->val || !*o->val)
            continue;
        std::string key = o->keyword;
        if (key == "password" || key == "sslpassword")
            continue;
        if (!out.empty())
            out += ' ';
        out += key + "=" + o->val;
    }
    PQconninfoFree(opts);
    return out.empty() ? "default connection settings" : out;
}

std::string conninfoPassword(const std::string &conninfo)
{
    PQconninfoOption *opts = parse(conninfo);
    if (!opts)
        return {};
    std::string pw;
    for (PQconninfoOption *o = opts; o->keyword; ++o)
        if (std::string(o->keyword) == "password" && o->val)
            pw = o->val;
    PQconninfoFree(opts);
    return pw;
}

bool hasLiteralPassword(const std::string &conninfo, std::string &why)
{
    PQconninfoOption *opts = parse(conninfo);
    if (!opts) {
        why = "is not a libpq connection string (key=value pairs or a postgresql:// URI)";
        return true;
    }
    bool literal = false;
    for (PQconninfoOption *o = opts; o->keyword; ++o) {
        const std::string key = o->keyword;
        if ((key == "password" || key == "sslpassword") && o->val && *o->val
            && !isReferenceOnly(o->val)) {
            literal = true;
            why = "holds a literal " + key
                  + ": give it only as ${env:NAME} or ${file:/path} (e.g. "
                    "password=${env:PGPASSWORD}),"
                    " so it is never written into exported files";
        }
    }
    PQconninfoFree(opts);
    return literal;
}

std::string quoteIdent(const std::string &name)
{
    std::string out = "\"";
    for (char c : name) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string quoteQualified(const std::string &qualified)
{
    const auto dot = qualified.find('.');
    if (dot == std::string::npos)
        return quoteIdent(qualified);
    return quoteIdent(qualified.substr(0, dot)) + "." + quoteIdent(qualified.substr(dot + 1));
}

void appendLiteral(std::string &out, std::string_view text)
{
    out += '\'';
    for (char c : text) {
        if (c == '\'')
            out += '\'';
        out += c;
    }
    out += '\'';
}

bool Result::rowProblem() const
{
    return sqlstate.size() == 5
           && (sqlstate.rfind("22", 0) == 0 || sqlstate.rfind("23", 0) == 0 || sqlstate == "42804");
}

Connection::Connection(std::string conninfo, std::string node)
    : m_conninfo(std::move(conninfo))
    , m_node(std::move(node))
    , m_redacted(redactConninfo(m_conninfo))
    , m_password(conninfoPassword(m_conninfo))
{
}

Connection::~Connection()
{
    close();
}

void Connection::close()
{
    if (m_conn) {
        PQfinish(m_conn); // an open transaction is rolled back by the server
        m_conn = nullptr;
    }
}

bool Connection::connected() const
{
    return m_conn && PQstatus(m_conn) == CONNECTION_OK;
}

std::string Connection::scrub(std::string text) const
{
    if (m_password.empty())
        return text;
    for (std::size_t at; (at = text.find(m_password)) != std::string::npos;)
        text.replace(at, m_password.size(), "***");
    return text;
}

std::string Connection::connect()
{
    close();
    // A host that drops packets would otherwise hold the loop for the TCP timeout (minutes):
    // 10 s unless the conninfo sets its own (later keywords win, and dbname expands into the
    // conninfo's own settings).
    const char *keys[] = {"connect_timeout", "dbname", nullptr};
    const char *values[] = {"10", m_conninfo.c_str(), nullptr};
    m_conn = PQconnectdbParams(keys, values, 1);
    if (PQstatus(m_conn) != CONNECTION_OK) {
        std::string msg = m_conn ? PQerrorMessage(m_conn) : "out of memory";
        while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' '))
            msg.pop_back();
        for (auto &c : msg)
            if (c == '\n')
                c = ' ';
        close();
        return scrub("cannot connect to PostgreSQL (" + m_redacted + "): " + msg);
    }
    // Our literals double quotes only; statements must not wait forever on a lock.
    Result r = exec("SET standard_conforming_strings = on; SET client_encoding = 'UTF8'");
    if (!r.ok) {
        close();
        return "cannot set up the session (" + m_redacted + "): " + r.message;
    }
    return {};
}

std::string Connection::connectWithRetry(std::int64_t budgetMs)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(budgetMs);
    std::int64_t delay = 100;
    while (true) {
        std::string err = connect();
        if (err.empty())
            return {};
        if (std::chrono::steady_clock::now() + std::chrono::milliseconds(delay) >= until)
            return err;
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        delay = std::min<std::int64_t>(delay * 2, 2000);
    }
}

Result Connection::collect(PGresult *res)
{
    Result r;
    const ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    r.ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (st == PGRES_TUPLES_OK) {
        const int nf = PQnfields(res), nt = PQntuples(res);
        for (int f = 0; f < nf; ++f)
            r.columns.emplace_back(PQfname(res, f));
        r.rows.resize(static_cast<std::size_t>(nt));
        r.nulls.resize(static_cast<std::size_t>(nt));
        for (int t = 0; t < nt; ++t)
            for (int f = 0; f < nf; ++f) {
                r.rows[static_cast<std::size_t>(t)].emplace_back(PQgetvalue(res, t, f));
                r.nulls[static_cast<std::size_t>(t)].push_back(PQgetisnull(res, t, f) != 0);
            }
    }
    if (!r.ok) {
        const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
        const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
        const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : nullptr;
        r.sqlstate = state ? state : "";
        if (primary) {
            r.message = primary;
            if (detail)
                r.message += std::string(" (") + detail + ")";
        } else {
            r.message = m_conn ? PQerrorMessage(m_conn) : "no connection";
            while (!r.message.empty() && (r.message.back() == '\n' || r.message.back() == ' '))
                r.message.pop_back();
        }
        r.message = scrub(r.message);
        r.connectionLost = !m_conn || PQstatus(m_conn) != CONNECTION_OK
                           || r.sqlstate.rfind("08", 0) == 0 || r.sqlstate.rfind("57P", 0) == 0;
    }
    if (res)
        PQclear(res);
    return r;
}

Result Connection::exec(const std::string &sql)
{
    if (!m_conn) {
        Result r;
        r.connectionLost = true;
        r.message = "not connected";
        return r;
    }
    return collect(PQexec(m_conn, sql.c_str()));
}

Result Connection::execParams(const std::string &sql, const std::vector<std::string> &params)
{
    if (!m_conn) {
        Result r;
        r.connectionLost = true;
        r.message = "not connected";
        return r;
    }
    std::vector<const char *> values;
    for (const auto &p : params)
        values.push_back(p.c_str());
    return collect(PQexecParams(m_conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                values.data(), nullptr, nullptr, 0));
}

} // namespace tideline::pg
