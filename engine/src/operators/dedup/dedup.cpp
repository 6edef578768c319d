// dedup: the first record of a key passes; repeats are dropped (counted) while the key's state
// lives. State for a key first seen at t0 is removed once W >= t0 + within_ms, in time order
// through an ExpiryQueue (no scans): keys arrive nearly in time order, so expiry is a walk
// along a ring buffer that prefetches the hash slots of the next victims (the random accesses
// into a table of ~10^5..10^6 keys are what costs, not the instructions). Records behind the
// watermark go to `late`.

#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <algorithm>
#include <functional>

namespace tideline {

namespace {

class DedupOperator final : public Operator
{
public:
    DedupOperator(std::vector<std::string> key, std::int64_t withinMs)
        : m_enc(std::move(key))
        , m_within(withinMs)
    {
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        if (record.time <= m_w) {
            out.emitLate("behind_watermark", std::move(record), m_w);
            return;
        }
        m_enc.encode(record, m_buf); // a missing key field keys as null (all such records share it)
        // One probe sequence: tryEmplace inserts only when the key is new.
        const std::uint64_t h = Table::hashOf(m_buf);
        auto [idx, inserted] = m_keys.tryEmplace(m_buf, h, record.time);
        if (!inserted) {
            ++m_duplicates;
            return;
        }
        m_keyBytes += m_buf.size();
        m_expiry.push(satAdd(record.time, m_within), {idx, static_cast<std::uint32_t>(h)});
        out.emit(std::move(record));
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_w) {
            m_w = w;
            expire();
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.duplicatesDropped = m_duplicates;
        m.stateEntries = static_cast<std::int64_t>(m_keys.size());
        // Key bytes plus a hash node and a heap slot per key (approximate, as documented).
        m.stateBytes = static_cast<std::int64_t>(m_keyBytes + m_keys.size() * 64);
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.i64(m_duplicates);
        w.u64(m_keys.size());
        // Written in expiry order (ties by key bytes, so equal states give equal bytes); a
        // restore then pushes in order and the whole queue lands in the ring.
        auto order = m_expiry.sorted();
        std::sort(order.begin(), order.end(), [this](const Timer &a, const Timer &b) {
            return a.at != b.at
                       ? a.at < b.at
                       : m_keys.entry(a.payload.entry).key < m_keys.entry(b.payload.entry).key;
        });
        for (const auto &t : order) {
            w.str(m_keys.entry(t.payload.entry).key);
            w.i64(m_keys.entry(t.payload.entry).value);
        }
    }

    void restoreState(StateReader &r) override
    {
        m_keys.clear();
        m_expiry.clear();
        m_keyBytes = 0;
        m_w = r.i64();
        m_duplicates = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            std::string key = r.str();
            Timestamp t0 = r.i64();
            const std::uint64_t h = Table::hashOf(key);
            auto [idx, ok] = m_keys.tryEmplace(key, h, t0);
            if (!ok)
                continue;
            m_keyBytes += key.size();
            m_expiry.push(satAdd(t0, m_within), {idx, static_cast<std::uint32_t>(h)});
        }
        expire();
    }

    std::string stateFingerprint() const override
    {
        return "dedup/1 key=" + keys::joinList(m_enc.paths());
    }

private:
    using Table = keys::KeyTable<Timestamp>; ///< key bytes -> first time seen (t0)
    struct Victim
    {
        std::uint32_t entry = 0; ///< entry index in m_keys
        std::uint32_t hash = 0;  ///< low hash bits: where its slot is, for prefetching
    };
    using Timer = keys::ExpiryQueue<Victim>::Item;

    void expire()
    {
        // Prefetch the state of the key kAhead places further along the ring: by the time
        // the loop gets there its slot and entry are in cache.
        constexpr std::size_t kAhead = 8;
        for (std::size_t k = 0; k < kAhead; ++k)
            if (const Timer *t = m_expiry.ahead(k); t && t->at <= m_w) {
                m_keys.prefetch(t->payload.hash);
                m_keys.prefetchEntry(t->payload.entry);
            }
        while (!m_expiry.empty() && m_expiry.top().at <= m_w) {
            if (const Timer *t = m_expiry.ahead(kAhead); t && t->at <= m_w) {
                m_keys.prefetch(t->payload.hash);
                m_keys.prefetchEntry(t->payload.entry);
            }
            const std::uint32_t idx = m_expiry.top().payload.entry;
            m_expiry.pop();
            m_keyBytes -= m_keys.entry(idx).key.size();
            m_keys.erase(idx);
        }
    }

    keys::KeyEncoder m_enc;
    std::int64_t m_within;
    Timestamp m_w = kMinTime;
    std::string m_buf;
    Table m_keys{1 << 16};
    keys::ExpiryQueue<Victim> m_expiry;
    std::size_t m_keyBytes = 0;
    std::int64_t m_duplicates = 0;
};

} // namespace

std::unique_ptr<Operator> makeDedup(const OperatorContext &ctx)
{
    const NodeParams p(ctx);
    auto key = p.fieldList("key");
    const std::int64_t within = p.integer("within_ms");
    if (key.empty())
        throw ConfigError("params.key: list at least one field");
    if (within <= 0)
        throw ConfigError("params.within_ms: must be > 0");
    return std::make_unique<DedupOperator>(std::move(key), within);
}

void validateDedup(const NodeValidationContext &ctx)
{
    const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)];
    if (auto it = n.params.find("key"); it != n.params.end() && it->is_array() && it->empty())
        ctx.error("key", "list at least one field that identifies a record, e.g. [\"event_id\"]");
}

} // namespace tideline
