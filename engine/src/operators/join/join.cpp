// join: interval join of `left` and `right` (pipeline-format.md, "Dedup and join").
//
// l and r join when their keys are equal and l.t + lower <= r.t <= l.t + upper; the pair is
// emitted when the later of the two arrives, as {"left": {...}, "right": {...}} with event time
// max(l.t, r.t). The join's W is min(W_left, W_right) (combined by the runtime). A left record
// is evicted once W >= l.t + upper (left_outer: emitted with "right": null if it never matched),
// a right record once W >= r.t - lower. Eviction pops per-side min-heaps of eviction times, so
// it never scans the state. Records with t <= W go to `late`.
//
// Output watermark: inner joins forward W. A left_outer join emits an unmatched left record at
// time l.t once W >= l.t + upper, so it holds its output watermark back by max(upper, 0)
// (Flink's interval join does the same) to keep those records on time downstream.
//
// A key with a null or missing field never matches (SQL): such a right record is dropped; such
// a left record is dropped by inner joins and emitted at once unmatched by left_outer joins.

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"

#include <algorithm>
#include <functional>

namespace tideline {

namespace {

constexpr int kLeft = 0;
constexpr int kRight = 1;
constexpr std::uint32_t kNone = 0xffffffffu;

struct Entry
{
    Record rec;
    std::uint32_t slot = kNone; ///< key slot
    std::uint32_t prev = kNone; ///< neighbours in the key's list for this side
    std::uint32_t next = kNone;
    std::uint8_t side = 0;
    bool matched = false;
    bool live = false;
};

struct KeySlot
{
    std::uint32_t key = kNone; ///< entry of the key bytes in the key table
    std::uint32_t head[2] = {kNone, kNone};
    std::uint32_t tail[2] = {kNone, kNone};
    std::uint32_t count = 0;
};

struct Eviction
{
    Timestamp at;
    std::uint64_t seq; ///< insertion order: equal times evict (and emit) in arrival order
    std::uint32_t entry;
};
struct EvictLater
{
    bool operator()(const Eviction &a, const Eviction &b) const
    {
        return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
};

class JoinOperator final : public Operator
{
public:
    JoinOperator(std::vector<std::string> leftKey,
                 std::vector<std::string> rightKey,
                 std::int64_t lower,
                 std::int64_t upper,
                 bool outer)
        : m_lower(lower)
        , m_upper(upper)
        , m_outer(outer)
    {
        m_enc[kLeft] = keys::KeyEncoder(std::move(leftKey));
        m_enc[kRight] = keys::KeyEncoder(std::move(rightKey));
    }

    void processRecord(int input, Record &&record, Output &out) override
    {
        const int side = input == kRight ? kRight : kLeft;
        if (record.time <= m_w) {
            out.emitLate("behind_watermark", std::move(record), m_w);
            return;
        }
        if (!m_enc[side].encode(record, m_buf)) {
            if (side == kLeft && m_outer)
                emitUnmatched(std::move(record), out);
            return;
        }
        const Timestamp t = record.time;
        const std::uint32_t found = m_keys.find(m_buf);
        bool matched = false;
        if (found != kNone) {
            const KeySlot &ks = m_slots[m_keys.entry(found).value];
            const int other = 1 - side;
            for (std::uint32_t e = ks.head[other]; e != kNone; e = m_entries[e].next) {
                Entry &o = m_entries[e];
                const Record &l = side == kLeft ? record : o.rec;
                const Record &r = side == kLeft ? o.rec : record;
                if (inBounds(l.time, r.time)) {
                    emitPair(l, r, out);
                    if (side == kLeft)
                        matched = true;
                    else
                        o.matched = true;
                }
            }
        }
        // Would this record be evicted right away (its bound is already behind W)? Then it can
        // match nothing later: finish it now instead of storing it.
        const Timestamp evictAt = evictionTime(side, t);
        if (evictAt <= m_w) {
            if (side == kLeft && m_outer && !matched)
                emitUnmatched(std::move(record), out);
            return;
        }
        std::uint32_t slot;
        if (found != kNone) {
            slot = m_keys.entry(found).value;
        } else {
            slot = allocSlot();
            m_slots[slot].key = m_keys.tryEmplace(m_buf, slot).first;
        }
        insert(side, slot, std::move(record), matched, evictAt);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_w) {
            m_w = w;
            evict(out);
        }
        out.emitWatermark(outputWatermark(w));
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = static_cast<std::int64_t>(m_live);
        m.stateBytes = static_cast<std::int64_t>(m_bytes + m_keys.size() * 64);
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.u64(m_live);
        // Per side in eviction order, so a restore evicts (and emits) in the same order.
        for (int side : {kLeft, kRight}) {
            std::vector<Eviction> order = m_heap[side];
            std::sort(order.begin(), order.end(),
                      [](const Eviction &a, const Eviction &b) { return EvictLater{}(b, a); });
            for (const auto &ev : order) {
                const Entry &e = m_entries[ev.entry];
                w.u8(static_cast<std::uint8_t>(side));
                w.u8(e.matched ? 1 : 0);
                w.record(e.rec);
            }
        }
    }

