// A Kafka message into a record (kafka_message.hpp).

#include "connectors/kafka/kafka_message.hpp"

namespace tideline::kafka {

void MessageDecoder::setTopic(const std::string &topic)
{
    m_topic = topic;
    m_topicInterned = internPath(m_topic); // process-lifetime bytes for _kafka.topic
    m_where.reserve(128);
}

void MessageDecoder::emit(const Message &m, Output &out)
{
    std::string_view payload
        = m.payload ? std::string_view(m.payload, m.length) : std::string_view();
    Record rec;
    auto where = [&]() -> const std::string & {
        m_where.clear();
        m_where += m_topic;
        m_where += '/';
        m_where += std::to_string(m.partition);
        m_where += '/';
        m_where += std::to_string(m.offset);
        return m_where;
    };
    if (!m.payload || !m_parser.parse(payload, rec, m_error)) {
        if (!m.payload)
            m_error = "message has no value (tombstone)";
        out.emitError("malformed JSON: " + m_error, Record(), kMinTime, payload, where());
        return;
    }
    if (rec.has("_kafka")) [[unlikely]] {
        // `_kafka` is the message's metadata: a payload must neither replace it (what
        // expressions and keys would see) nor sit next to it (duplicate keys on output).
        // The record is not rewritten: it goes to `errors` as it came.
        out.emitError("payload has a top-level `_kafka` field, which is reserved for the "
                      "message's metadata (rename it upstream)",
                      std::move(rec), kMinTime, payload, where());
        return;
    }
    // Field names are literals and the topic an interned copy: the record points at them
    // instead of copying ~80 bytes into its arena per message.
    static constexpr StaticPath kTopic{"_kafka.topic"}, kPartition{"_kafka.partition"},
        kOffset{"_kafka.offset"}, kKey{"_kafka.key"}, kTimestamp{"_kafka.timestamp"};
    rec.append(kTopic, Value::staticString(m_topicInterned.s));
    rec.append(kPartition, Value::integer(m.partition));
    rec.append(kOffset, Value::integer(m.offset));
    if (m.key)
        rec.append(kKey, Value::string(*m.key));
    else
        rec.append(kKey, Value::null());
    if (m.timestamp >= 0)
        rec.append(kTimestamp, Value::integer(m.timestamp));
    else
        rec.append(kTimestamp, Value::null());
    rec.partition = static_cast<std::uint32_t>(m.partition);
    out.emit(0, std::move(rec));
}

} // namespace tideline::kafka
