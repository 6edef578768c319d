// source.kafka: start offsets, assignment (bounded) and subscription with rebalances (group
// mode), commit callbacks (kafka_source.hpp).

#include "connectors/kafka/kafka_errors.hpp"
#include "connectors/kafka/kafka_source.hpp"

#include <stdexcept>
#include <string>

namespace tideline::kafka {

/// Concrete start offset for a partition without a checkpointed position.
std::int64_t KafkaSource::startOffset(std::int32_t p, bool preferCommitted, std::int64_t &hiOut)
{
    std::int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t err
        = rd_kafka_query_watermark_offsets(m_rk, m_topic.c_str(), p, &lo, &hi, kQueryTimeoutMs);
    if (err)
        throw std::runtime_error("node `" + m_node + "`: cannot read offsets of " + m_topic + "/"
                                 + std::to_string(p) + ": " + kafka::describe(err));
    hiOut = hi;
    if (preferCommitted || m_start == Start::Committed) {
        PartitionOffsets c{{p, -1}};
        std::string why;
        if (!committed(c, why))
            throw std::runtime_error("node `" + m_node + "`: cannot read the committed offset of "
                                     + m_topic + "/" + std::to_string(p) + " for group `" + m_group
                                     + "`: " + why);
        if (c.count(p))
            return c[p];
        if (m_start == Start::Committed)
            throw std::runtime_error("node `" + m_node + "`: start is `committed` but group `"
                                     + m_group + "` has no committed offset for " + m_topic + "/"
                                     + std::to_string(p)
                                     + " (use start `earliest` or `latest` for the first run)");
    }
    return m_start == Start::Latest ? hi : lo;
}

void KafkaSource::start()
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

void KafkaSource::onRebalance(rd_kafka_t *rk,
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

void KafkaSource::rebalance(rd_kafka_t *rk,
                            rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts)
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
                if (m_topic == parts->elems[i].topic && m_parts.count(parts->elems[i].partition))
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

void KafkaSource::onCommit(rd_kafka_t *,
                           rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t *,
                           void *opaque)
{
    auto *self = static_cast<KafkaSource *>(opaque);
    if (self->m_commitsInFlight > 0)
        --self->m_commitsInFlight;
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
        ++self->m_commitFailures;
}

/// Before closing: wait (bounded) for an asynchronous commit still in flight, so the last
/// checkpoint's offsets reach the group.
void KafkaSource::flushCommit()
{
    for (int i = 0; i < 50 && m_commitsInFlight > 0; ++i) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(m_rk, 100);
        if (m)
            rd_kafka_message_destroy(m);
    }
}

} // namespace tideline::kafka
