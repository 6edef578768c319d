// watermark: assigns event time and generates the watermark (bounded out-of-orderness).
//
// Per source partition p: maxTs_p = largest event time seen, W_p = maxTs_p - d - 1 (Flink's
// BoundedOutOfOrderness; the -1 makes a record exactly d behind the max still on time).
// The node's W = min over partitions that are not idle. A partition that produced nothing
// for idle_timeout_ms of processing time is idle until its next record, unless its source knows
// it has records left (a bounded Kafka read not yet at its end offsets). W never decreases.
//
// max_lead_ms (opt-in; Azure Stream Analytics' early-arrival policy): a record whose event time
// is more than that ahead of processing time goes to `errors` and touches no watermark, so one
// absurd timestamp cannot move W years ahead and make every later record late. Processing time
// rather than W is the reference because a single record cannot move it: W is -inf at the first
// record, and a lead over W would reject everything after a legitimate gap in event time (a
// replay of old data is far behind processing time, so nothing of it is rejected).

#include "operators/fusable.hpp"
#include "operators/keys/field_lookup.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/time/time_parse.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>

namespace tideline {

namespace {

class WatermarkNode final : public Operator, public fusable::PrefixWatermark
{
public:
    explicit WatermarkNode(const OperatorContext &ctx)
        : m_timeField(NodeParams(ctx).string("time_field"))
        , m_delay(NodeParams(ctx).integer("max_out_of_orderness_ms"))
        , m_idleTimeout(NodeParams(ctx).integer("idle_timeout_ms"))
        , m_maxLead(NodeParams(ctx).integer("max_lead_ms"))
        , m_parts(static_cast<std::size_t>(std::max(1, ctx.upstreamPartitions)))
        , m_clock(ctx.clock)
        , m_upstream(ctx.upstreamSource)
    {
        // `a`.b and a.b name the same field: records use the canonical form.
        std::string canonical, error;
        if (fieldpath::canonical(m_timeField, canonical, error))
            m_timeField = canonical;
        const std::string f = NodeParams(ctx).string("time_format");
        m_format = f == "epoch_s"   ? TimeFormat::EpochS
                   : f == "iso8601" ? TimeFormat::Iso8601
                                    : TimeFormat::EpochMs;
    }

    void open() override
    {
        std::int64_t now = m_clock.nowMs();
        m_lastNow = now;
        for (auto &p : m_parts)
            p.lastActivityMs = now;
    }

    bool prefixMax(Timestamp &delay) const override
    {
        delay = m_delay;
        return m_parts.size() == 1 && m_idleTimeout <= 0 && m_maxLead <= 0 && !m_restored;
    }
    // The same tests and messages as processRecord's (without max_lead_ms: prefixMax()).
    bool eventTime(const Record &rec, Timestamp &t, std::string &why) const override
    {
        int idx = rec.indexOf(m_timeField);
        if (idx < 0) {
            why = rec.hasObject(m_timeField)
                      ? "time field `" + m_timeField + "` is an object, not a time"
                      : "missing time field `" + m_timeField + "`";
            return false;
        }
        const char *reason = "";
        auto v = eventTimeOf(rec.valueAt(static_cast<std::size_t>(idx)), m_format, reason);
        if (!v) {
            why = std::string(reason) + " (`" + m_timeField + "`)";
            return false;
        }
        t = *v;
        return true;
    }
    const std::string &timeField() const override { return m_timeField; }
    void advanceTo(Timestamp maxTs, Output &out) override
    {
        Partition &p = m_parts[0];
        p.lastActivityMs = m_lastNow;
        if (maxTs > p.maxTs) {
            p.maxTs = maxTs;
            p.w = satSub(satSub(maxTs, m_delay), 1);
        }
        advance(out);
    }
    Timestamp emitted() const override { return m_w; }

    void processRecord(int, Record &&rec, Output &out) override
    {
        int idx = keys::findField(rec, m_timeField, m_timeHint);
        if (idx < 0) {
            out.emitError(rec.hasObject(m_timeField)
                              ? "time field `" + m_timeField + "` is an object, not a time"
                              : "missing time field `" + m_timeField + "`",
                          std::move(rec), m_w);
            return;
        }
        const char *why = "";
        auto t = eventTimeOf(rec.valueAt(static_cast<std::size_t>(idx)), m_format, why);
        if (!t) {
            out.emitError(std::string(why) + " (`" + m_timeField + "`)", std::move(rec), m_w);
            return;
        }
        // m_lastNow is the last tick's time; the clock is read only for a suspect record.
        if (m_maxLead > 0 && *t > satAdd(m_lastNow, m_maxLead)) {
            const std::int64_t now = m_clock.nowMs();
            if (*t > satAdd(now, m_maxLead)) {
                out.emitError(tooFarAhead(*t, now), std::move(rec), m_w);
                return;
            }
        }
        rec.time = *t;
        Partition &p = m_parts[rec.partition < m_parts.size() ? rec.partition : 0];
        p.lastActivityMs = m_lastNow;
        bool wasIdle = p.idle;
        p.idle = false;
        out.emit(0, std::move(rec));
        if (*t > p.maxTs) {
            p.maxTs = *t;
            p.w = satSub(satSub(*t, m_delay), 1);
        }
        if (wasIdle && m_allIdle) {
            m_allIdle = false;
            out.emitIdle(false);
        }
        advance(out);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w == kMaxTime) {
            m_w = kMaxTime;
            out.emitWatermark(kMaxTime);
        }
    }

