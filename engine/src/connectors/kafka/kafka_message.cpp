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
    Record rec;
    const Decoded d = decode(m, rec, m_reason);
    emitDecoded(m, d, std::move(rec), m_reason, out);
}

const std::string &MessageDecoder::where(const Message &m)
{
    m_where.clear();
    m_where += m_topic;
    m_where += '/';
    m_where += std::to_string(m.partition);
    m_where += '/';
    m_where += std::to_string(m.offset);
    return m_where;
}

Decoded MessageDecoder::decode(const Message &m, Record &rec, std::string &reason)
{
    const std::string_view payload
        = m.payload ? std::string_view(m.payload, m.length) : std::string_view();
    if (!m.payload) {
        reason = "malformed JSON: message has no value (tombstone)";
        return Decoded::Malformed;
    }
    if (!m_parser.parse(payload, rec, reason)) {
        reason.insert(0, "malformed JSON: ");
        return Decoded::Malformed;
    }
    if (rec.has("_kafka")) [[unlikely]] {
        // `_kafka` is the message's metadata: a payload must neither replace it (what
        // expressions and keys would see) nor sit next to it (duplicate keys on output).
        // The record is not rewritten: it goes to `errors` as it came.
        reason = "payload has a top-level `_kafka` field, which is reserved for the message's "
                 "metadata (rename it upstream)";
        return Decoded::Reserved;
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
    return Decoded::Record;
}

void MessageDecoder::emitDecoded(
    const Message &m, Decoded d, Record &&rec, const std::string &reason, Output &out)
{
    switch (d) {
    case Decoded::Record:
        out.emit(0, std::move(rec));
        return;
    case Decoded::Malformed:
        out.emitError(reason, Record(), kMinTime,
                      m.payload ? std::string_view(m.payload, m.length) : std::string_view(),
                      where(m));
        return;
    case Decoded::Reserved:
        out.emitError(reason, std::move(rec), kMinTime, std::string_view(m.payload, m.length),
                      where(m));
        return;
    }
}

} // namespace tideline::kafka
