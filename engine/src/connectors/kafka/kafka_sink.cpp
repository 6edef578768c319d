// sink.kafka: produces records as JSON to a topic.
//
// at_least_once: idempotent producer (acks=all). A checkpoint completes only after every
// record sent before it is acknowledged (snapshotState flushes), so a restart from that
// checkpoint replays at most what came after it: duplicates are possible, loss is not.
//
// exactly_once: the Kafka Streams model (see eos.hpp). One transaction per checkpoint epoch:
// records go into the open transaction; at the checkpoint barrier the source's offsets are
// sent into it (send_offsets_to_transaction) and it is committed in
// notifyCheckpointComplete(), i.e. only once the checkpoint that holds the same offsets is
// durable. Records arriving between the barrier and the commit wait in memory for the next
// transaction. Recovery compares the group's committed offsets with the checkpoint.
//
// Failures: a delivery failure or fatal producer error (fencing; librdkafka 2.0.2's
// idempotence desync #4438), or an abortable transaction error, drops the producer and throws
// RecoverableError: the records since the last checkpoint are not known to be written, so the
// runtime recreates the operators (this sink with a new producer), restores the last completed
// checkpoint and replays from its offsets (runtime/recoverable.hpp; without a checkpoint from
// this run the run fails instead). Transient broker errors are retried by librdkafka.

#include "connectors/kafka/eos.hpp"
#include "connectors/kafka/kafka_config.hpp"
#include "connectors/kafka/kafka_errors.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "runtime/recoverable.hpp"

#include <tideline/engine/record_json.hpp>

#include <librdkafka/rdkafka.h>

#include <optional>
#include <stdexcept>

namespace tideline {

namespace {

using kafka::PartitionOffsets;

constexpr int kTxnTimeoutMs = 30000;
constexpr int kFlushTimeoutMs = 60000;
constexpr int kTxnRetries = 5;

class KafkaSink final : public Operator
{
public:
    explicit KafkaSink(const OperatorContext &ctx)
        : m_ctx(ctx)
        , m_node(ctx.spec.id)
    {
        const NodeParams p(ctx);
        m_bootstrap = ctx.resolve(p.string("bootstrap_servers"));
        m_topic = ctx.resolve(p.string("topic"));
        m_keyField = p.string("key_field");
        m_exactlyOnce = p.string("delivery") == "exactly_once";
        m_properties = ctx.spec.params.value("properties", Json::object());
        m_txnId = p.string("transactional_id");
        if (m_exactlyOnce) {
            // Compile builds upstream nodes first, so the source feeding this sink is the
            // newest registered on this thread (validation requires exactly one).
            m_source = kafka::latestOffsetSource();
            if (!m_source)
                throw ConfigError("params.delivery: exactly_once needs a source.kafka upstream");
            m_source->setOffsetsCommittedByTransaction(true);
            if (m_txnId.empty())
                m_txnId = "tideline-" + m_source->groupId() + "-" + m_node;
            else
                m_txnId = ctx.resolve(m_txnId);
        }
    }

    ~KafkaSink() override
    {
        if (m_rk) {
            if (m_txnState != Txn::None)
                if (rd_kafka_error_t *e = rd_kafka_abort_transaction(m_rk, 5000))
                    rd_kafka_error_destroy(e);
            rd_kafka_flush(m_rk, 5000);
            rd_kafka_destroy(m_rk);
        }
    }

    void open() override { createProducer(); }

    void processRecord(int, Record &&rec, Output &) override
    {
        checkFailure();
        m_value.clear();
        appendJson(rec, m_value);
        m_key.clear();
        bool hasKey = false;
        if (!m_keyField.empty()) {
            int idx = rec.indexOf(m_keyField);
            if (idx >= 0) {
                Value v = rec.valueAt(static_cast<std::size_t>(idx));
                if (v.type == ValueType::String)
                    m_key.assign(v.s);
                else if (!v.isNull())
                    appendJsonValue(v, m_key);
                hasKey = !v.isNull();
            }
        }
        if (m_exactlyOnce && m_txnState == Txn::PreCommitted) {
            // Belongs to the next epoch; its transaction starts after the commit.
            m_held.push_back({hasKey ? std::optional<std::string>(m_key) : std::nullopt, m_value});
            return;
        }
        if (m_exactlyOnce)
            ensureTransaction();
        produce(hasKey ? &m_key : nullptr, m_value);
    }

    void onTick(std::int64_t, Output &) override
    {
        if (m_rk)
            rd_kafka_poll(m_rk, 0);
        checkFailure();
    }

