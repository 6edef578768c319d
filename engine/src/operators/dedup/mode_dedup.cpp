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
//
// State: per task (Spark: one) the toolkit's keys::KeyTable of key -> first time and a
// keys::ExpiryQueue of the keys' expiry times, as the Flink-mode dedup keeps them. A checkpoint
// writes the watermark, the duplicates counted and per task its stream time and its keys in
// (expiry, key bytes) order: canonical, and a restore pushes them back in expiry order.

#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>
#include <map>

namespace tideline {

namespace {

class ModeDedup final : public Operator
{
public:
    ModeDedup(std::vector<std::string> key, std::int64_t horizon, bool spark, std::string id)
        : m_enc(std::move(key))
        , m_horizon(horizon)
        , m_spark(spark)
        , m_nodeId(std::move(id))
    {
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        if (m_spark && record.time <= m_w) {
            out.emitLate("Spark drops this row silently (at or below the watermark)",
                         std::move(record), m_w);
            return;
        }
        Task &tk = task(m_spark ? 0 : record.partition);
        if (!m_spark) {
            tk.streamTime = std::max(tk.streamTime, record.time);
            expire(tk, tk.streamTime);
        }
        (void)m_enc.encode(record, m_buf); // a missing key field keys as null
        const auto [e, inserted] = tk.keys.tryEmplace(m_buf, record.time);
        if (!inserted) {
            ++m_duplicates;
            out.account(observe::Fate::Duplicate);
            return;
        }
        tk.expiry.push(satAdd(record.time, m_horizon), e);
        out.emit(std::move(record));
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_w) {
            m_w = w;
            if (m_spark)
                expire(task(0), m_w);
            if (w == kMaxTime)
                for (auto &[part, tk] : m_tasks) {
                    tk.keys.clear();
                    tk.expiry.clear();
                }
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.duplicatesDropped = m_duplicates;
        std::int64_t n = 0;
        for (const auto &[p, tk] : m_tasks)
            n += static_cast<std::int64_t>(tk.keys.size());
        m.stateEntries = n;
        m.stateBytes = n * 64;
    }

    std::string stateFingerprint() const override
    {
        return std::string("mode-dedup/2 ") + (m_spark ? "spark" : "kafka-streams")
               + " key=" + keys::joinList(m_enc.paths()) + " horizon=" + std::to_string(m_horizon);
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.i64(m_duplicates);
        w.u64(m_tasks.size());
        for (const auto &entry : m_tasks) {
            // Not a structured binding: Debian's clang 14 (the fuzz preset) cannot capture
            // one in the lambdas below.
            const Task &tk = entry.second;
            w.u64(entry.first);
            w.i64(tk.streamTime);
            std::vector<std::uint32_t> order;
            order.reserve(tk.keys.size());
            tk.keys.forEach([&](std::uint32_t e, const auto &) { order.push_back(e); });
            std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                const auto &ea = tk.keys.entry(a), &eb = tk.keys.entry(b);
                return ea.value != eb.value ? ea.value < eb.value : ea.key < eb.key;
            });
            w.u64(order.size());
            for (std::uint32_t e : order) {
                w.str(tk.keys.entry(e).key);
                w.i64(tk.keys.entry(e).value);
            }
        }
    }

    void restoreState(StateReader &r) override
    {
        m_tasks.clear();
        m_last = nullptr;
        m_w = r.i64();
        m_duplicates = r.i64();
        const std::uint64_t tasks = r.u64();
        for (std::uint64_t n = 0; n < tasks && !r.failed(); ++n) {
            Task &tk = m_tasks[static_cast<std::uint32_t>(r.u64())];
            tk.streamTime = r.i64();
            const std::uint64_t keys = r.u64();
            for (std::uint64_t k = 0; k < keys && !r.failed(); ++k) {
                const std::string key = r.str();
                const Timestamp t0 = r.i64();
                const auto [e, inserted] = tk.keys.tryEmplace(key, t0);
                if (inserted)
                    tk.expiry.push(satAdd(t0, m_horizon), e);
            }
        }
        if (r.failed())
            throw ConfigError("node `" + m_nodeId + "`: the checkpointed dedup state is cut short");
    }

private:
    struct Task
    {
        Timestamp streamTime = kMinTime;         ///< Kafka Streams: the largest record time seen
        keys::KeyTable<Timestamp> keys;          ///< key -> the time of its first record
        keys::ExpiryQueue<std::uint32_t> expiry; ///< key entries, by t0 + horizon
    };

    Task &task(std::uint32_t part)
    {
        if (m_last == nullptr || m_lastPart != part) {
            m_last = &m_tasks[part]; // std::map: the reference stays valid
            m_lastPart = part;
        }
        return *m_last;
    }

    /// Spark: W >= t0 + delay removes the key. Kafka Streams: stream time >= t0 + within_ms.
    /// Each key has one timer (pushed when it is inserted), so none is stale.
    void expire(Task &tk, Timestamp now)
    {
        while (!tk.expiry.empty() && tk.expiry.top().at <= now) {
            tk.keys.erase(tk.expiry.top().payload);
            tk.expiry.pop();
        }
    }

    keys::KeyEncoder m_enc;
    std::int64_t m_horizon;
    bool m_spark;
    std::string m_nodeId;
    std::string m_buf;
    Timestamp m_w = 0; ///< Spark's global watermark starts at 0
    std::map<std::uint32_t, Task> m_tasks;
    Task *m_last = nullptr;
    std::uint32_t m_lastPart = 0;
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
    return std::make_unique<ModeDedup>(std::move(key), horizon, spark, ctx.spec.id);
}

} // namespace tideline