    void restoreState(StateReader &r) override
    {
        clearState();
        m_w = r.i64();
        std::uint64_t n = r.u64();
        Record rec;
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            int side = r.u8() == kRight ? kRight : kLeft;
            bool matched = r.u8() != 0;
            r.record(rec);
            if (r.failed())
                break;
            m_enc[side].encode(rec, m_buf);
            std::uint32_t slot;
            if (std::uint32_t k = m_keys.find(m_buf); k != kNone) {
                slot = m_keys.entry(k).value;
            } else {
                slot = allocSlot();
                m_slots[slot].key = m_keys.tryEmplace(m_buf, slot).first;
            }
            Timestamp t = rec.time;
            insert(side, slot, std::move(rec), matched, evictionTime(side, t));
            rec = Record();
        }
    }

    std::string stateFingerprint() const override
    {
        return "join/1 left_key=" + keys::joinList(m_enc[kLeft].paths())
               + " right_key=" + keys::joinList(m_enc[kRight].paths());
    }

private:
    bool inBounds(Timestamp lt, Timestamp rt) const
    {
        return satAdd(lt, m_lower) <= rt && rt <= satAdd(lt, m_upper);
    }
    Timestamp evictionTime(int side, Timestamp t) const
    {
        return side == kLeft ? satAdd(t, m_upper) : satSub(t, m_lower);
    }
    Timestamp outputWatermark(Timestamp w) const
    {
        if (!m_outer || w == kMaxTime || m_upper <= 0)
            return w;
        return satSub(w, m_upper);
    }

    void emitPair(const Record &l, const Record &r, Output &out)
    {
        Record o;
        o.reserve(l.size() + r.size(), l.byteSize() + r.byteSize() + 16 * (l.size() + r.size()));
        o.appendNested("left", l);
        o.appendNested("right", r);
        o.time = std::max(l.time, r.time);
        out.emit(std::move(o));
    }

    void emitUnmatched(Record &&l, Output &out)
    {
        Record o;
        o.reserve(l.size() + 1, l.byteSize() + 16 * l.size() + 8);
        o.appendNested("left", l);
        o.append("right", Value::null());
        o.time = l.time;
        out.emit(std::move(o));
    }

    std::uint32_t allocSlot()
    {
        if (!m_freeSlots.empty()) {
            std::uint32_t s = m_freeSlots.back();
            m_freeSlots.pop_back();
            m_slots[s] = KeySlot{};
            return s;
        }
        m_slots.emplace_back();
        return static_cast<std::uint32_t>(m_slots.size() - 1);
    }

    void insert(int side, std::uint32_t slot, Record &&rec, bool matched, Timestamp evictAt)
    {
        std::uint32_t idx;
        if (!m_freeEntries.empty()) {
            idx = m_freeEntries.back();
            m_freeEntries.pop_back();
        } else {
            m_entries.emplace_back();
            idx = static_cast<std::uint32_t>(m_entries.size() - 1);
        }
        Entry &e = m_entries[idx];
        e.rec = std::move(rec);
        e.slot = slot;
        e.side = static_cast<std::uint8_t>(side);
        e.matched = matched;
        e.live = true;
        KeySlot &ks = m_slots[slot];
        e.prev = ks.tail[side];
        e.next = kNone;
        if (ks.tail[side] != kNone)
            m_entries[ks.tail[side]].next = idx;
        else
            ks.head[side] = idx;
        ks.tail[side] = idx;
        ++ks.count;
        ++m_live;
        m_bytes += e.rec.byteSize();
        m_heap[side].push_back({evictAt, m_seq++, idx});
        std::push_heap(m_heap[side].begin(), m_heap[side].end(), EvictLater{});
    }

