// source.kafka: consumes one topic; values parsed as JSON (simdjson), Kafka metadata exposed
// as `_kafka.topic`, `_kafka.partition`, `_kafka.offset`, `_kafka.key`, `_kafka.timestamp`.
//
// Positions. Every assigned partition gets a concrete start offset (never a logical one), so
// a checkpoint always holds a number per partition: checkpointed offset > (group mode) the
// group's committed offset > `start`. auto.offset.reset is always `error`: an offset that
// fell out of the log (retention) stops the run instead of silently skipping data.
//
// Modes. bounded: assign() every partition, read up to the end offsets seen at start (kept in
// the checkpoint so a restarted run ends at the same place), then Finished. Unbounded:
// subscribe() with group_id so several processes share the partitions (parallelism <=
// partitions). With partition_tasks (default) the runtime runs the nodes after this source as
// one task per partition and moves a partition's state with it: this source tells it about
// every assignment and revocation (PartitionTaskHost) and resumes a partition at the offset
// its moved state names.
//
// Offsets are committed to Kafka only in notifyCheckpointComplete() (after the checkpoint is
// durable), never on a timer, never before processing. With an exactly_once sink the
// transaction carries them instead.
//
// [Threading] librdkafka's threads fetch in the background; poll() takes what is already in
// the consumer queue with a zero timeout and returns Waiting when it is empty, so the loop is
// never blocked by Kafka (open(), rebalances and recovery may block briefly: they query
// offsets).

