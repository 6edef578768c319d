// Tumbling and sliding windows: windows aligned to the epoch, shared by every key.
//
// Because every key has the same window boundaries, state is one pane per window (ordered by
// start, which for a fixed size is also the order of ends) and inside it an open-addressing
// table from encoded key to accumulators. The common path of a record is: floor its time to the
// window start, reuse the last pane when the window is the same, hash the key bytes, probe, fold
// the record in. Nothing is allocated unless the key is new in that window. A watermark advance
// looks at one pane (the first not yet fired) when nothing fires. Panes that are dropped give
// their table memory back to a small pool, so a steady stream re-uses the same buffers.
//
// Sliding windows put a record into each of its size/slide windows (no pane sharing): simple
// and exact for every aggregate; the cost grows with size/slide, which validation bounds.

#include "operators/window/window_base.hpp"

#include <cstddef>
#include <cstring>
#include <map>
#include <numeric>
#include <type_traits>

namespace tideline::window {

namespace {

Timestamp floorMod(Timestamp t, Timestamp s)
{
    const Timestamp r = t % s;
    return r < 0 ? r + s : r;
}

/// Keys of one window and their accumulators.
///
/// Layout for speed: each entry is one row of AggState-sized cells, the first cell holding the
/// entry's header (hash, key length, and the key itself when it fits in 16 bytes, else its
/// offset in an arena), the following cells the aggregates. A lookup therefore touches the slot
/// array and one row: no separate key arena or accumulator array for the usual short keys.
class PaneTable
{
public:
    void reset(std::size_t expected, std::size_t nAggs)
    {
        m_stride = 1 + nAggs;
        m_size = 0;
        m_rows.clear();
        m_keys.clear();
        // Load factor at most 3/4 (linear probing with a tag per slot stays short at that).
        std::size_t cap = 16;
        while (cap * 3 < (expected + 1) * 4)
            cap <<= 1;
        if (m_slots.size() != cap)
            m_slots.assign(cap, 0);
        else
            std::fill(m_slots.begin(), m_slots.end(), 0);
        m_rows.reserve(expected * m_stride);
    }

    std::uint32_t findOrInsert(std::string_view key, std::uint64_t hash, bool &created)
    {
        // The probe key, zero-padded, so that short keys compare as two words.
        std::uint64_t probe[2] = {0, 0};
        const bool small = key.size() <= sizeof probe;
        if (small && !key.empty())
            std::memcpy(probe, key.data(), key.size());
        std::size_t mask = m_slots.size() - 1;
        const std::uint64_t tag = hash >> 32;
        std::size_t pos = hash & mask;
        for (;;) {
            const std::uint64_t s = m_slots[pos];
            if (s == 0)
                break;
            if ((s >> 32) == tag) {
                const auto idx = static_cast<std::uint32_t>(s) - 1;
                const Header h = header(idx);
                if (h.len == key.size()
                    && (small ? (h.inl[0] == probe[0] && h.inl[1] == probe[1])
                              : std::memcmp(m_keys.data() + h.inl[0], key.data(), h.len) == 0)) {
                    created = false;
                    return idx;
                }
            }
            pos = (pos + 1) & mask;
        }
        if ((m_size + 1) * 4 > m_slots.size() * 3) {
            grow();
            mask = m_slots.size() - 1;
            pos = hash & mask;
            while (m_slots[pos] != 0)
                pos = (pos + 1) & mask;
        }
        const auto idx = static_cast<std::uint32_t>(m_size);
        Header h;
        h.hash = hash;
        h.len = static_cast<std::uint32_t>(key.size());
        if (small) {
            h.inl[0] = probe[0];
            h.inl[1] = probe[1];
        } else {
            h.inl[0] = m_keys.size();
            h.inl[1] = 0;
            m_keys.append(key);
        }
        m_rows.resize(m_rows.size() + m_stride);
        std::memcpy(static_cast<void *>(&m_rows[idx * m_stride]), &h, sizeof h);
        ++m_size;
        m_slots[pos] = (tag << 32) | (idx + 1);
        created = true;
        return idx;
    }

    std::size_t size() const { return m_size; }
    std::string_view key(std::uint32_t i) const
    {
        // Short keys live in the header cell itself (stable until the table changes); the
        // cell's bytes are read as chars, which may alias anything.
        const char *cell = reinterpret_cast<const char *>(&m_rows[i * m_stride]);
        const Header h = header(i);
        if (h.len <= 16)
            return {cell + offsetof(Header, inl), h.len};
        return {m_keys.data() + h.inl[0], h.len};
    }
    AggState *acc(std::uint32_t i) { return m_rows.data() + std::size_t(i) * m_stride + 1; }
    const AggState *acc(std::uint32_t i) const
    {
        return m_rows.data() + std::size_t(i) * m_stride + 1;
    }
    std::size_t longKeyBytes() const { return m_keys.size(); }
    std::size_t bytes() const
    {
        return m_slots.capacity() * sizeof(std::uint64_t) + m_rows.capacity() * sizeof(AggState)
               + m_keys.capacity();
    }

private:
    struct Header
    {
        std::uint64_t hash;
        std::uint32_t len;
        std::uint32_t pad;
        std::uint64_t inl[2]; ///< the key when len <= 16 (zero-padded), else {arena offset, 0}
    };
    static_assert(sizeof(Header) == sizeof(AggState) && std::is_trivially_copyable_v<AggState>,
                  "a row's first cell holds the header");

