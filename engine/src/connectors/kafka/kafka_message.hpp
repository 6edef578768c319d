#pragma once
// One Kafka message as source.kafka turns it into a record: the payload parsed as a JSON
// object, the metadata appended as `_kafka.topic`, `.partition`, `.offset`, `.key`,
// `.timestamp`; a tombstone, malformed JSON or a payload with its own `_kafka` goes to
// `errors`. Shared by the consumer (kafka_source_message.cpp) and the replay of a recorded
// topic (kafka_replay.cpp), so a recording replays to the same records and errors.

#include <tideline/engine/operator.hpp>
#include <tideline/engine/record_json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tideline::kafka {

/// A message's parts, from librdkafka or from a recording.
struct Message
{
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    std::optional<std::string_view> key;
    std::int64_t timestamp = -1;   ///< -1: none
    const char *payload = nullptr; ///< null: no value (a tombstone)
    std::size_t length = 0;
};

/// What a message becomes.
enum class Decoded {
    Record,    ///< a record, its metadata appended
    Malformed, ///< to `errors`: no value, or not a JSON object
    Reserved   ///< to `errors` as it came: its payload has a top-level `_kafka`
};

class MessageDecoder
{
public:
    void setTopic(const std::string &topic);
    /// Emits `m` as a record (port 0) or to `errors`.
    void emit(const Message &m, Output &out);
    /// emit()'s first half, on any thread (a decoder is one thread's): `m` into `rec`, or why
    /// it goes to `errors` (`reason`; Reserved: `rec` is the payload as it came).
    [[nodiscard]] Decoded decode(const Message &m, Record &rec, std::string &reason);
    /// emit()'s second half (the loop thread): what decode() made, emitted.
    void
    emitDecoded(const Message &m, Decoded d, Record &&rec, const std::string &reason, Output &out);

private:
    /// "topic/partition/offset" of `m` (an error's where).
    const std::string &where(const Message &m);

    std::string m_topic;
    StaticPath m_topicInterned{std::string_view()};
    RecordParser m_parser;
    std::string m_reason;
    std::string m_where;
};

} // namespace tideline::kafka