#include "connectors/kafka/eos.hpp"
#include "connectors/kafka/kafka_config.hpp"
#include "connectors/kafka/kafka_errors.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <tideline/engine/record_json.hpp>

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace tideline {

namespace {

using kafka::PartitionOffsets;

constexpr int kQueryTimeoutMs = 10000;
constexpr int kMaxBatch = 4096;

struct TopparList
{
    rd_kafka_topic_partition_list_t *list;
    explicit TopparList(int size = 8)
        : list(rd_kafka_topic_partition_list_new(size))
    {
    }
    ~TopparList() { rd_kafka_topic_partition_list_destroy(list); }
    TopparList(const TopparList &) = delete;
    TopparList &operator=(const TopparList &) = delete;
};

class KafkaSource final : public SourceOperator, public kafka::OffsetSource
{
public:
    explicit KafkaSource(const OperatorContext &ctx)
        : m_ctx(ctx)
        , m_node(ctx.spec.id)
    {
        const NodeParams p(ctx);
        m_bootstrap = ctx.resolve(p.string("bootstrap_servers"));
        m_topic = ctx.resolve(p.string("topic"));
        m_topicInterned = internPath(m_topic); // process-lifetime bytes for _kafka.topic
        m_group = ctx.resolve(p.string("group_id"));
        std::string start = p.string("start");
        m_start = start == "latest"      ? Start::Latest
                  : start == "committed" ? Start::Committed
                                         : Start::Earliest;
        m_bounded = p.boolean("bounded");
        m_tasks = p.boolean("partition_tasks");
        m_properties = ctx.spec.params.value("properties", Json::object());
        m_where.reserve(128);
        kafka::registerOffsetSource(this);
    }

    ~KafkaSource() override
    {
        kafka::unregisterOffsetSource(this);
        // The runtime is being torn down: closing must not hand anything over (the final
        // checkpoint already wrote every owned partition's pointer).
        m_host = nullptr;
        if (!m_rk)
            return;
        flushCommit();
        if (m_queue)
            rd_kafka_queue_destroy(m_queue);
        // Leaves the group now (instead of after session.timeout.ms) so the partitions move
        // to the remaining members at once.
        rd_kafka_consumer_close(m_rk);
        rd_kafka_destroy(m_rk);
    }

    void open() override
    {
        std::vector<kafka::ConfEntry> engine
            = kafka::consumerSettings(m_bootstrap, m_group, m_node);
        rd_kafka_conf_t *conf = kafka::buildConf(
            engine, m_properties, kafka::Role::Consumer,
            [this](const std::string &v) { return m_ctx.resolve(v); }, m_node);
        rd_kafka_conf_set_opaque(conf, this);
        if (!m_bounded)
            rd_kafka_conf_set_rebalance_cb(conf, &KafkaSource::onRebalance);
        rd_kafka_conf_set_offset_commit_cb(conf, &KafkaSource::onCommit);
        char errstr[512];
        m_rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
        if (!m_rk) // conf is destroyed by rd_kafka_new only on success
        {
            rd_kafka_conf_destroy(conf);
            throw ConfigError(std::string("cannot create the Kafka consumer: ") + errstr);
        }
        rd_kafka_poll_set_consumer(m_rk);
        m_queue = rd_kafka_queue_get_consumer(m_rk);

        // Partition count from metadata: the watermark node keeps one watermark per partition.
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(m_rk, m_topic.c_str(), nullptr);
        const rd_kafka_metadata_t *md = nullptr;
        rd_kafka_resp_err_t err = rd_kafka_metadata(m_rk, 0, rkt, &md, kQueryTimeoutMs);
        rd_kafka_topic_destroy(rkt);
        if (err)
            throw ConfigError("params.bootstrap_servers: cannot read metadata of topic `" + m_topic
                              + "` from " + m_bootstrap + ": " + kafka::describe(err));
        int parts = 0;
        rd_kafka_resp_err_t topicErr = RD_KAFKA_RESP_ERR_NO_ERROR;
        for (int i = 0; i < md->topic_cnt; ++i)
            if (m_topic == md->topics[i].topic) {
                parts = md->topics[i].partition_cnt;
                topicErr = md->topics[i].err;
            }
        rd_kafka_metadata_destroy(md);
        if (topicErr || parts <= 0)
            throw ConfigError(
                "params.topic: topic `" + m_topic + "` does not exist on " + m_bootstrap
                + (topicErr ? " (" + kafka::describe(topicErr) + ")" : std::string()));
        m_partitionCount = parts;
    }

    int partitions() const override { return std::max(1, m_partitionCount); }

    // Group mode: partitions come and go with rebalances, so they run as tasks whose state
    // moves with them (runtime/partition_tasks.cpp).
    bool partitionTasks() const override { return !m_bounded && m_tasks; }
    // Bounded: the end offsets are known, so a partition not fetched yet is behind, not idle.
    bool hasRecordsLeft(int partition) const override
    {
        if (!m_bounded)
            return false;
        if (!m_started)
            return true;
        auto it = m_parts.find(partition);
        return it != m_parts.end() && !it->second.done;
    }
    void setTaskHost(PartitionTaskHost *host) override { m_host = host; }
    std::map<int, std::int64_t> taskPositions() const override { return currentOffsets(); }

    Poll poll(Output &out, int maxRecords) override
    {
        if (!m_started)
            start();
        if (m_failure.size())
            throw std::runtime_error(m_failure);
        if (m_bounded && m_remaining == 0)
            return Poll::Finished;
        int want = std::min(maxRecords, kMaxBatch);
        m_batch.resize(static_cast<std::size_t>(want));
        ssize_t n
            = rd_kafka_consume_batch_queue(m_queue, 0, m_batch.data(), static_cast<size_t>(want));
        if (!m_failure.empty())
            throw std::runtime_error(m_failure); // set by a callback served in that call
        if (n <= 0)
            return m_bounded && m_remaining == 0 ? Poll::Finished : Poll::Waiting;
        bool emitted = false;
        for (ssize_t i = 0; i < n; ++i) {
            rd_kafka_message_t *m = m_batch[static_cast<std::size_t>(i)];
            try {
                emitted |= handle(m, out);
            } catch (...) {
                for (ssize_t j = i; j < n; ++j)
                    rd_kafka_message_destroy(m_batch[static_cast<std::size_t>(j)]);
                throw;
            }
            rd_kafka_message_destroy(m);
        }
        if (m_bounded && m_remaining == 0 && !emitted)
            return Poll::Finished;
        return emitted ? Poll::Produced : Poll::Waiting;
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = static_cast<std::int64_t>(m_parts.size());
        m.inputs.clear();
        for (const auto &[p, st] : m_parts) {
            observe::InputWatermark iw;
            iw.name = "partition " + std::to_string(p);
            iw.lastActivityMs = st.lastActivityMs;
            std::int64_t lo = 0, hi = 0;
            // Cached from fetch responses: never a broker round trip on the loop thread.
            // Unknown (-1) until a fetch response told the partition's end.
            iw.lag = -1;
            if (m_rk && rd_kafka_get_watermark_offsets(m_rk, m_topic.c_str(), p, &lo, &hi) == 0
                && hi >= 0 && st.next >= 0)
                iw.lag = std::max<std::int64_t>(0, hi - st.next);
            m.inputs.push_back(iw);
        }
    }

    // --- checkpoints ---
    void snapshotState(StateWriter &w) const override
    {
        w.u8(1); // layout version
        w.str(m_topic);
        w.u8(m_bounded ? 1 : 0);
        w.u64(m_parts.size() + m_restoredUnassigned.size());
        PartitionOffsets snap;
        for (const auto &[p, st] : m_parts) {
            w.i64(p);
            w.i64(st.next);
            w.i64(st.end);
            snap[p] = st.next;
        }
        // Restored partitions not (yet) assigned to this member stay in the checkpoint.
        for (const auto &[p, st] : m_restoredUnassigned) {
            w.i64(p);
            w.i64(st.next);
            w.i64(st.end);
            snap[p] = st.next;
        }
        m_snapshot = std::move(snap);
    }

    void restoreState(StateReader &r) override
    {
        if (r.u8() != 1)
            throw ConfigError("checkpoint of source.kafka has an unknown layout");
        std::string topic = r.str();
        bool bounded = r.u8() != 0;
        if (topic != m_topic)
            throw ConfigError("checkpoint is for topic `" + topic + "`, the node now reads `"
                              + m_topic + "`; use --reset-state " + m_node);
        (void)bounded;
        std::uint64_t n = r.u64();
        m_restored.clear();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            auto p = static_cast<std::int32_t>(r.i64());
            PartState st;
            st.next = r.i64();
            st.end = r.i64();
            m_restored[p] = st;
        }
        if (r.failed())
            throw ConfigError("checkpoint of source.kafka is truncated");
        m_isRestored = true;
    }

    std::string stateFingerprint() const override { return "kafka/" + m_topic; }

    void notifyCheckpointComplete(std::int64_t) override
    {
        if (m_txnCommits || m_snapshot.empty() || !m_rk)
            return;
        if (m_snapshot == m_lastCommitted)
            return;
        TopparList l(static_cast<int>(m_snapshot.size()));
        for (const auto &[p, off] : m_snapshot)
            rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p)->offset = off;
        // Asynchronous: the result arrives through onCommit() during a later poll. A failed
        // commit is harmless (the next checkpoint commits again; a restart uses the checkpoint).
        rd_kafka_resp_err_t err = rd_kafka_commit(m_rk, l.list, 1);
        if (err)
            ++m_commitFailures;
        else
            ++m_commitsInFlight;
        m_lastCommitted = m_snapshot;
    }

    // --- kafka::OffsetSource ---
    const std::string &bootstrap() const override { return m_bootstrap; }
    const std::string &topic() const override { return m_topic; }
    const std::string &groupId() const override { return m_group; }
    PartitionOffsets snapshotOffsets() const override { return m_snapshot; }
    PartitionOffsets currentOffsets() const override
    {
        PartitionOffsets o;
        for (const auto &[p, st] : m_parts)
            o[p] = st.next;
        return o;
    }
    rd_kafka_consumer_group_metadata_t *groupMetadata() const override
    {
        return m_rk ? rd_kafka_consumer_group_metadata(m_rk) : nullptr;
    }
    bool committed(PartitionOffsets &io, std::string &error) const override
    {
        if (!m_rk) {
            error = "consumer not open";
            return false;
        }
        TopparList l(static_cast<int>(io.size()));
        for (const auto &[p, off] : io)
            rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p);
        rd_kafka_resp_err_t err = rd_kafka_committed(m_rk, l.list, kQueryTimeoutMs);
        if (err) {
            error = kafka::describe(err);
            return false;
        }
        io.clear();
        for (int i = 0; i < l.list->cnt; ++i)
            if (l.list->elems[i].offset >= 0)
                io[l.list->elems[i].partition] = l.list->elems[i].offset;
        return true;
    }
    void setOffsetsCommittedByTransaction(bool yes) override { m_txnCommits = yes; }
    bool commitAfterTransaction(const PartitionOffsets &offsets, std::string &error) override
    {
        if (offsets.empty())
            return true;
        if (!m_rk) {
            error = "consumer not open";
            return false;
        }
        TopparList l(static_cast<int>(offsets.size()));
        for (const auto &[p, off] : offsets)
            rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p)->offset = off;
        if (rd_kafka_resp_err_t err = rd_kafka_commit(m_rk, l.list, 0); err) {
            error = kafka::describe(err);
            return false;
        }
        m_lastCommitted = offsets;
        return true;
    }

