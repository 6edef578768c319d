// sink.postgres, the checkpoint side: the state it snapshots and restores, the exactly-once
// pre-commit and commit (rows and progress row in one transaction), and rebuilding the open
// transaction after a lost connection. The protocol is explained in postgres_sink.cpp.
#include "connectors/postgres/postgres_sink_operator.hpp"
#include "runtime/recoverable.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>

namespace tideline::pg {

void PostgresSink::snapshotState(StateWriter &w) const
{
    auto *self = const_cast<PostgresSink *>(this); // the barrier commits or pre-commits
    self->checkFailure();
    if (m_cfg.exactlyOnce)
        self->preCommit();
    else
        self->flush(nullptr);
    w.u8(kLayout);
    w.u8(m_cfg.exactlyOnce ? 1 : 0);
    w.i64(m_epoch);
    const bool pending = m_cfg.exactlyOnce && m_txn == Txn::PreCommitted;
    w.u8(pending ? 1 : 0);
    if (pending) {
        w.i64(m_pendingEpoch);
        w.u64(m_pendingRows.size());
        for (const auto &t : m_pendingRows)
            w.str(t);
    }
    w.u64(m_deferred.size());
    for (const auto &[why, json] : m_deferred) {
        w.str(why);
        w.str(json);
    }
}

void PostgresSink::restoreState(StateReader &r)
{
    if (r.u8() != kLayout)
        throw ConfigError("the saved state of sink.postgres is in a layout this build does "
                          "not read");
    const bool eos = r.u8() != 0;
    const std::int64_t epoch = r.i64();
    std::vector<std::string> rows;
    std::int64_t pendingEpoch = -1;
    if (r.u8() != 0) {
        pendingEpoch = r.i64();
        const std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i)
            rows.push_back(r.str());
    }
    const std::uint64_t nd = r.u64();
    for (std::uint64_t i = 0; i < nd && !r.failed(); ++i) {
        std::string why = r.str();
        m_deferred.emplace_back(std::move(why), r.str());
    }
    if (r.failed() || !eos || !m_cfg.exactlyOnce)
        return;
    if (pendingEpoch >= 0 && !epochCommitted(pendingEpoch)) {
        // Crashed between the checkpoint and its commit: commit the epoch from the state.
        m_pendingRows = std::move(rows);
        m_pendingCount = m_pendingRows.size();
        m_pendingEpoch = pendingEpoch;
        m_txn = Txn::None;
        if (!resendInTransaction(m_pendingRows))
            throw std::runtime_error(m_conn->where()
                                     + ": lost the connection while "
                                       "committing checkpoint epoch "
                                     + std::to_string(pendingEpoch));
        m_txn = Txn::PreCommitted;
        commitPending(-1, "restore");
    }
    m_maxCommitted = maxCommittedEpoch();
    if (m_maxCommitted > epoch && !m_cfg.upsert)
        throw std::runtime_error(
            "the table " + m_cfg.table + " already holds epoch " + std::to_string(m_maxCommitted)
            + " of this sink (progress table " + m_cfg.progressTable
            + "), later than the restored checkpoint's epoch " + std::to_string(epoch)
            + ": in mode append the replay would add those rows again. Restore the newest "
              "checkpoint, or delete the rows of the later epochs and their progress rows");
    m_epoch = std::max(epoch, m_maxCommitted);
}

std::string PostgresSink::stateFingerprint() const
{
    return std::string("sink.postgres/1 ") + (m_cfg.exactlyOnce ? "eos" : "alo")
           + (m_cfg.upsert ? " upsert" : " append") + " table=" + m_cfg.table
           + " writer=" + m_cfg.writer;
}

void PostgresSink::notifyCheckpointComplete(std::int64_t checkpointId)
{
    if (m_cfg.exactlyOnce && m_txn == Txn::PreCommitted && m_failure.empty())
        commitPending(checkpointId, "checkpoint");
}

std::string PostgresSink::progressWhere() const
{
    std::string s = " WHERE pipeline = ";
    pg::appendLiteral(s, m_cfg.writer);
    s += " AND node = ";
    pg::appendLiteral(s, m_node);
    return s;
}

std::int64_t PostgresSink::maxCommittedEpoch()
{
    pg::Result r = m_conn->exec("SELECT coalesce(max(epoch), 0) FROM "
                                + pg::quoteQualified(m_cfg.progressTable) + progressWhere());
    if (!r.ok || r.rows.empty())
        throw std::runtime_error(m_conn->where() + ": cannot read the progress table "
                                 + m_cfg.progressTable + ": " + r.message);
    return std::stoll(r.rows[0][0]);
}