    Header header(std::uint32_t i) const
    {
        Header h;
        std::memcpy(&h, &m_rows[i * m_stride], sizeof h);
        return h;
    }

    void grow()
    {
        m_slots.assign(m_slots.size() * 2, 0);
        const std::size_t mask = m_slots.size() - 1;
        for (std::uint32_t i = 0; i < m_size; ++i) {
            const std::uint64_t hash = header(i).hash;
            std::size_t pos = hash & mask;
            while (m_slots[pos] != 0)
                pos = (pos + 1) & mask;
            m_slots[pos] = ((hash >> 32) << 32) | (i + 1);
        }
    }

    // 0 = empty, else (hash >> 32) << 32 | (entry index + 1): the tag skips most key compares.
    std::vector<std::uint64_t> m_slots;
    std::vector<AggState> m_rows; ///< m_stride cells per entry: header, then the aggregates
    std::string m_keys;           ///< keys longer than 16 bytes
    std::size_t m_stride = 1;
    std::size_t m_size = 0;
};

struct Pane
{
    Timestamp start = 0;
    Timestamp end = 0;
    bool fired = false;
    PaneTable table;
};

class AlignedWindow final : public WindowOperatorBase
{
public:
    AlignedWindow(const OperatorContext &ctx, WindowConfig cfg)
        : WindowOperatorBase(ctx, std::move(cfg))
    {
        m_cursor = m_panes.end();
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const Timestamp t = rec.time;
        if (m_cfg.type == WindowType::Tumbling) {
            const Timestamp start = satSub(t, floorMod(t, m_cfg.size));
            if (cleanupTime(satAdd(start, m_cfg.size)) <= m_wm) {
                out.emitLate("window_closed", std::move(rec), m_wm);
                return;
            }
            m_codec.encode(rec, m_keyBuf);
            addTo(pane(start), hashBytes(m_keyBuf), rec, out);
            return;
        }
        // Sliding: the windows [k*p, k*p + s) that contain t, from the earliest start.
        const Timestamp lastStart = satSub(t, floorMod(t, m_cfg.slide));
        const Timestamp span = (lastStart - t) + m_cfg.size - 1; // >= 0 since slide <= size
        Timestamp count = span / m_cfg.slide + 1;
        Timestamp start = satSub(lastStart, (count - 1) * m_cfg.slide);
        // Windows already past allowed lateness are skipped; the record is too late only when
        // it has no window left (the contract's "all of whose windows").
        while (count > 0 && cleanupTime(satAdd(start, m_cfg.size)) <= m_wm) {
            start = satAdd(start, m_cfg.slide);
            --count;
        }
        if (count == 0) {
            out.emitLate("window_closed", std::move(rec), m_wm);
            return;
        }
        m_codec.encode(rec, m_keyBuf);
        const std::uint64_t hash = hashBytes(m_keyBuf);
        for (; count > 0; --count) {
            addTo(pane(start), hash, rec, out);
            if (count > 1)
                start = satAdd(start, m_cfg.slide);
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_wm)
            m_wm = w;
        // Fire every pane whose end - 1 the watermark reached, in order of end.
        while (m_cursor != m_panes.end() && satSub(m_cursor->second.end, 1) <= m_wm) {
            firePane(m_cursor->second, out);
            m_cursor->second.fired = true;
            ++m_cursor;
        }
        // Drop fired panes past their allowed lateness (ordered by end, so from the front).
        while (!m_panes.empty()) {
            auto it = m_panes.begin();
            if (!it->second.fired || cleanupTime(it->second.end) > m_wm)
                break;
            m_entries -= static_cast<std::int64_t>(it->second.table.size());
            if (m_pool.size() < 4)
                m_pool.push_back(std::move(it->second.table));
            m_panes.erase(it);
            m_lastPane = nullptr;
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_entries;
        m.openWindows = static_cast<std::int64_t>(m_panes.size());
        std::size_t bytes = 0;
        for (const auto &[start, p] : m_panes)
            bytes += sizeof(Pane) + 48 + p.table.bytes();
        m.stateBytes = static_cast<std::int64_t>(bytes);
        m.errors += m_ignoredValues;
    }

    void snapshotState(StateWriter &w) const override
    {
        writeHeader(w);
        std::size_t bound = 16;
        for (const auto &[start, p] : m_panes)
            bound += 32 + p.table.size() * entryBound(16) + p.table.longKeyBytes();
        w.reserve(bound);
        w.u64(m_panes.size());
        for (const auto &[start, p] : m_panes) {
            w.i64(p.start);
            w.i64(p.end);
            w.u8(p.fired ? 1 : 0);
            w.u64(p.table.size());
            EntryBatch batch(*this, w);
            for (std::uint32_t i = 0; i < p.table.size(); ++i)
                batch.entry(p.table.key(i), p.table.acc(i));
        }
    }

    void restoreState(StateReader &r) override
    {
        m_panes.clear();
        m_cursor = m_panes.end();
        m_lastPane = nullptr;
        m_entries = 0;
        if (!readHeader(r))
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state does not match this window "
                                "(type, size, key or aggregates changed) or is corrupt");
        const std::uint64_t panes = r.u64();
        std::string scratch;
        for (std::uint64_t n = 0; n < panes && !r.failed(); ++n) {
            const Timestamp start = r.i64();
            const Timestamp end = r.i64();
            const bool fired = r.u8() != 0;
            const std::uint64_t entries = r.u64();
            auto it = m_panes.emplace(start, Pane{}).first;
            Pane &p = it->second;
            p.start = start;
            p.end = end;
            p.fired = fired;
            // A corrupt count must not reserve terabytes: the reader fails at the real end.
            p.table.reset(std::min<std::uint64_t>(entries, 1u << 24), m_aggs.size());
            for (std::uint64_t e = 0; e < entries && !r.failed(); ++e) {
                const std::string_view key = readKey(r, scratch);
                bool created = false;
                const std::uint32_t idx = p.table.findOrInsert(key, hashBytes(key), created);
                readAccs(r, p.table.acc(idx));
                ++m_entries;
            }
        }
        if (r.failed())
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state is cut short");
        m_cursor = m_panes.begin();
        while (m_cursor != m_panes.end() && m_cursor->second.fired)
            ++m_cursor;
    }

private:
    Pane &pane(Timestamp start)
    {
        if (m_lastPane != nullptr && m_lastStart == start)
            return *m_lastPane;
        auto it = m_panes.lower_bound(start);
        if (it == m_panes.end() || it->first != start) {
            it = m_panes.emplace_hint(it, start, Pane{});
            Pane &p = it->second;
            p.start = start;
            p.end = satAdd(start, m_cfg.size);
            if (!m_pool.empty()) {
                p.table = std::move(m_pool.back());
                m_pool.pop_back();
            }
            p.table.reset(m_expected, m_aggs.size());
            // A window the watermark already passed (only reachable with allowed lateness)
            // counts as fired: each key's first record fires it at once.
            p.fired = satSub(p.end, 1) <= m_wm;
            if (!p.fired && (m_cursor == m_panes.end() || start < m_cursor->first))
                m_cursor = it;
        }
        m_lastPane = &it->second;
        m_lastStart = start;
        return it->second;
    }