private:
    enum class Start { Earliest, Latest, Committed };
    struct PartState
    {
        std::int64_t next = -1; ///< next offset to emit
        std::int64_t end = -1;  ///< bounded: stop before this offset
        std::int64_t lastActivityMs = 0;
        bool done = false;
    };

    /// Concrete start offset for a partition without a checkpointed position.
    std::int64_t startOffset(std::int32_t p, bool preferCommitted, std::int64_t &hiOut)
    {
        std::int64_t lo = 0, hi = 0;
        rd_kafka_resp_err_t err
            = rd_kafka_query_watermark_offsets(m_rk, m_topic.c_str(), p, &lo, &hi, kQueryTimeoutMs);
        if (err)
            throw std::runtime_error("node `" + m_node + "`: cannot read offsets of " + m_topic
                                     + "/" + std::to_string(p) + ": " + kafka::describe(err));
        hiOut = hi;
        if (preferCommitted || m_start == Start::Committed) {
            PartitionOffsets c{{p, -1}};
            std::string why;
            if (!committed(c, why))
                throw std::runtime_error(
                    "node `" + m_node + "`: cannot read the committed offset of " + m_topic + "/"
                    + std::to_string(p) + " for group `" + m_group + "`: " + why);
            if (c.count(p))
                return c[p];
            if (m_start == Start::Committed)
                throw std::runtime_error("node `" + m_node + "`: start is `committed` but group `"
                                         + m_group + "` has no committed offset for " + m_topic
                                         + "/" + std::to_string(p)
                                         + " (use start `earliest` or `latest` for the first run)");
        }
        return m_start == Start::Latest ? hi : lo;
    }

    void start()
    {
        m_started = true;
        if (m_bounded) {
            TopparList l(m_partitionCount);
            for (std::int32_t p = 0; p < m_partitionCount; ++p) {
                PartState st;
                auto it = m_restored.find(p);
                if (it != m_restored.end()) {
                    st = it->second;
                } else {
                    std::int64_t hi = 0;
                    st.next = startOffset(p, false, hi);
                    st.end = hi;
                }
                st.lastActivityMs = m_ctx.clock.nowMs();
                st.done = st.next >= st.end;
                if (!st.done) {
                    ++m_remaining;
                    rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p)->offset = st.next;
                }
                m_parts[p] = st;
            }
            m_restored.clear();
            if (l.list->cnt > 0) {
                rd_kafka_resp_err_t err = rd_kafka_assign(m_rk, l.list);
                if (err)
                    throw std::runtime_error("node `" + m_node
                                             + "`: assign failed: " + kafka::describe(err));
            }
            return;
        }
        m_restoredUnassigned = m_restored;
        m_restored.clear();
        TopparList l(1);
        rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), RD_KAFKA_PARTITION_UA);
        rd_kafka_resp_err_t err = rd_kafka_subscribe(m_rk, l.list);
        if (err)
            throw std::runtime_error("node `" + m_node
                                     + "`: subscribe failed: " + kafka::describe(err));
    }

    static void onRebalance(rd_kafka_t *rk,
                            rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts,
                            void *opaque)
    {
        auto *self = static_cast<KafkaSource *>(opaque);
        try {
            self->rebalance(rk, err, parts);
        } catch (const std::exception &e) {
            // Cannot throw through librdkafka: poll() rethrows it.
            self->m_failure = e.what();
        }
    }

    void rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts)
    {
        bool cooperative = std::string(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
            // Partition tasks first: a partition whose state moved here resumes where that
            // state was taken.
            std::map<int, std::int64_t> resume;
            if (m_host) {
                std::vector<int> assigned;
                for (int i = 0; i < parts->cnt; ++i)
                    if (m_topic == parts->elems[i].topic)
                        assigned.push_back(parts->elems[i].partition);
                resume = m_host->partitionsAssigned(assigned, cooperative);
            }
            for (int i = 0; i < parts->cnt; ++i) {
                auto &e = parts->elems[i];
                if (m_topic != e.topic)
                    continue;
                PartState st;
                auto it = m_restoredUnassigned.find(e.partition);
                if (auto r = resume.find(e.partition); r != resume.end()) {
                    st.next = r->second;
                    if (it != m_restoredUnassigned.end())
                        m_restoredUnassigned.erase(it);
                } else if (it != m_restoredUnassigned.end()) {
                    st = it->second;
                    m_restoredUnassigned.erase(it);
                } else {
                    std::int64_t hi = 0;
                    // A partition moving here from another member resumes where that member
                    // committed after its last checkpoint; `start` only for never-committed.
                    st.next = startOffset(e.partition, m_start != Start::Committed, hi);
                }
                st.lastActivityMs = m_ctx.clock.nowMs();
                e.offset = st.next;
                m_parts[e.partition] = st;
            }
            ++m_rebalances;
            if (cooperative) {
                rd_kafka_error_t *e = rd_kafka_incremental_assign(rk, parts);
                if (e) {
                    m_failure = "node `" + m_node + "`: assign failed: " + rd_kafka_error_string(e);
                    rd_kafka_error_destroy(e);
                }
            } else {
                rd_kafka_assign(rk, parts);
            }
        } else {
            // Revoked. With partition tasks the runtime hands their state over first (a
            // checkpoint that includes them); the next owner resumes at that checkpoint's
            // offsets. Without checkpoints, what was emitted but not committed is replayed by
            // the next owner (at-least-once; an upsert sink absorbs it).
            if (m_host) {
                std::vector<int> revoked;
                for (int i = 0; i < parts->cnt; ++i)
                    if (m_topic == parts->elems[i].topic
                        && m_parts.count(parts->elems[i].partition))
                        revoked.push_back(parts->elems[i].partition);
                m_host->partitionsRevoked(revoked, cooperative);
            }
            for (int i = 0; i < parts->cnt; ++i)
                m_parts.erase(parts->elems[i].partition);
            m_restoredUnassigned.clear();
            if (cooperative) {
                rd_kafka_error_t *e = rd_kafka_incremental_unassign(rk, parts);
                if (e)
                    rd_kafka_error_destroy(e);
            } else {
                rd_kafka_assign(rk, nullptr);
            }
        }
    }

    static void
    onCommit(rd_kafka_t *, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *, void *opaque)
    {
        auto *self = static_cast<KafkaSource *>(opaque);
        if (self->m_commitsInFlight > 0)
            --self->m_commitsInFlight;
        if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
            ++self->m_commitFailures;
    }

    /// Before closing: wait (bounded) for an asynchronous commit still in flight, so the last
    /// checkpoint's offsets reach the group.
    void flushCommit()
    {
        for (int i = 0; i < 50 && m_commitsInFlight > 0; ++i) {
            rd_kafka_message_t *m = rd_kafka_consumer_poll(m_rk, 100);
            if (m)
                rd_kafka_message_destroy(m);
        }
    }

    /// One message: an error event, or a record to emit. Returns whether it emitted.
    bool handle(rd_kafka_message_t *m, Output &out)
    {
        if (m->err) {
            kafka::ErrorClass c = kafka::classify(m->err);
            if (c == kafka::ErrorClass::DataLoss) {
                std::int64_t lo = -1, hi = -1;
                rd_kafka_get_watermark_offsets(m_rk, m_topic.c_str(), m->partition, &lo, &hi);
                throw std::runtime_error(
                    "node `" + m_node + "`: " + m_topic + "/" + std::to_string(m->partition)
                    + ": offset " + std::to_string(m->offset)
                    + " is no longer in the log (it now starts at " + std::to_string(lo)
                    + "): data was lost to retention; refusing to skip it "
                      "(auto.offset.reset=error). Restore an older checkpoint or start with "
                      "--fresh");
            }
            // A fetch that briefly sees no topic/partition (metadata moving) is retried.
            bool briefly = m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
            if ((c == kafka::ErrorClass::Config && !briefly) || c == kafka::ErrorClass::Fatal)
                throw std::runtime_error(
                    "node `" + m_node + "`: Kafka consumer error: " + kafka::describe(m->err)
                    + (m->payload
                           ? ": " + std::string(static_cast<const char *>(m->payload), m->len)
                           : std::string()));
            ++m_transientErrors; // librdkafka retries (broker down, timeouts)
            return false;
        }
        auto it = m_parts.find(m->partition);
        if (it == m_parts.end())
            return false; // revoked meanwhile
        PartState &st = it->second;
        if (m_bounded) {
            if (st.done || m->offset >= st.end)
                return false;
        }
        st.next = m->offset + 1;
        st.lastActivityMs = m_nowMs;
        if (m_bounded && st.next >= st.end)
            finishPartition(m->partition, st);

        std::string_view payload
            = m->payload ? std::string_view(static_cast<const char *>(m->payload), m->len)
                         : std::string_view();
        Record rec;
        auto where = [&]() -> const std::string & {
            m_where.clear();
            m_where += m_topic;
            m_where += '/';
            m_where += std::to_string(m->partition);
            m_where += '/';
            m_where += std::to_string(m->offset);
            return m_where;
        };
        if (!m->payload || !m_parser.parse(payload, rec, m_error)) {
            if (!m->payload)
                m_error = "message has no value (tombstone)";
            out.emitError("malformed JSON: " + m_error, Record(), kMinTime, payload, where());
            return true;
        }
        if (rec.has("_kafka")) [[unlikely]] {
            // `_kafka` is the message's metadata: a payload must neither replace it (what
            // expressions and keys would see) nor sit next to it (duplicate keys on output).
            // The record is not rewritten: it goes to `errors` as it came.
            out.emitError("payload has a top-level `_kafka` field, which is reserved for the "
                          "message's metadata (rename it upstream)",
                          std::move(rec), kMinTime, payload, where());
            return true;
        }
        // Field names are literals and the topic an interned copy: the record points at them
        // instead of copying ~80 bytes into its arena per message.
        static constexpr StaticPath kTopic{"_kafka.topic"}, kPartition{"_kafka.partition"},
            kOffset{"_kafka.offset"}, kKey{"_kafka.key"}, kTimestamp{"_kafka.timestamp"};
        rec.append(kTopic, Value::staticString(m_topicInterned.s));
        rec.append(kPartition, Value::integer(m->partition));
        rec.append(kOffset, Value::integer(m->offset));
        if (m->key)
            rec.append(kKey, Value::string(
                                 std::string_view(static_cast<const char *>(m->key), m->key_len)));
        else
            rec.append(kKey, Value::null());
        rd_kafka_timestamp_type_t tsType;
        std::int64_t ts = rd_kafka_message_timestamp(m, &tsType);
        if (ts >= 0)
            rec.append(kTimestamp, Value::integer(ts));
        else
            rec.append(kTimestamp, Value::null());
        rec.partition = static_cast<std::uint32_t>(m->partition);
        out.emit(0, std::move(rec));
        return true;
    }

    void finishPartition(std::int32_t p, PartState &st)
    {
        st.done = true;
        --m_remaining;
        TopparList l(1);
        rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p);
        rd_kafka_pause_partitions(m_rk, l.list);
    }

