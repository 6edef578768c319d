#pragma once
// Parsing event times from record fields (epoch_ms, epoch_s, iso8601).

#include <tideline/engine/record.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace tideline {

enum class TimeFormat { EpochMs, EpochS, Iso8601 };

/// ISO-8601 date-time: YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|±HH[:MM]] (no zone = UTC).
std::optional<Timestamp> parseIso8601(std::string_view s);

/// `t` as YYYY-MM-DDTHH:MM:SS.mmmZ (any int64 millisecond; for messages).
std::string formatUtc(Timestamp t);

/// The event time of a field value, or nullopt with `why` set.
std::optional<Timestamp> eventTimeOf(const Value &v, TimeFormat format, const char *&why);

} // namespace tideline
