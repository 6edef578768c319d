#include <tideline/engine/catalog.hpp>
#include <tideline/engine/metrics_json.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/observe/balance.hpp>

namespace tideline {

namespace {
Json optionalTime(const std::optional<std::int64_t> &t)
{
    return t ? Json(*t) : Json(nullptr);
}
} // namespace

std::string nodeMetricsLine(const observe::NodeMetrics &m, std::int64_t tMs)
{
    Json j = Json::object();
    j["node"] = m.node;
    j["t_ms"] = tMs;
    j["records_in"] = m.recordsIn;
    j["records_out"] = m.recordsOut;
    j["late"] = m.late;
    j["errors"] = m.errors;
    j["duplicates_dropped"] = m.duplicatesDropped;
    j["watermark"] = optionalTime(m.watermark);
    j["max_event_time"] = optionalTime(m.maxEventTime);
    j["state_entries"] = m.stateEntries;
    j["state_bytes"] = m.stateBytes;
    if (m.stateSpilled > 0) // extension: settings.state "rocksdb" only
        j["state_spilled"] = m.stateSpilled;
    j["open_windows"] = m.openWindows;
    // Extension: windows with allowed lateness only (the same figure as accounted's
    // late_accepted: late records that still updated a result).
    if (const std::int64_t accepted = m.fate(observe::Fate::LateAccepted); accepted > 0)
        j["late_accepted"] = accepted;
    // Extension (issue 16): every record accounted for, and whether the figures balance.
    Json fates = Json::object();
    for (std::size_t i = 0; i < observe::kFateCount; ++i)
        if (m.fates[i] != 0)
            fates[std::string(observe::fateName(static_cast<observe::Fate>(i)))] = m.fates[i];
    j["accounted"] = std::move(fates);
    for (const bool late : {true, false}) {
        Json causes = Json::object();
        for (const auto &c : late ? m.lateCauses : m.errorCauses)
            causes[c.first] = c.second;
        j[late ? "late_by_reason" : "errors_by_reason"] = std::move(causes);
    }
    j["held"] = m.held;
    const NodeKind *kind = findNodeKind(m.kind);
    const observe::Balance b = observe::balanceOf(m, kind && kind->isSource);
    j["balance"] = Json{{"holds", b.holds}, {"text", b.text}};
    return j.dump();
}

std::string runMetricsLine(const observe::MetricsSnapshot &s)
{
    Json j = Json::object();
    j["node"] = "*";
    j["t_ms"] = s.takenAtMs;
    j["processing_ms"] = s.takenAtMs - s.startedAtMs;
    j["events_per_s"] = s.eventsPerSecond;
    j["records_read"] = s.recordsRead;
    if (s.lastCheckpoint) {
        const auto &c = *s.lastCheckpoint;
        j["checkpoint"] = Json{{"id", c.id},
                               {"status", c.status},
                               {"duration_ms", c.durationMs},
                               {"bytes", c.bytes},
                               {"time", c.timeMs}};
        if (!c.failureCause.empty())
            j["checkpoint"]["failure_cause"] = c.failureCause;
    } else {
        j["checkpoint"] = nullptr;
    }
    return j.dump();
}

} // namespace tideline