public:
    void onTick(std::int64_t nowMs, Output &) override { m_nowMs = nowMs; }

private:
    OperatorContext m_ctx; // a copy: the compile-time context does not outlive compile()
    std::string m_node;
    std::string m_bootstrap, m_topic, m_group;
    StaticPath m_topicInterned{std::string_view()};
    Start m_start = Start::Earliest;
    bool m_bounded = false;
    bool m_tasks = true; ///< params.partition_tasks
    Json m_properties;

    rd_kafka_t *m_rk = nullptr;
    rd_kafka_queue_t *m_queue = nullptr;
    int m_partitionCount = 0;
    bool m_started = false;
    bool m_isRestored = false;
    bool m_txnCommits = false;
    PartitionTaskHost *m_host = nullptr;                    ///< the runtime, in group mode
    std::map<std::int32_t, PartState> m_parts;              ///< assigned partitions
    std::map<std::int32_t, PartState> m_restored;           ///< from the checkpoint, until start()
    std::map<std::int32_t, PartState> m_restoredUnassigned; ///< group mode: not assigned yet
    int m_remaining = 0;                                    ///< bounded: partitions not done
    mutable PartitionOffsets m_snapshot;                    ///< offsets of the last snapshot
    PartitionOffsets m_lastCommitted;
    int m_commitsInFlight = 0;
    std::int64_t m_commitFailures = 0;
    std::int64_t m_transientErrors = 0;
    std::int64_t m_rebalances = 0;
    std::int64_t m_nowMs = 0;
    std::string m_failure;

    std::vector<rd_kafka_message_t *> m_batch;
    RecordParser m_parser;
    std::string m_error;
    std::string m_where;
};

} // namespace

std::unique_ptr<Operator> makeKafkaSource(const OperatorContext &ctx)
{
    return std::make_unique<KafkaSource>(ctx);
}

} // namespace tideline