    void addTo(Pane &p, std::uint64_t hash, const Record &rec, Output &out)
    {
        bool created = false;
        const std::uint32_t idx = p.table.findOrInsert(m_keyBuf, hash, created);
        m_entries += created ? 1 : 0;
        AggState *acc = p.table.acc(idx);
        m_ignoredValues += m_aggs.add(rec, acc);
        if (p.fired)
            emitResult(p.start, p.end, p.table.key(idx), acc,
                       created ? EmitKind::Final : EmitKind::Update, out);
    }

    void firePane(Pane &p, Output &out)
    {
        const auto n = static_cast<std::uint32_t>(p.table.size());
        m_expected = std::max<std::size_t>(16, n);
        m_order.resize(n);
        std::iota(m_order.begin(), m_order.end(), 0u);
        m_sortKeys.resize(n);
        for (std::uint32_t i = 0; i < n; ++i)
            m_sortKeys[i] = p.table.key(i);
        sortByKey(m_order, m_sortKeys);
        for (std::uint32_t i : m_order)
            emitResult(p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Final, out);
    }

    std::map<Timestamp, Pane> m_panes;            ///< by window start (= by end: one size)
    std::map<Timestamp, Pane>::iterator m_cursor; ///< first pane not fired yet
    std::vector<PaneTable> m_pool;
    Pane *m_lastPane = nullptr;
    Timestamp m_lastStart = 0;
    std::size_t m_expected = 16; ///< keys per window seen last: initial table size
    std::int64_t m_entries = 0;
    std::vector<std::uint32_t> m_order;
    std::vector<std::string_view> m_sortKeys;
};

} // namespace

std::unique_ptr<Operator> makeAlignedWindow(const OperatorContext &ctx, WindowConfig cfg)
{
    return std::make_unique<AlignedWindow>(ctx, std::move(cfg));
}

} // namespace tideline::window
