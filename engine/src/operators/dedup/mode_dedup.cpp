// dedup under settings.semantics "spark" and "kafka-streams".
//
// Spark: dropDuplicatesWithinWatermark (StreamingDeduplicateWithinWatermarkExec). A record at
// or below the global watermark is dropped (silently in Spark; here to `late`, with a reason
// that says so). The first record of a key passes and keeps the key until the watermark
// reaches its time plus the watermark's delay (W >= t0 + delay); within_ms is not used (Spark
// has no such parameter; validation says so).
//
// Kafka Streams has no built-in dedup (validation warns). This node runs what an application
// writes for it with a window store: per task (source partition) stream time is the largest
// timestamp seen; the first record of a key passes and keeps the key while stream time
// < t0 + within_ms; nothing is late.

#include "operators/keys/key_encoder.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "semantics/semantics.hpp"

#include <map>
#include <unordered_map>

namespace tideline {

namespace {

class ModeDedup final : public Operator
{
public:
    ModeDedup(std::vector<std::string> key, std::int64_t horizon, bool spark)
        : m_enc(std::move(key))
        , m_horizon(horizon)
        , m_spark(spark)
    {
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        const std::uint32_t part = m_spark ? 0 : record.partition;
        if (m_spark && record.time <= m_w) {
            out.emitLate("Spark drops this row silently (at or below the watermark)",
                         std::move(record), m_w);
            return;
        }
        if (!m_spark) {
            Timestamp &st = m_streamTime.try_emplace(part, kMinTime).first->second;
            st = std::max(st, record.time);
            expire(part, st);
        }
        (void)m_enc.encode(record, m_buf); // a missing key field keys as null
        auto &keys = m_keys[part];
        if (!keys.try_emplace(m_buf, record.time).second) {
            ++m_duplicates;
            out.account(observe::Fate::Duplicate);
            return;
        }
        m_expiry[part].emplace(satAdd(record.time, m_horizon), m_buf);
        out.emit(std::move(record));
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_w) {
            m_w = w;
            if (m_spark)
                expire(0, m_w);
            if (w == kMaxTime) {
                m_keys.clear();
                m_expiry.clear();
            }
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.duplicatesDropped = m_duplicates;
        std::int64_t n = 0;
        for (const auto &[p, k] : m_keys)
            n += static_cast<std::int64_t>(k.size());
        m.stateEntries = n;
        m.stateBytes = n * 64;
    }

    std::string stateFingerprint() const override { return "mode-dedup/1"; }

private:
    /// Spark: W >= t0 + delay removes the key. Kafka Streams: stream time >= t0 + within_ms.
    void expire(std::uint32_t part, Timestamp now)
    {
        auto q = m_expiry.find(part);
        if (q == m_expiry.end())
            return;
        auto &keys = m_keys[part];
        while (!q->second.empty() && q->second.begin()->first <= now) {
            keys.erase(q->second.begin()->second);
            q->second.erase(q->second.begin());
        }
    }

    keys::KeyEncoder m_enc;
    std::int64_t m_horizon;
    bool m_spark;
    std::string m_buf;
    Timestamp m_w = 0; ///< Spark's global watermark starts at 0
    std::map<std::uint32_t, std::unordered_map<std::string, Timestamp>> m_keys;
    std::map<std::uint32_t, std::multimap<Timestamp, std::string>> m_expiry;
    std::map<std::uint32_t, Timestamp> m_streamTime;
    std::int64_t m_duplicates = 0;
};

} // namespace

std::unique_ptr<Operator> makeModeDedup(const OperatorContext &ctx)
{
    const NodeParams p(ctx);
    auto key = p.fieldList("key");
    if (key.empty())
        throw ConfigError("params.key: list at least one field");
    const bool spark = ctx.semantics->engine == semantics::Engine::Spark;
    const std::int64_t horizon
        = spark ? ctx.semantics->delayOf(ctx.spec.id) : p.integer("within_ms");
    return std::make_unique<ModeDedup>(std::move(key), horizon, spark);
}

} // namespace tideline
