#pragma once
// The sources of a replay (record_replay.hpp): what the runtime builds for a source node when
// JobOptions::feed is set.

#include <tideline/engine/operator.hpp>

#include <memory>

namespace tideline::recording {

/// source.file: the file source itself, reading its lines from the feed (so CSV headers,
/// multi-line cells, blank lines and malformed lines behave as they did); source.kafka: the
/// recorded messages decoded like the consumer does, no broker; generators: their records.
std::unique_ptr<Operator> makeReplaySource(const OperatorContext &ctx);

/// connectors/kafka/kafka_replay.cpp
std::unique_ptr<Operator> makeKafkaReplaySource(const OperatorContext &ctx);

} // namespace tideline::recording
