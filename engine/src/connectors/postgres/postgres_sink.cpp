// sink.postgres: records into a PostgreSQL table, by libpq.
//
// Rows are sent in batches (multi-row INSERT, `batch_rows` per statement, one round trip
// each; mode upsert adds ON CONFLICT (key) DO UPDATE, and a batch keeps only the latest row
// of a key). Each batch runs inside a SAVEPOINT: when the server refuses it for a row-level
// reason (a constraint, a value its column's type does not take) the batch is rolled back to
// the savepoint and sent row by row, and each refused row goes to `errors` with the server's
// message while the others are written. The calls block the loop thread for one round trip
// per batch; an I/O thread would hide that, at the price of a second place where a
// transaction's state lives, which the exactly-once protocol below keeps in one.
//
// at_least_once: every batch is a transaction of its own; snapshotState() commits what came
// before the barrier, so a restore replays only rows after it. With mode upsert replays
// overwrite the same rows (idempotent); with append they are added again.
//
// exactly_once (the database is the transaction coordinator; no PREPARE TRANSACTION, which
// needs max_prepared_transactions > 0). The rows of one checkpoint epoch E go into ONE open
// transaction as they arrive (so refused rows are found while an Output exists). At the
// barrier, snapshotState() flushes, and the epoch's accepted rows are ALSO written into the
// checkpoint's state: that copy is the pre-commit, durable once the manifest is.
// notifyCheckpointComplete() then inserts (writer, node, E, checkpoint id) into the progress
// table and COMMITs, in the same transaction as the rows. Rows arriving between the barrier
// and the commit wait in memory (they belong to E+1). Why it neither loses nor repeats:
//  - repeat: epoch E's rows reach the table only in a transaction that also inserts the
//    progress row (pipeline, node, epoch) under a primary key, so they land at most once;
//  - lose: if the process dies before the commit, the server rolls the transaction back;
//    a restore from checkpoint E finds no progress row for E and applies E's rows from the
//    state, with the progress row, in one transaction (Flink's recoverAndCommit); a restore
//    from an earlier checkpoint replays E's records, whose rows were never committed.
//  - a commit whose reply is lost (the server restarted) is decided the same way, by
//    looking for E in the progress table after reconnecting.
// Epoch numbers are per (writer, node): a run without restored state continues after the
// highest committed one, so numbers never repeat. A restore that finds later epochs
// committed than its own (an explicitly older checkpoint) goes on in upsert mode, where
// replays overwrite, and is refused in append mode, where they would repeat.
//
// Failures: a lost connection is retried with backoff for `retry_ms` (the transaction is
// rebuilt from the rows kept in memory); then RecoverableError makes the runtime restore the
// last checkpoint in-process, as the Kafka sink does. The password is never shown: messages
// use the conninfo without it and scrub it from libpq's and the server's texts.

#include "connectors/postgres/postgres_sink.hpp"

#include "connectors/postgres/postgres_sink_operator.hpp"
#include "runtime/recoverable.hpp"

#include <tideline/engine/record_json.hpp>

#include <unordered_map>

