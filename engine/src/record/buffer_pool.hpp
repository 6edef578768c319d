#pragma once
// The per-thread pool of record buffers (record.cpp) and its one knob.

#include <cstddef>

namespace tideline {

/// How many spare buffers of each kind this thread keeps for new records (at least the
/// default, 512). The loop thread of a parallel stage (runtime/parallel.hpp) gets its records
/// back a round at a time, thousands at once: without room for them it would free most and
/// allocate again for the next ones.
void setRecordBufferPoolLimit(std::size_t buffers);

} // namespace tideline
