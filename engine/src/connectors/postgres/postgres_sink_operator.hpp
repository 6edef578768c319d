#pragma once
// The sink.postgres operator's class (internal to connectors/postgres/): postgres_sink.cpp
// (whose opening comment explains the design and the exactly-once protocol) holds its
// lifecycle and batch writing; postgres_sink_checkpoint.cpp its checkpoint side (state,
// pre-commit, commit, restore and reconnect).

#include "connectors/postgres/pg_conn.hpp"
#include "connectors/postgres/pg_table.hpp"

#include <tideline/engine/operator.hpp>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tideline::pg {

constexpr std::int64_t kStartBudgetMs = 1500; ///< connection retries before the first record
constexpr std::int64_t kFlushEveryMs = 100;   ///< a partial batch waits at most this long
constexpr std::uint8_t kLayout = 1;

class PostgresSink final : public Operator
{
public:
    PostgresSink(const OperatorContext &ctx, pg::SinkConfig cfg)
        : m_ctx(ctx)
        , m_node(ctx.spec.id)
        , m_cfg(std::move(cfg))
        , m_retain(ctx.checkpointing)
    {
    }

    void open() override;

    void processRecord(int, Record &&rec, Output &out) override;

    void processWatermark(Timestamp w, Output &out) override;

    void onTick(std::int64_t nowMs, Output &out) override;

    void finish(Output &out) override;

    void reportMetrics(observe::NodeMetrics &m) const override;

    void snapshotState(StateWriter &w) const override;

    void restoreState(StateReader &r) override;

    std::string stateFingerprint() const override;

    void notifyCheckpointComplete(std::int64_t checkpointId) override;

private:
    enum class Txn { None, Open, PreCommitted };
    struct Row
    {
        Record rec;
        std::string tuple;
    };

    void must(const std::string &err, const std::string &param);

    void createTable();

    void createFromRecord(const Record &rec);

    void prepareStatements();

    bool canFlush() const { return !(m_cfg.exactlyOnce && m_txn == Txn::PreCommitted); }

    std::string progressWhere() const;

    std::int64_t maxCommittedEpoch();

    bool epochCommitted(std::int64_t epoch);

    std::string reconnect() { return m_conn->connectWithRetry(m_cfg.retryMs); }

    /// Opens a transaction and writes `rows` (accepted before) into it; false when the
    /// connection broke. A row refused now means the table changed under the sink: fatal.
    bool resendInTransaction(const std::vector<std::string> &rows);

    /// After a lost connection: reconnect and rebuild the transaction the sink had open.
    void recover(const std::string &why);

    [[noreturn]] void failRecoverable(const std::string &why);

    void checkFailure();

    void emitDeferred(Output &out);

    /// Sends the batch. Refused rows go to `errors` through `out`, or (inside a checkpoint,
    /// where no Output exists) into m_deferred, which the checkpoint also keeps.
    void flush(Output *out);

    /// One batch inside the open transaction; false when the connection broke (the caller
    /// rebuilds the transaction and sends the whole batch again).
    bool writeBatch(std::vector<std::pair<std::string, std::size_t>> &refused,
                    std::size_t &accepted);

    /// exactly_once, at the barrier: the epoch's rows become the checkpoint's pending epoch.
    void preCommit();

    void commitPending(std::int64_t checkpointId, const std::string &by);

    void committed();

    OperatorContext m_ctx;
    std::string m_node;
    pg::SinkConfig m_cfg;
    bool m_retain; ///< keep the epoch's rows (checkpoints are on)
    std::unique_ptr<pg::Connection> m_conn;
    bool m_tableReady = true;
    std::string m_head, m_tail, m_key;
    std::vector<int> m_keyCols;

    std::vector<Row> m_batch;
    std::unordered_map<std::string, std::size_t> m_batchKeys;
    std::vector<std::pair<std::string, std::string>> m_deferred; ///< (reason, record JSON)
    std::int64_t m_lastFlushMs = 0;
    Timestamp m_w = kMinTime;

    Txn m_txn = Txn::None;
    std::vector<std::string> m_openRows, m_pendingRows;
    std::size_t m_openCount = 0, m_pendingCount = 0;
    std::int64_t m_epoch = 0, m_pendingEpoch = -1, m_maxCommitted = 0;
    std::int64_t m_rowsCommitted = 0;
    std::string m_failure;
    bool m_failureRecoverable = false;
};

} // namespace tideline::pg