    void finish(Output &) override
    {
        checkFailure();
        if (m_exactlyOnce) {
            // A bounded run that ends without a final checkpoint still commits its output
            // together with the offsets it consumed.
            if (m_txnState == Txn::PreCommitted)
                commitTransaction("end of input");
            if (!m_held.empty())
                releaseHeld();
            if (m_txnState == Txn::Open) {
                flushOrThrow("end of input");
                sendOffsets(m_source->currentOffsets());
                commitTransaction("end of input");
            }
        } else {
            flushOrThrow("end of input");
        }
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_rk ? rd_kafka_outq_len(m_rk) : 0;
        m.errors = m_deliveryFailures;
    }

    // --- checkpoints ---
    void snapshotState(StateWriter &w) const override
    {
        auto *self = const_cast<KafkaSink *>(this); // the barrier has effects on Kafka
        self->checkFailure();
        self->flushOrThrow("checkpoint");
        w.u8(1);
        w.u8(m_exactlyOnce ? 1 : 0);
        if (!m_exactlyOnce)
            return;
        PartitionOffsets offsets = m_source->snapshotOffsets();
        if (m_txnState == Txn::PreCommitted)
            throw std::runtime_error("node `" + m_node
                                     + "`: a checkpoint started before the "
                                       "previous one completed; exactly_once commits one "
                                       "transaction per checkpoint");
        if (offsets != m_committedOffsets || m_txnState == Txn::Open) {
            self->ensureTransaction();
            self->sendOffsets(offsets);
            self->m_txnState = Txn::PreCommitted;
        }
        self->m_pendingOffsets = offsets;
        ++self->m_epoch;
        w.i64(m_epoch);
        writeOffsets(w, offsets);
        writeOffsets(w, m_committedOffsets);
    }

    void restoreState(StateReader &r) override
    {
        if (r.u8() != 1)
            throw ConfigError("checkpoint of sink.kafka has an unknown layout");
        bool eos = r.u8() != 0;
        if (!eos || !m_exactlyOnce)
            return;
        m_epoch = r.i64();
        PartitionOffsets latest = readOffsets(r), previous = readOffsets(r);
        if (r.failed())
            throw ConfigError("checkpoint of sink.kafka is truncated");
        PartitionOffsets committed;
        for (const auto &[p, off] : latest)
            committed[p] = off;
        for (const auto &[p, off] : previous)
            committed[p] = off;
        std::string why;
        if (!m_source->committed(committed, why))
            throw ConfigError("exactly_once recovery: cannot read the committed offsets of group `"
                              + m_source->groupId() + "`: " + why);
        kafka::RecoveryDecision d = kafka::decideRecovery(
            latest, previous.empty() && m_epoch <= 1 ? std::nullopt : std::optional(previous),
            committed);
        if (d.action == kafka::Recovery::UsePrevious)
            throw EarlierCheckpointNeeded("node `" + m_node + "`: exactly_once: checkpoint epoch "
                                          + std::to_string(m_epoch)
                                          + " was not committed to Kafka: " + d.reason);
        if (d.action != kafka::Recovery::UseLatest)
            throw ConfigError("exactly_once recovery: checkpoint epoch " + std::to_string(m_epoch)
                              + " does not match Kafka: " + d.reason
                              + ". Nothing was restored; to start over from the source's `start`"
                                " (output already in the topic is written again) rerun with"
                                " --fresh, or give source.kafka a new group_id");
        m_committedOffsets = latest;
    }

    std::string stateFingerprint() const override
    {
        return std::string("kafka-sink/") + (m_exactlyOnce ? "eos/" : "alo/") + m_topic;
    }

    void notifyCheckpointComplete(std::int64_t checkpointId) override
    {
        if (!m_exactlyOnce || m_txnState != Txn::PreCommitted)
            return;
        commitTransaction("checkpoint " + std::to_string(checkpointId));
        releaseHeld();
    }

private:
    enum class Txn { None, Open, PreCommitted };
    struct Held
    {
        std::optional<std::string> key;
        std::string value;
    };

    static void writeOffsets(StateWriter &w, const PartitionOffsets &o)
    {
        w.u64(o.size());
        for (const auto &[p, off] : o) {
            w.i64(p);
            w.i64(off);
        }
    }
    static PartitionOffsets readOffsets(StateReader &r)
    {
        PartitionOffsets o;
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            auto p = static_cast<std::int32_t>(r.i64());
            o[p] = r.i64();
        }
        return o;
    }

