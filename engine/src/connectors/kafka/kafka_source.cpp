// source.kafka: construction, polling, checkpoints and the offsets an exactly_once sink reads
// (the class and its design: kafka_source.hpp).

#include "connectors/kafka/kafka_source.hpp"

#include "connectors/kafka/kafka_chunk.hpp"
#include "connectors/kafka/kafka_config.hpp"
#include "connectors/kafka/kafka_errors.hpp"
#include "operators/params.hpp"

#include <tideline/engine/record_replay.hpp>

#include <algorithm>
#include <stdexcept>

namespace tideline::kafka {

KafkaSource::KafkaSource(const OperatorContext &ctx)
    : m_ctx(ctx)
    , m_node(ctx.spec.id)
{
    const NodeParams p(ctx);
    m_bootstrap = ctx.resolve(p.string("bootstrap_servers"));
    m_topic = ctx.resolve(p.string("topic"));
    m_decoder.setTopic(m_topic);
    m_group = ctx.resolve(p.string("group_id"));
    std::string start = p.string("start");
    m_start = start == "latest"      ? Start::Latest
              : start == "committed" ? Start::Committed
                                     : Start::Earliest;
    m_bounded = p.boolean("bounded");
    m_tasks = p.boolean("partition_tasks");
    m_properties = ctx.spec.params.value("properties", Json::object());
    kafka::registerOffsetSource(this);
}

KafkaSource::~KafkaSource()
{
    kafka::unregisterOffsetSource(this);
    // The runtime is being torn down: closing must not hand anything over (the final
    // checkpoint already wrote every owned partition's pointer).
    m_host = nullptr;
    m_chunks.reset(); // their messages go back to librdkafka before the consumer closes
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

void KafkaSource::open()
{
    std::vector<kafka::ConfEntry> engine = kafka::consumerSettings(m_bootstrap, m_group, m_node);
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
        throw ConfigError("params.topic: topic `" + m_topic + "` does not exist on " + m_bootstrap
                          + (topicErr ? " (" + kafka::describe(topicErr) + ")" : std::string()));
    m_partitionCount = parts;
    if (m_ctx.capture) { // --record
        m_capture = m_ctx.capture;
        m_captureSource = m_capture->declare(m_node, parts);
    }
}

// Bounded: the end offsets are known, so a partition not fetched yet is behind, not idle.
bool KafkaSource::hasRecordsLeft(int partition) const
{
    if (!m_bounded)
        return false;
    if (!m_started)
        return true;
    auto it = m_parts.find(partition);
    return it != m_parts.end() && !it->second.done;
}

SourceOperator::Poll KafkaSource::poll(Output &out, int maxRecords)
{
    if (!m_started)
        start();
    if (m_failure.size())
        throw std::runtime_error(m_failure);
    if (m_chunks)
        return pollChunks(out, maxRecords);
    if (m_bounded && m_remaining == 0)
        return Poll::Finished;
    int want = std::min(maxRecords, kMaxBatch);
    m_batch.resize(static_cast<std::size_t>(want));
    ssize_t n = rd_kafka_consume_batch_queue(m_queue, 0, m_batch.data(), static_cast<size_t>(want));
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

void KafkaSource::reportMetrics(observe::NodeMetrics &m) const
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

void KafkaSource::snapshotState(StateWriter &w) const
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

void KafkaSource::restoreState(StateReader &r)
{
    if (r.u8() != 1)
        throw ConfigError("checkpoint of source.kafka has an unknown layout");
    std::string topic = r.str();
    bool bounded = r.u8() != 0;
    if (topic != m_topic)
        throw ConfigError("checkpoint is for topic `" + topic + "`, the node now reads `" + m_topic
                          + "`; use --reset-state " + m_node);
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

void KafkaSource::notifyCheckpointComplete(std::int64_t)
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

PartitionOffsets KafkaSource::currentOffsets() const
{
    PartitionOffsets o;
    for (const auto &[p, st] : m_parts)
        o[p] = st.next;
    return o;
}

rd_kafka_consumer_group_metadata_t *KafkaSource::groupMetadata() const
{
    return m_rk ? rd_kafka_consumer_group_metadata(m_rk) : nullptr;
}

bool KafkaSource::committed(PartitionOffsets &io, std::string &error) const
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

bool KafkaSource::commitAfterTransaction(const PartitionOffsets &offsets, std::string &error)
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

} // namespace tideline::kafka

namespace tideline {

std::unique_ptr<Operator> makeKafkaSource(const OperatorContext &ctx)
{
    return std::make_unique<kafka::KafkaSource>(ctx);
}

} // namespace tideline