namespace tideline {

namespace pg {

void PostgresSink::open()
{
    m_conn = std::make_unique<pg::Connection>(m_ctx.resolve(m_cfg.conninfo), m_node);
    if (std::string e = m_conn->connectWithRetry(kStartBudgetMs); !e.empty())
        throw ConfigError("params.conninfo: " + e);
    pg::TableInfo t;
    must(pg::describeTable(*m_conn, m_cfg.table, t), "params.table");
    if (t.missing) {
        if (!m_cfg.createTable)
            throw ConfigError("params.table: the table " + m_cfg.table + " does not exist ("
                              + m_conn->redacted() + "); create it, or set create_table: true");
        if (m_cfg.columns.empty())
            m_tableReady = false; // created from the first record's fields
        else
            createTable();
    } else {
        must(pg::resolveColumns(m_cfg, t), "");
    }
    prepareStatements();
    if (m_cfg.exactlyOnce) {
        pg::Result r = m_conn->exec(pg::createProgressSql(m_cfg.progressTable));
        if (!r.ok)
            throw ConfigError("params.progress_table: cannot create " + m_cfg.progressTable + ": "
                              + r.message);
        m_maxCommitted = maxCommittedEpoch();
        m_epoch = m_maxCommitted;
    }
}

void PostgresSink::processRecord(int, Record &&rec, Output &out)
{
    checkFailure();
    emitDeferred(out);
    if (!m_tableReady)
        createFromRecord(rec);
    std::string tuple;
    if (std::string why = pg::appendRow(rec, m_cfg.columns, tuple); !why.empty()) {
        out.emitError(why, std::move(rec), m_w);
        return;
    }
    if (m_cfg.upsert) {
        m_key.clear();
        pg::appendKey(rec, m_cfg.columns, m_keyCols, m_key);
        auto [it, fresh] = m_batchKeys.try_emplace(m_key, m_batch.size());
        if (!fresh) {
            // The latest row of a key wins inside a batch (ON CONFLICT may touch a row once).
            m_batch[it->second] = {std::move(rec), std::move(tuple)};
            return;
        }
    }
    m_batch.push_back({std::move(rec), std::move(tuple)});
    if (m_batch.size() >= static_cast<std::size_t>(m_cfg.batchRows) && canFlush())
        flush(&out);
}

void PostgresSink::processWatermark(Timestamp w, Output &out)
{
    m_w = std::max(m_w, w);
    if (w == kMaxTime && canFlush())
        flush(&out);
    out.emitWatermark(w);
}

void PostgresSink::onTick(std::int64_t nowMs, Output &out)
{
    checkFailure();
    emitDeferred(out);
    if (!m_batch.empty() && canFlush() && nowMs - m_lastFlushMs >= kFlushEveryMs) {
        m_lastFlushMs = nowMs;
        flush(&out);
    }
}

void PostgresSink::finish(Output &out)
{
    checkFailure();
    emitDeferred(out);
    if (m_cfg.exactlyOnce) {
        // The output no checkpoint committed (no checkpoints, or the final one failed) is
        // committed now, as epochs of their own.
        if (m_txn == Txn::PreCommitted)
            commitPending(-1, "end of input");
        flush(&out);
        if (m_txn == Txn::Open) {
            m_pendingRows = std::move(m_openRows);
            m_pendingCount = m_openCount;
            m_pendingEpoch = ++m_epoch;
            m_txn = Txn::PreCommitted;
            commitPending(-1, "end of input");
        }
    } else {
        flush(&out);
    }
    emitDeferred(out);
    m_conn->close();
}

void PostgresSink::reportMetrics(observe::NodeMetrics &m) const
{
    m.stateEntries = static_cast<std::int64_t>(m_batch.size() + m_openCount + m_pendingCount);
    m.recordsOut = m_rowsCommitted;
}

void PostgresSink::must(const std::string &err, const std::string &param)
{
    if (err.empty())
        return;
    throw ConfigError(param.empty() ? err : param + ": " + m_conn->redacted() + ": " + err);
}

void PostgresSink::createTable()
{
    pg::Result r = m_conn->exec(pg::createTableSql(m_cfg));
    if (!r.ok)
        throw ConfigError("params.table: cannot create " + m_cfg.table + ": " + r.message);
    pg::TableInfo t;
    must(pg::describeTable(*m_conn, m_cfg.table, t), "params.table");
    must(pg::resolveColumns(m_cfg, t), "");
    m_tableReady = true;
}

void PostgresSink::createFromRecord(const Record &rec)
{
    m_cfg.columns = pg::columnsFromRecord(rec);
    try {
        createTable();
    } catch (const ConfigError &e) {
        throw std::runtime_error("node `" + m_node + "`: " + e.what());
    }
    prepareStatements();
}

void PostgresSink::prepareStatements()
{
    m_head = pg::insertHead(m_cfg);
    m_tail = pg::insertTail(m_cfg);
    m_keyCols.clear();
    for (const auto &k : m_cfg.key)
        for (std::size_t i = 0; i < m_cfg.columns.size(); ++i)
            if (m_cfg.columns[i].column == k)
                m_keyCols.push_back(static_cast<int>(i));
}

void PostgresSink::failRecoverable(const std::string &why)
{
    m_conn->close();
    m_batch.clear();
    m_batchKeys.clear();
    m_failure = m_conn->where() + ": " + why
                + "; the last checkpoint is restored and its records replayed";
    m_failureRecoverable = true;
    throw RecoverableError(m_failure);
}

void PostgresSink::checkFailure()
{
    if (m_failure.empty())
        return;
    if (m_failureRecoverable)
        throw RecoverableError(m_failure);
    throw std::runtime_error(m_failure);
}

void PostgresSink::emitDeferred(Output &out)
{
    if (m_deferred.empty())
        return;
    RecordParser parser;
    for (auto &[why, json] : m_deferred) {
        Record rec;
        std::string err;
        if (!parser.parse(json, rec, err))
            out.emitError(why, Record(), m_w, json);
        else
            out.emitError(why, std::move(rec), m_w);
    }
    m_deferred.clear();
}

/// Sends the batch. Refused rows go to `errors` through `out`, or (inside a checkpoint,
/// where no Output exists) into m_deferred, which the checkpoint also keeps.
void PostgresSink::flush(Output *out)
{
    if (m_batch.empty())
        return;
    std::vector<std::pair<std::string, std::size_t>> refused;
    std::size_t accepted = 0;
    for (;;) {
        if (!m_conn->connected())
            recover("the connection to PostgreSQL is lost");
        refused.clear();
        if (!m_cfg.exactlyOnce || m_txn == Txn::None) {
            if (!m_conn->exec("BEGIN").ok) {
                recover("BEGIN failed");
                continue;
            }
            if (m_cfg.exactlyOnce)
                m_txn = Txn::Open;
        }
        if (!writeBatch(refused, accepted)) {
            m_conn->close();
            continue; // rebuilt by recover() above
        }
        if (!m_cfg.exactlyOnce) {
            pg::Result c = m_conn->exec("COMMIT");
            if (!c.ok) {
                // Not known whether it committed: at-least-once sends the batch again.
                if (!c.connectionLost)
                    throw std::runtime_error(m_conn->where() + ": COMMIT: " + c.message);
                m_conn->close();
                continue;
            }
            m_rowsCommitted += accepted;
        }
        break;
    }
    std::vector<char> isRefused(m_batch.size(), 0);
    for (const auto &r : refused)
        isRefused[r.second] = 1;
    if (m_cfg.exactlyOnce && m_retain)
        for (std::size_t i = 0; i < m_batch.size(); ++i)
            if (!isRefused[i])
                m_openRows.push_back(std::move(m_batch[i].tuple));
    for (const auto &[why, i] : refused) {
        if (out) {
            out->emitError(why, std::move(m_batch[i].rec), m_w);
        } else {
            std::string json;
            appendJson(m_batch[i].rec, json);
            m_deferred.emplace_back(why, std::move(json));
        }
    }
    if (m_cfg.exactlyOnce)
        m_openCount += accepted;
    m_batch.clear();
    m_batchKeys.clear();
}

/// One batch inside the open transaction; false when the connection broke (the caller
/// rebuilds the transaction and sends the whole batch again).
bool PostgresSink::writeBatch(std::vector<std::pair<std::string, std::size_t>> &refused,
                              std::size_t &accepted)
{
    std::string sql = "SAVEPOINT tl_batch; " + m_head;
    for (std::size_t i = 0; i < m_batch.size(); ++i)
        sql += (i ? "," : "") + m_batch[i].tuple;
    sql += m_tail + "; RELEASE SAVEPOINT tl_batch";
    pg::Result r = m_conn->exec(sql);
    if (r.ok) {
        accepted = m_batch.size();
        return true;
    }
    if (r.connectionLost)
        return false;
    if (!r.rowProblem())
        throw std::runtime_error(m_conn->where() + ": writing to " + m_cfg.table + ": "
                                 + r.message);
    if (!m_conn->exec("ROLLBACK TO SAVEPOINT tl_batch; RELEASE SAVEPOINT tl_batch").ok)
        return false;
    accepted = 0;
    for (std::size_t i = 0; i < m_batch.size(); ++i) {
        pg::Result one = m_conn->exec("SAVEPOINT tl_row; " + m_head + m_batch[i].tuple + m_tail
                                      + "; RELEASE SAVEPOINT tl_row");
        if (one.ok) {
            ++accepted;
            continue;
        }
        if (one.connectionLost)
            return false;
        if (!one.rowProblem())
            throw std::runtime_error(m_conn->where() + ": writing to " + m_cfg.table + ": "
                                     + one.message);
        if (!m_conn->exec("ROLLBACK TO SAVEPOINT tl_row; RELEASE SAVEPOINT tl_row").ok)
            return false;
        refused.emplace_back(one.message, i);
    }
    return true;
}

} // namespace pg

std::unique_ptr<Operator> makePostgresSink(const OperatorContext &ctx)
{
    pg::SinkConfig cfg;
    if (std::string e = pg::readConfig(ctx.spec.params, cfg); !e.empty())
        throw ConfigError(e);
    return std::make_unique<pg::PostgresSink>(ctx, std::move(cfg));
}

} // namespace tideline