    void createProducer()
    {
        std::vector<kafka::ConfEntry> engine
            = kafka::producerSettings(m_bootstrap, m_node, m_exactlyOnce ? m_txnId : "");
        rd_kafka_conf_t *conf = kafka::buildConf(
            engine, m_properties, kafka::Role::Producer,
            [this](const std::string &v) { return m_ctx.resolve(v); }, m_node);
        rd_kafka_conf_set_opaque(conf, this);
        rd_kafka_conf_set_dr_msg_cb(conf, &KafkaSink::onDelivery);
        char errstr[512];
        m_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        if (!m_rk) {
            rd_kafka_conf_destroy(conf);
            throw ConfigError(std::string("cannot create the Kafka producer: ") + errstr);
        }
        m_rkt = nullptr;
        if (m_exactlyOnce) {
            // Fences an earlier instance with the same transactional.id and aborts its
            // pending transaction (on a real broker; the 2.0.2 mock does not fence).
            if (rd_kafka_error_t *e = rd_kafka_init_transactions(m_rk, kTxnTimeoutMs)) {
                std::string msg = rd_kafka_error_string(e);
                rd_kafka_error_destroy(e);
                rd_kafka_destroy(m_rk);
                m_rk = nullptr;
                throw ConfigError("cannot initialise transactions (transactional.id `" + m_txnId
                                  + "`): " + msg);
            }
        }
        m_txnState = Txn::None;
    }

    /// Fatal producer: drop it so nothing of the broken instance is reused, and hand over to
    /// the runtime, which recreates this sink (a new producer) and restores the last
    /// checkpoint. Remembered: a failure seen inside snapshotState() fails that checkpoint
    /// and is thrown again at the next record or tick.
    [[noreturn]] void failFatal(const std::string &why)
    {
        if (m_rk) {
            rd_kafka_destroy(m_rk);
            m_rk = nullptr;
        }
        m_held.clear();
        m_txnState = Txn::None;
        m_failure = "node `" + m_node + "`: Kafka producer failed: " + why
                    + "; the producer is recreated and the last checkpoint restored";
        m_failureRecoverable = true;
        throw RecoverableError(m_failure);
    }

    void checkFailure()
    {
        if (!m_failure.empty()) {
            if (m_failureRecoverable)
                throw RecoverableError(m_failure);
            throw std::runtime_error(m_failure);
        }
        if (!m_rk)
            return;
        std::string fatal = kafka::fatalError(m_rk);
        if (!fatal.empty())
            failFatal(fatal);
        if (!m_deliveryError.empty()) {
            std::string e = m_deliveryError;
            m_deliveryError.clear();
            failFatal("delivery failed: " + e);
        }
    }

    void produce(const std::string *key, const std::string &value)
    {
        for (int attempt = 0;; ++attempt) {
            rd_kafka_resp_err_t err = rd_kafka_producev(
                m_rk, RD_KAFKA_V_TOPIC(m_topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                RD_KAFKA_V_VALUE(const_cast<char *>(value.data()), value.size()),
                RD_KAFKA_V_KEY(key ? key->data() : nullptr, key ? key->size() : 0), RD_KAFKA_V_END);
            if (!err)
                break;
            if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                // Backpressure: the broker is slower than the pipeline (or down).
                rd_kafka_poll(m_rk, 50);
                checkFailure();
                continue;
            }
            if (kafka::classify(err) == kafka::ErrorClass::Fatal)
                failFatal(kafka::describe(err));
            throw std::runtime_error("node `" + m_node + "`: cannot produce to `" + m_topic
                                     + "`: " + kafka::describe(err));
        }
        if ((++m_sinceServe & 1023) == 0)
            rd_kafka_poll(m_rk, 0); // delivery reports
    }

    void flushOrThrow(const std::string &when)
    {
        if (!m_rk)
            return;
        rd_kafka_resp_err_t err = rd_kafka_flush(m_rk, kFlushTimeoutMs);
        if (err == RD_KAFKA_RESP_ERR__TIMED_OUT)
            throw std::runtime_error("node `" + m_node + "`: " + when + ": "
                                     + std::to_string(rd_kafka_outq_len(m_rk))
                                     + " records not acknowledged by Kafka within "
                                     + std::to_string(kFlushTimeoutMs / 1000) + " s");
        checkFailure();
    }

