#pragma once
// Event time and processing time.
//
// Event time is milliseconds since the epoch (int64). The watermark W of a node means "every
// record with event time <= W has arrived". kMinTime stands for W = -inf (nothing known yet)
// and kMaxTime for W = +inf (the input ended). Arithmetic on times saturates so that
// "end - 1 + lateness" never overflows at the extremes.
//
// Processing time comes only from a Clock (RocksDB's SystemClock idea): the runner uses the
// system clock, tests use ManualClock, so idleness and pacing are testable and deterministic.

#include <atomic>
#include <cstdint>
#include <limits>

namespace tideline {

using Timestamp = std::int64_t;
inline constexpr Timestamp kMinTime = std::numeric_limits<Timestamp>::min();
inline constexpr Timestamp kMaxTime = std::numeric_limits<Timestamp>::max();

constexpr Timestamp satAdd(Timestamp a, Timestamp b) noexcept
{
    Timestamp r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? kMaxTime : kMinTime;
    return r;
}
constexpr Timestamp satSub(Timestamp a, Timestamp b) noexcept
{
    Timestamp r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? kMaxTime : kMinTime;
    return r;
}

/// Floor division that is correct for negative event times (before 1970).
constexpr Timestamp floorDiv(Timestamp a, Timestamp b) noexcept
{
    Timestamp q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Source of processing time. [Threading] nowMs() is called from the pipeline's loop thread
/// only; implementations need no locking unless a test drives them from elsewhere.
class Clock
{
public:
    virtual ~Clock() = default;
    /// Milliseconds since the epoch (wall time, used for metrics `t_ms` and idleness).
    virtual std::int64_t nowMs() = 0;
    /// Block the loop for a while (pacing, waiting for Kafka). ManualClock advances instead.
    virtual void sleepMs(std::int64_t ms) = 0;
};

class SystemClock final : public Clock
{
public:
    std::int64_t nowMs() override;
    void sleepMs(std::int64_t ms) override;
    static SystemClock &instance();
};

/// A clock that only moves when told to. sleepMs() advances it, so paced sources and idle
/// timeouts run instantly and deterministically in tests.
class ManualClock final : public Clock
{
public:
    explicit ManualClock(std::int64_t startMs = 1'700'000'000'000)
        : m_now(startMs)
    {
    }
    std::int64_t nowMs() override { return m_now.load(std::memory_order_relaxed); }
    void sleepMs(std::int64_t ms) override { advance(ms); }
    void advance(std::int64_t ms) { m_now.fetch_add(ms, std::memory_order_relaxed); }
    void set(std::int64_t ms) { m_now.store(ms, std::memory_order_relaxed); }

private:
    std::atomic<std::int64_t> m_now;
};

} // namespace tideline