    void onTick(std::int64_t now, Output &out) override
    {
        m_lastNow = now;
        if (m_idleTimeout <= 0 || m_w == kMaxTime)
            return;
        bool changed = false;
        for (std::size_t i = 0; i < m_parts.size(); ++i) {
            Partition &p = m_parts[i];
            // A partition the source knows has records left is behind, not idle.
            if (m_upstream && m_upstream->hasRecordsLeft(static_cast<int>(i))) {
                p.lastActivityMs = now;
                continue;
            }
            if (!p.idle && now - p.lastActivityMs >= m_idleTimeout) {
                p.idle = true;
                p.idleSinceMs = now;
                changed = true;
            }
        }
        if (!changed)
            return;
        bool all = std::all_of(m_parts.begin(), m_parts.end(),
                               [](const Partition &p) { return p.idle; });
        if (all && !m_allIdle) {
            m_allIdle = true;
            out.emitIdle(true);
        }
        advance(out);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.inputs.clear();
        for (std::size_t i = 0; i < m_parts.size(); ++i) {
            const Partition &p = m_parts[i];
            observe::InputWatermark iw;
            iw.name = "partition " + std::to_string(i);
            if (p.w != kMinTime)
                iw.watermark = p.w;
            iw.idle = p.idle;
            iw.idleSinceMs = p.idle ? p.idleSinceMs : 0;
            iw.lastActivityMs = p.lastActivityMs;
            m.inputs.push_back(iw);
        }
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.u64(m_parts.size());
        for (const auto &p : m_parts) {
            w.i64(p.maxTs);
            w.i64(p.w);
        }
    }
    void restoreState(StateReader &r) override
    {
        m_w = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            Timestamp maxTs = r.i64(), w = r.i64();
            if (i < m_parts.size()) {
                m_parts[i].maxTs = maxTs;
                m_parts[i].w = w;
            }
        }
        m_restored = true;
    }
    std::string stateFingerprint() const override
    {
        return "watermark/" + m_timeField + "/" + std::to_string(m_delay);
    }

private:
    struct Partition
    {
        Timestamp maxTs = kMinTime;
        Timestamp w = kMinTime;
        bool idle = false;
        std::int64_t idleSinceMs = 0;
        std::int64_t lastActivityMs = 0;
    };

    std::string tooFarAhead(Timestamp t, std::int64_t now) const
    {
        return "event time " + formatUtc(t) + " (`" + m_timeField + "`) is "
               + std::to_string(t - now) + " ms ahead of processing time " + formatUtc(now)
               + " (max_lead_ms " + std::to_string(m_maxLead) + ")";
    }

    void advance(Output &out)
    {
        if (m_restored && m_w != kMinTime) {
            // After a restore the emitted watermark is known; republish it once.
            m_restored = false;
            out.emitWatermark(m_w);
        }
        Timestamp w = kMaxTime;
        bool any = false;
        for (const auto &p : m_parts) {
            if (p.idle)
                continue;
            any = true;
            w = std::min(w, p.w);
            if (w == kMinTime)
                break;
        }
        if (!any || w <= m_w)
            return;
        m_w = w;
        out.emitWatermark(w);
    }

    std::string m_timeField;
    /// Where processRecord found the time field last (the loop thread's; eventTime(), which
    /// the workers call at once, looks it up without one).
    int m_timeHint = -1;
    TimeFormat m_format = TimeFormat::EpochMs;
    Timestamp m_delay;
    std::int64_t m_idleTimeout;
    std::int64_t m_maxLead; ///< 0 = off
    std::vector<Partition> m_parts;
    Clock &m_clock;
    const SourceOperator *m_upstream; ///< asked whether a quiet partition has records left
    Timestamp m_w = kMinTime;
    bool m_allIdle = false;
    bool m_restored = false;
    std::int64_t m_lastNow = 0;
};

} // namespace

std::unique_ptr<Operator> makeWatermark(const OperatorContext &ctx)
{
    // settings.semantics "spark" / "kafka-streams": assign event time only (mode_watermark.cpp).
    if (ctx.semantics && ctx.semantics->engine != semantics::Engine::Flink)
        return makeModeWatermark(ctx);
    return std::make_unique<WatermarkNode>(ctx);
}

void validateWatermark(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    const std::string field = p.value("time_field", std::string());
    std::string canonical, error;
    if (field.empty())
        ctx.error("time_field",
                  "must name the field that holds the event time, e.g. \"event_time\"");
    else if (!fieldpath::canonical(field, canonical, error))
        ctx.error("time_field", "'" + field + "' is not a field path: " + error);
}

} // namespace tideline