    void remove(std::uint32_t idx)
    {
        Entry &e = m_entries[idx];
        KeySlot &ks = m_slots[e.slot];
        if (e.prev != kNone)
            m_entries[e.prev].next = e.next;
        else
            ks.head[e.side] = e.next;
        if (e.next != kNone)
            m_entries[e.next].prev = e.prev;
        else
            ks.tail[e.side] = e.prev;
        m_bytes -= e.rec.byteSize();
        --m_live;
        e.live = false;
        e.rec = Record(); // release the record's buffers now: state stays bounded in bytes too
        if (--ks.count == 0) {
            m_keys.erase(ks.key);
            ks.key = kNone;
            m_freeSlots.push_back(e.slot);
        }
        m_freeEntries.push_back(idx);
    }

    void evict(Output &out)
    {
        // Left first: an unmatched left record whose bound passed cannot match a right record
        // that is evicted at the same watermark (that right record is already in state).
        auto &lh = m_heap[kLeft];
        while (!lh.empty() && lh.front().at <= m_w) {
            std::pop_heap(lh.begin(), lh.end(), EvictLater{});
            std::uint32_t idx = lh.back().entry;
            lh.pop_back();
            Entry &e = m_entries[idx];
            if (m_outer && !e.matched) {
                Record rec = std::move(e.rec);
                e.rec = Record();
                m_bytes -= rec.byteSize();
                m_bytes += e.rec.byteSize();
                remove(idx);
                emitUnmatched(std::move(rec), out);
            } else {
                remove(idx);
            }
        }
        auto &rh = m_heap[kRight];
        while (!rh.empty() && rh.front().at <= m_w) {
            std::pop_heap(rh.begin(), rh.end(), EvictLater{});
            std::uint32_t idx = rh.back().entry;
            rh.pop_back();
            remove(idx);
        }
    }

    void clearState()
    {
        m_keys.clear();
        m_slots.clear();
        m_freeSlots.clear();
        m_entries.clear();
        m_freeEntries.clear();
        m_heap[0].clear();
        m_heap[1].clear();
        m_live = 0;
        m_bytes = 0;
    }

    keys::KeyEncoder m_enc[2];
    std::int64_t m_lower;
    std::int64_t m_upper;
    bool m_outer;
    Timestamp m_w = kMinTime;
    std::string m_buf;
    keys::KeyTable<std::uint32_t> m_keys{1024}; ///< key bytes -> key slot
    std::vector<KeySlot> m_slots;
    std::vector<std::uint32_t> m_freeSlots;
    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_freeEntries;
    std::vector<Eviction> m_heap[2]; ///< min-heaps of eviction times, per side
    std::uint64_t m_seq = 0;
    std::size_t m_live = 0;
    std::size_t m_bytes = 0;
};

} // namespace

std::unique_ptr<Operator> makeJoin(const OperatorContext &ctx)
{
    const Json &p = ctx.spec.params;
    auto lk = keys::stringListParam(p, "left_key");
    auto rk = keys::stringListParam(p, "right_key");
    std::int64_t lower = keys::intParam(p, "lower_ms", 0);
    std::int64_t upper = keys::intParam(p, "upper_ms", 0);
    std::string type = keys::stringParam(p, "type", "inner");
    if (lk.empty() || lk.size() != rk.size())
        throw ConfigError("params.right_key: must list as many fields as left_key");
    if (lower > upper)
        throw ConfigError("params.lower_ms: must be <= upper_ms");
    return std::make_unique<JoinOperator>(std::move(lk), std::move(rk), lower, upper,
                                          type == "left_outer");
}

void validateJoin(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (!p.is_object())
        return;
    auto lk = p.find("left_key"), rk = p.find("right_key");
    if (lk != p.end() && lk->is_array() && lk->empty())
        ctx.error("left_key", "list at least one field, e.g. [\"ad_id\"]");
    if (rk != p.end() && rk->is_array() && rk->empty())
        ctx.error("right_key", "list at least one field, e.g. [\"ad_id\"]");
    if (lk != p.end() && rk != p.end() && lk->is_array() && rk->is_array() && !lk->empty()
        && !rk->empty() && lk->size() != rk->size())
        ctx.error("right_key", "has " + std::to_string(rk->size()) + " field(s) but left_key has "
                                   + std::to_string(lk->size())
                                   + ": keys are compared field by field");
    auto lo = p.find("lower_ms"), up = p.find("upper_ms");
    if (lo != p.end() && up != p.end() && lo->is_number_integer() && up->is_number_integer()
        && lo->get<std::int64_t>() > up->get<std::int64_t>())
        ctx.error("lower_ms", "is " + std::to_string(lo->get<std::int64_t>()) + " but upper_ms is "
                                  + std::to_string(up->get<std::int64_t>())
                                  + ": no pair could ever join (need lower_ms <= upper_ms)");
}

} // namespace tideline
