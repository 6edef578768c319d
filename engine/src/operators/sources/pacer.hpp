#pragma once
// Pacer: lets a source run slower than flat out so people can watch a pipeline work.
// Either a fixed number of records per second of wall (processing) time, or event time
// replayed at `speed` times wall time. Time comes from the job's Clock.

#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <algorithm>
#include <cstdint>

namespace tideline {

class Pacer
{
public:
    Pacer(const Json &pace, Clock &clock)
        : m_clock(clock)
    {
        if (pace.is_object()) {
            m_recordsPerSecond = pace.value("records_per_s", 0.0);
            m_speed = pace.value("speed", 0.0);
        }
    }

    bool active() const { return m_recordsPerSecond > 0 || m_speed > 0; }
    bool bySpeed() const { return m_speed > 0; }

    /// How many records may be emitted now (records_per_s mode), capped at `want`.
    int allowance(int want)
    {
        if (m_recordsPerSecond <= 0)
            return want;
        std::int64_t now = start();
        double allowed = static_cast<double>(now - m_startMs) * m_recordsPerSecond / 1000.0;
        auto total = static_cast<std::int64_t>(allowed) + 1;
        return static_cast<int>(std::clamp<std::int64_t>(total - m_emitted, 0, want));
    }
    /// Speed mode: may a record with this event time be emitted now?
    bool dueAt(Timestamp eventTime)
    {
        if (m_speed <= 0 || eventTime == kMinTime)
            return true;
        std::int64_t now = start();
        if (m_firstEventTime == kMinTime)
            m_firstEventTime = eventTime;
        double wallNeeded = static_cast<double>(eventTime - m_firstEventTime) / m_speed;
        return static_cast<double>(now - m_startMs) >= wallNeeded;
    }
    void emitted(int n = 1) { m_emitted += n; }

private:
    std::int64_t start()
    {
        std::int64_t now = m_clock.nowMs();
        if (m_startMs == kMinTime)
            m_startMs = now;
        return now;
    }

    Clock &m_clock;
    double m_recordsPerSecond = 0;
    double m_speed = 0;
    std::int64_t m_startMs = kMinTime;
    Timestamp m_firstEventTime = kMinTime;
    std::int64_t m_emitted = 0;
};

} // namespace tideline