    /// Handles a transactional API error: retriable -> true (call again); abortable ->
    /// abort and fail; fatal -> recreate and fail.
    bool txnError(rd_kafka_error_t *e, const std::string &what, int attempt)
    {
        std::string msg = rd_kafka_error_string(e);
        bool retriable = rd_kafka_error_is_retriable(e);
        bool abortable = rd_kafka_error_txn_requires_abort(e);
        bool fatal = rd_kafka_error_is_fatal(e);
        rd_kafka_error_destroy(e);
        if (fatal)
            failFatal(what + ": " + msg);
        if (retriable && attempt < kTxnRetries)
            return true;
        if (abortable || retriable) {
            if (rd_kafka_error_t *a = rd_kafka_abort_transaction(m_rk, kTxnTimeoutMs)) {
                std::string am = rd_kafka_error_string(a);
                rd_kafka_error_destroy(a);
                failFatal(what + ": " + msg + "; abort failed too: " + am);
            }
            ++m_aborted;
            m_txnState = Txn::None;
            m_held.clear();
            m_failure = "node `" + m_node + "`: " + what + " failed: " + msg
                        + "; the transaction was aborted and the last checkpoint is restored";
            m_failureRecoverable = true;
            throw RecoverableError(m_failure);
        }
        m_failure = "node `" + m_node + "`: " + what + " failed: " + msg;
        throw std::runtime_error(m_failure);
    }

    void ensureTransaction()
    {
        if (m_txnState != Txn::None)
            return;
        for (int attempt = 0;; ++attempt) {
            rd_kafka_error_t *e = rd_kafka_begin_transaction(m_rk);
            if (!e)
                break;
            if (!txnError(e, "begin_transaction", attempt))
                break;
        }
        m_txnState = Txn::Open;
    }

    void sendOffsets(const PartitionOffsets &offsets)
    {
        if (offsets.empty())
            return;
        rd_kafka_topic_partition_list_t *l
            = rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
        for (const auto &[p, off] : offsets)
            rd_kafka_topic_partition_list_add(l, m_source->topic().c_str(), p)->offset = off;
        rd_kafka_consumer_group_metadata_t *cg = m_source->groupMetadata();
        for (int attempt = 0;; ++attempt) {
            rd_kafka_error_t *e = rd_kafka_send_offsets_to_transaction(m_rk, l, cg, kTxnTimeoutMs);
            if (!e)
                break;
            try {
                if (!txnError(e, "send_offsets_to_transaction", attempt))
                    break;
            } catch (...) {
                rd_kafka_consumer_group_metadata_destroy(cg);
                rd_kafka_topic_partition_list_destroy(l);
                throw;
            }
        }
        rd_kafka_consumer_group_metadata_destroy(cg);
        rd_kafka_topic_partition_list_destroy(l);
        m_pendingOffsets = offsets;
    }

    void commitTransaction(const std::string &when)
    {
        for (int attempt = 0;; ++attempt) {
            rd_kafka_error_t *e = rd_kafka_commit_transaction(m_rk, kTxnTimeoutMs);
            if (!e)
                break;
            if (!txnError(e, "commit_transaction (" + when + ")", attempt))
                break;
        }
        ++m_committed;
        m_committedOffsets = m_pendingOffsets;
        m_txnState = Txn::None;
        // The transaction is committed: record its offsets through the group as well, for
        // brokers that do not keep transactional offset commits (eos.hpp). A failure here
        // loses nothing: recovery then finds the previous epoch's offsets and restores the
        // checkpoint before, at worst writing this epoch's output again.
        std::string why;
        (void)m_source->commitAfterTransaction(m_committedOffsets, why);
    }

    void releaseHeld()
    {
        if (m_held.empty())
            return;
        ensureTransaction();
        for (const auto &h : m_held)
            produce(h.key ? &*h.key : nullptr, h.value);
        m_held.clear();
    }

    static void onDelivery(rd_kafka_t *, const rd_kafka_message_t *m, void *opaque)
    {
        auto *self = static_cast<KafkaSink *>(opaque);
        if (!m->err)
            return;
        ++self->m_deliveryFailures;
        if (self->m_deliveryError.empty())
            self->m_deliveryError = kafka::describe(m->err);
    }

    OperatorContext m_ctx;
    std::string m_node;
    std::string m_bootstrap, m_topic, m_keyField, m_txnId;
    bool m_exactlyOnce = false;
    Json m_properties;
    kafka::OffsetSource *m_source = nullptr;

    rd_kafka_t *m_rk = nullptr;
    rd_kafka_topic_t *m_rkt = nullptr;
    Txn m_txnState = Txn::None;
    std::vector<Held> m_held;
    PartitionOffsets m_pendingOffsets;
    PartitionOffsets m_committedOffsets;
    std::int64_t m_epoch = 0;
    std::int64_t m_committed = 0;
    std::int64_t m_aborted = 0;
    std::int64_t m_deliveryFailures = 0;
    std::uint32_t m_sinceServe = 0;
    std::string m_deliveryError;
    std::string m_failure;
    bool m_failureRecoverable = false;
    std::string m_value, m_key;
};

} // namespace

std::unique_ptr<Operator> makeKafkaSink(const OperatorContext &ctx)
{
    return std::make_unique<KafkaSink>(ctx);
}

} // namespace tideline