bool PostgresSink::epochCommitted(std::int64_t epoch)
{
    for (int attempt = 0; attempt < 2; ++attempt) {
        pg::Result r = m_conn->exec("SELECT 1 FROM " + pg::quoteQualified(m_cfg.progressTable)
                                    + progressWhere() + " AND epoch = " + std::to_string(epoch));
        if (r.ok)
            return !r.rows.empty();
        if (!r.connectionLost || !reconnect().empty())
            throw std::runtime_error(m_conn->where()
                                     + ": cannot read the progress table: " + r.message);
    }
    throw std::runtime_error(m_conn->where() + ": cannot read the progress table");
}

/// Opens a transaction and writes `rows` (accepted before) into it; false when the
/// connection broke. A row refused now means the table changed under the sink: fatal.
bool PostgresSink::resendInTransaction(const std::vector<std::string> &rows)
{
    pg::Result b = m_conn->exec("BEGIN");
    if (!b.ok)
        return false;
    for (std::size_t at = 0; at < rows.size();) {
        std::string sql = m_head;
        const std::size_t end
            = std::min(rows.size(), at + static_cast<std::size_t>(m_cfg.batchRows));
        for (std::size_t i = at; i < end; ++i)
            sql += (i > at ? "," : "") + rows[i];
        pg::Result r = m_conn->exec(sql + m_tail);
        if (!r.ok) {
            if (r.connectionLost)
                return false;
            throw std::runtime_error(m_conn->where()
                                     + ": rows the table accepted before are "
                                       "refused now: "
                                     + r.message);
        }
        at = end;
    }
    return true;
}

/// After a lost connection: reconnect and rebuild the transaction the sink had open.
void PostgresSink::recover(const std::string &why)
{
    if (m_cfg.exactlyOnce && !m_retain)
        failRecoverable(why + " (without checkpoints the open transaction cannot be rebuilt)");
    for (;;) {
        if (std::string e = reconnect(); !e.empty())
            failRecoverable(why + "; reconnecting for " + std::to_string(m_cfg.retryMs)
                            + " ms failed: " + e);
        if (!m_cfg.exactlyOnce || m_txn == Txn::None)
            return;
        if (m_txn == Txn::PreCommitted && epochCommitted(m_pendingEpoch)) {
            committed(); // the COMMIT went through before the connection broke
            return;
        }
        if (resendInTransaction(m_txn == Txn::Open ? m_openRows : m_pendingRows))
            return;
    }
}

/// exactly_once, at the barrier: the epoch's rows become the checkpoint's pending epoch.
void PostgresSink::preCommit()
{
    bool merge = false;
    if (m_txn == Txn::PreCommitted) {
        // The previous checkpoint never completed (no notify): its epoch goes on and is
        // committed with this one, under its own number.
        m_openRows = std::move(m_pendingRows);
        m_openCount = m_pendingCount;
        m_txn = Txn::Open;
        merge = true;
    }
    flush(nullptr);
    if (m_txn != Txn::Open)
        return; // nothing written in this epoch
    m_pendingEpoch = merge ? m_pendingEpoch : ++m_epoch;
    m_pendingRows = std::move(m_openRows);
    m_pendingCount = m_openCount;
    m_openRows.clear();
    m_openCount = 0;
    m_txn = Txn::PreCommitted;
}

void PostgresSink::commitPending(std::int64_t checkpointId, const std::string &by)
{
    for (;;) {
        std::string sql = "INSERT INTO " + pg::quoteQualified(m_cfg.progressTable)
                          + " (pipeline, node, epoch, checkpoint_id, rows, committed_by) "
                            "VALUES (";
        pg::appendLiteral(sql, m_cfg.writer);
        sql += ", ";
        pg::appendLiteral(sql, m_node);
        sql += ", " + std::to_string(m_pendingEpoch) + ", "
               + (checkpointId >= 0 ? std::to_string(checkpointId) : "NULL") + ", "
               + std::to_string(m_pendingCount) + ", ";
        pg::appendLiteral(sql, by);
        pg::Result r = m_conn->exec(sql + "); COMMIT");
        if (r.ok) {
            committed();
            return;
        }
        if (!r.connectionLost) {
            m_failure = m_conn->where() + ": committing epoch " + std::to_string(m_pendingEpoch)
                        + ": " + r.message
                        + (r.sqlstate == "23505"
                               ? " (another process writes with the same writer and node)"
                               : "");
            m_conn->exec("ROLLBACK");
            throw std::runtime_error(m_failure);
        }
        m_conn->close();
        recover("the connection broke while committing epoch " + std::to_string(m_pendingEpoch));
        if (m_txn != Txn::PreCommitted)
            return; // it had committed
    }
}

void PostgresSink::committed()
{
    m_rowsCommitted += m_pendingCount;
    m_pendingRows.clear();
    m_pendingCount = 0;
    m_maxCommitted = std::max(m_maxCommitted, m_pendingEpoch);
    m_txn = Txn::None;
}

} // namespace tideline::pg
