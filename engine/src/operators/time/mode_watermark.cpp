// The watermark node under settings.semantics "spark" and "kafka-streams": it assigns event
// time exactly as the Flink-mode node does (same field, formats and error messages) but
// generates no watermark of its own. Spark's watermark is global (semantics/spark_clock.hpp):
// this node is one of its inputs, and the runtime sends the global watermark out of it at
// each batch end. Kafka Streams has none (its operators keep stream time). Both still send
// +inf on when the input ends, so every mode flushes at the end of a bounded input.
// Checkpoints: under Spark each of these nodes writes the whole global clock (the open batch,
// every input's largest time, the global watermark), so a restore continues the micro-batches
// where the savepoint cut them; restoring the same clock from several nodes is idempotent.
// Kafka Streams' stream time lives in its windows and dedups.
// A separate operator (not a branch in watermark_node.cpp) so that Flink mode's per-record
// path is the code it was.

#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "operators/time/time_parse.hpp"
#include "semantics/semantics.hpp"
#include "semantics/spark_clock.hpp"

#include <algorithm>

namespace tideline {

namespace {

class ModeWatermarkNode final : public Operator
{
public:
    explicit ModeWatermarkNode(const OperatorContext &ctx)
        : m_timeField(NodeParams(ctx).string("time_field"))
        , m_delay(NodeParams(ctx).integer("max_out_of_orderness_ms"))
        , m_maxLead(NodeParams(ctx).integer("max_lead_ms"))
        , m_clock(ctx.clock)
        , m_spark(ctx.semantics->sparkClock)
        , m_nodeId(ctx.spec.id)
    {
        std::string canonical, error;
        if (fieldpath::canonical(m_timeField, canonical, error))
            m_timeField = canonical;
        const std::string f = NodeParams(ctx).string("time_format");
        m_format = f == "epoch_s"   ? TimeFormat::EpochS
                   : f == "iso8601" ? TimeFormat::Iso8601
                                    : TimeFormat::EpochMs;
        if (m_spark)
            m_input = m_spark->addInput(m_delay);
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const int idx = rec.indexOf(m_timeField);
        if (idx < 0) {
            out.emitError(rec.hasObject(m_timeField)
                              ? "time field `" + m_timeField + "` is an object, not a time"
                              : "missing time field `" + m_timeField + "`",
                          std::move(rec), watermark());
            return;
        }
        const char *why = "";
        auto t = eventTimeOf(rec.valueAt(static_cast<std::size_t>(idx)), m_format, why);
        if (!t) {
            out.emitError(std::string(why) + " (`" + m_timeField + "`)", std::move(rec),
                          watermark());
            return;
        }
        if (m_maxLead > 0) {
            const std::int64_t now = m_clock.nowMs();
            if (*t > satAdd(now, m_maxLead)) {
                out.emitError("event time " + formatUtc(*t) + " (`" + m_timeField + "`) is "
                                  + std::to_string(*t - now) + " ms ahead of processing time "
                                  + formatUtc(now) + " (max_lead_ms " + std::to_string(m_maxLead)
                                  + ")",
                              std::move(rec), watermark());
                return;
            }
        }
        rec.time = *t;
        m_maxTs = std::max(m_maxTs, *t);
        if (m_spark)
            m_spark->observe(m_input, *t);
        out.emit(0, std::move(rec));
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w == kMaxTime) {
            m_ended = true;
            out.emitWatermark(kMaxTime);
        }
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.inputs.clear();
        observe::InputWatermark iw;
        iw.name = m_spark ? "global (Spark)" : "none (Kafka Streams: stream time)";
        if (m_spark)
            iw.watermark = m_ended ? kMaxTime : m_spark->watermark();
        m.inputs.push_back(iw);
    }

    std::string stateFingerprint() const override
    {
        return std::string("mode-watermark/") + (m_spark ? "spark/" : "kafka-streams/")
               + m_timeField + "/" + std::to_string(m_delay);
    }

    void snapshotState(StateWriter &w) const override
    {
        w.u8(m_spark ? 1 : 0);
        if (m_spark)
            m_spark->save(w);
    }

    void restoreState(StateReader &r) override
    {
        const bool spark = r.u8() != 0;
        if (!m_spark)
            return;
        if (!spark || !m_spark->restore(r))
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed Spark clock does not "
                                "match this pipeline (it had another number of watermark nodes, "
                                "or is cut short); restore with the same watermark nodes or "
                                "start over with --reset-state "
                              + m_nodeId);
    }

private:
    /// What an errors wrapper carries: Spark's global watermark, nothing under Kafka Streams.
    Timestamp watermark() const { return m_spark ? m_spark->watermark() : kMinTime; }

    std::string m_timeField;
    TimeFormat m_format = TimeFormat::EpochMs;
    Timestamp m_delay;
    std::int64_t m_maxLead;
    Clock &m_clock;
    semantics::SparkClock *m_spark;
    std::string m_nodeId;
    int m_input = 0;
    Timestamp m_maxTs = kMinTime;
    bool m_ended = false;
};

} // namespace

std::unique_ptr<Operator> makeModeWatermark(const OperatorContext &ctx)
{
    return std::make_unique<ModeWatermarkNode>(ctx);
}

} // namespace tideline
