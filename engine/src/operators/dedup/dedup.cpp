// dedup: the first record of a key passes; repeats are dropped (counted) while the key's state
// lives. State for a key first seen at t0 is removed once W >= t0 + within_ms, in time order
// through a min-heap of expiry times (no scans). Records behind the watermark go to `late`.

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"

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
        auto [idx, inserted] = m_keys.tryEmplace(m_buf, record.time);
        if (!inserted) {
            ++m_duplicates;
            return;
        }
        m_keyBytes += m_buf.size();
        m_expiry.push_back({satAdd(record.time, m_within), idx});
        std::push_heap(m_expiry.begin(), m_expiry.end(), Later{});
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
        // Written in expiry order so that a restore rebuilds the same heap.
        std::vector<Entry> order(m_expiry.begin(), m_expiry.end());
        std::sort(order.begin(), order.end(), [this](const Entry &a, const Entry &b) {
            return a.first != b.first ? a.first < b.first
                                      : m_keys.entry(a.second).key < m_keys.entry(b.second).key;
        });
        for (const auto &[at, idx] : order) {
            w.str(m_keys.entry(idx).key);
            w.i64(m_keys.entry(idx).value);
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
            auto [idx, ok] = m_keys.tryEmplace(key, t0);
            if (!ok)
                continue;
            m_keyBytes += key.size();
            m_expiry.push_back({satAdd(t0, m_within), idx});
            std::push_heap(m_expiry.begin(), m_expiry.end(), Later{});
        }
        expire();
    }

    std::string stateFingerprint() const override
    {
        return "dedup/1 key=" + keys::joinList(m_enc.paths());
    }

private:
    using Entry = std::pair<Timestamp, std::uint32_t>; // (expiry, entry index in m_keys)
    struct Later
    {
        bool operator()(const Entry &a, const Entry &b) const { return a.first > b.first; }
    };

    void expire()
    {
        while (!m_expiry.empty() && m_expiry.front().first <= m_w) {
            std::pop_heap(m_expiry.begin(), m_expiry.end(), Later{});
            const std::uint32_t idx = m_expiry.back().second;
            m_expiry.pop_back();
            m_keyBytes -= m_keys.entry(idx).key.size();
            m_keys.erase(idx);
        }
    }

    keys::KeyEncoder m_enc;
    std::int64_t m_within;
    Timestamp m_w = kMinTime;
    std::string m_buf;
    keys::KeyTable<Timestamp> m_keys{1 << 16};
    std::vector<Entry> m_expiry; ///< min-heap on expiry time
    std::size_t m_keyBytes = 0;
    std::int64_t m_duplicates = 0;
};

} // namespace

std::unique_ptr<Operator> makeDedup(const OperatorContext &ctx)
{
    auto key = keys::stringListParam(ctx.spec.params, "key");
    std::int64_t within = keys::intParam(ctx.spec.params, "within_ms", 0);
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
