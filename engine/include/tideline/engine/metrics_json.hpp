#pragma once
// The `--metrics FILE` line format (one JSON object per node per interval), shared by the
// runner and tests so both read and write the same names as the contract lists them.

#include <tideline/observe/metrics.hpp>

#include <string>

namespace tideline {

/// {"node": id, "t_ms": .., "records_in": .., ..., "watermark": ms|null, ...}
std::string nodeMetricsLine(const observe::NodeMetrics &m, std::int64_t tMs);
/// {"node": "*", "t_ms": .., "processing_ms": .., "events_per_s": .., "records_read": ..,
///  "checkpoint": {...}|null} — the per-run figures ("*" is never a valid node id).
std::string runMetricsLine(const observe::MetricsSnapshot &s);

} // namespace tideline
