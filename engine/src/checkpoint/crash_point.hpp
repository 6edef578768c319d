#pragma once
// Deterministic crash points for tests (RocksDB's whitebox kill points, by name):
//   TIDELINE_CRASH_AT=<point>[:N]
// aborts the process the N-th time (default 1st) the checkpoint protocol reaches <point>.
// Points, in protocol order: before_state_write, after_state_write, before_manifest,
// after_manifest, during_sink_commit. Unset: a cheap no-op.

#include <string_view>

namespace tideline::checkpoint {

void crashPoint(std::string_view point);

} // namespace tideline::checkpoint
