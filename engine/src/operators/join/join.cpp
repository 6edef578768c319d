// join: interval join of `left` and `right` (pipeline-format.md, "Dedup and join").
//
// l and r join when their keys are equal and l.t + lower <= r.t <= l.t + upper; the pair is
// emitted when the later of the two arrives, as {"left": {...}, "right": {...}} with event time
// max(l.t, r.t). The join's W is min(W_left, W_right) (combined by the runtime). A left record
// is evicted once W >= l.t + upper (left_outer: emitted with "right": null if it never matched),
// a right record once W >= r.t - lower. Eviction pops per-side ExpiryQueues (a ring for
// in-order times, a heap for the rest), so it never scans the state. Records with t <= W go to
// `late`.
//
// Speed: buffered records are kept as flat blocks in output form (flat_record.hpp: one heap
// block each, fields already named "left.x"/"right.x", from a size-classed pool), so a pair is
// a pooled Record filled from two blocks, with one cache miss per buffered partner; the match
// scan reads 24-byte links (time, next, block), not the records.
//
// Output watermark: inner joins forward W. A left_outer join emits an unmatched left record at
// time l.t once W >= l.t + upper, so it holds its output watermark back by max(upper, 0)
// (Flink's interval join does the same) to keep those records on time downstream.
//
// A key with a null or missing field never matches (SQL): such a right record is dropped; such
// a left record is dropped by inner joins and emitted at once unmatched by left_outer joins.
//
// settings.state "rocksdb" (the toolkit's keys::SpillPolicy, the windows' budget and counters):
// a pass moves the buffered records of keys no record reached since the last pass, then of
// more keys, to the spill store (RocksDB key = the entry index, value = the flat block); the
// links, the key table and the expiry queues stay in memory (about 60 bytes an entry, the
// records are the bulk). A spilled record comes back when a record of its key matches it, or
// when it is evicted unmatched from a left_outer join (it is emitted); otherwise eviction just
// deletes it. Snapshots read spilled records from the store, so their bytes do not change.
// The buffered-state types and the spilling are in join_state.hpp.

#include "operators/join/flat_record.hpp"
#include "operators/join/join_state.hpp"
#include "operators/join/mode_join.hpp"
#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>
#include <cstring>

namespace tideline {

namespace {

using join::KeyState;
using join::kNone;
using join::Link;
using join::Meta;

constexpr int kLeft = 0;
constexpr int kRight = 1;
constexpr std::string_view kPrefix[2] = {"left", "right"};

class JoinOperator final : public Operator, public state::StatefulOperator
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
    ~JoinOperator() override { clearState(); }
    JoinOperator(const JoinOperator &) = delete;
    JoinOperator &operator=(const JoinOperator &) = delete;

    void processRecord(int input, Record &&record, Output &out) override
    {
        const int side = input == kRight ? kRight : kLeft;
        if (record.time <= m_w) {
            out.emitLate("behind_watermark", std::move(record), m_w);
            return;
        }
        const Timestamp t = record.time;
        if (!m_enc[side].encode(record, m_buf)) {
            out.account(side == kLeft && m_outer ? observe::Fate::JoinUnmatched
                                                 : observe::Fate::NullKey);
            if (side == kLeft && m_outer) {
                m_codec[kLeft].write(m_self, record);
                emitUnmatched(m_self.data(), t, out);
            }
            return;
        }
        const std::uint64_t h = Keys::hashOf(m_buf);
        const std::uint32_t found = m_keys.find(m_buf, h);
        // The record in output form ("left.*" / "right.*"), written once: when it first
        // matches, or when it is stored.
        bool built = false;
        bool matched = false;
        if (found != kNone) {
            // First find the partners and start loading their blocks (they are cold: each was
            // last touched when it arrived or matched), so the misses overlap; then emit.
            m_partners.clear();
            KeyState &ks = m_keys.entry(found).value;
            ks.touched = true;
            for (std::uint32_t e = ks.head[1 - side]; e != kNone; e = m_links[e].next) {
                const Link &o = m_links[e];
                if (side == kLeft ? inBounds(t, o.t) : inBounds(o.t, t)) {
                    if (o.block == nullptr)
                        m_spill.load(e);
                    __builtin_prefetch(o.block);
                    __builtin_prefetch(o.block + 64);
                    m_partners.push_back(e);
                }
            }
            if (!m_partners.empty()) {
                m_codec[side].write(m_self, record);
                built = true;
                matched = true; // (a right record's flag only feeds the accounting)
            }
            for (const std::uint32_t e : m_partners) {
                const Link &o = m_links[e];
                if (side == kLeft) {
                    emitPair(m_self.data(), o.block, std::max(t, o.t), out);
                    m_meta[e].matched = true;
                } else {
                    emitPair(o.block, m_self.data(), std::max(t, o.t), out);
                    m_meta[e].matched = true;
                }
            }
        }
        // Would this record be evicted right away (its bound is already behind W)? Then it can
        // match nothing later: finish it now instead of storing it.
        const Timestamp evictAt = evictionTime(side, t);
        if (evictAt <= m_w) {
            out.account(matched ? observe::Fate::JoinMatched : observe::Fate::JoinUnmatched);
            if (side == kLeft && m_outer && !matched) {
                if (!built)
                    m_codec[kLeft].write(m_self, record);
                emitUnmatched(m_self.data(), t, out);
            }
            return;
        }
        if (!built)
            m_codec[side].write(m_self, record);
        const std::uint32_t key
            = found != kNone ? found : m_keys.tryEmplace(m_buf, h, KeyState{}).first;
        insert(side, key, t, m_self, matched, evictAt);
        if (m_spill.policy().tick())
            m_spill.maybeSpill();
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
        m.stateEntries = static_cast<std::int64_t>(m_live); // memory and disk
        m.held = static_cast<std::int64_t>(m_live);
        m.stateBytes = static_cast<std::int64_t>(m_spill.memoryBytes());
        m.stateSpilled = m_spill.policy().entriesSpilled();
    }

    void configureState(state::StateBackendConfig cfg) override
    {
        m_spill.configure(std::move(cfg));
    }
    state::SpillStats spillStats() const override
    {
        return m_spill.policy().stats(static_cast<std::int64_t>(m_live)
                                      - m_spill.policy().entriesSpilled());
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.u64(m_live);
        // Per side in eviction order, so a restore evicts (and emits) in the same order. The
        // records are written as they arrived (not in output form): the format does not
        // depend on how they are kept in memory.
        // A spilled record is read from the store here (point reads on the loop: the order is
        // the eviction order, not the store's).
        std::string spilledBlock;
        for (int side : {kLeft, kRight}) {
            for (const auto &item : m_queue[side].sorted()) {
                const std::uint32_t e = item.payload;
                w.u8(static_cast<std::uint8_t>(side));
                w.u8(m_meta[e].matched ? 1 : 0);
                const char *block = m_links[e].block;
                if (block == nullptr)
                    block = m_spill.read(e, spilledBlock);
                Record rec = m_codec[side].unprefixed(block);
                rec.time = m_links[e].t;
                w.record(rec);
            }
        }
    }

    void restoreState(StateReader &r) override
    {
        m_spill.reset();
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
            const std::uint32_t key = m_keys.tryEmplace(m_buf, KeyState{}).first;
            m_codec[side].write(m_self, rec);
            insert(side, key, rec.time, m_self, matched, evictionTime(side, rec.time));
            if (m_spill.policy().tick())
                m_spill.maybeSpill(); // a state larger than the budget goes to disk as it loads
        }
        if (m_spill.policy().enabled())
            m_spill.maybeSpill();
    }

    std::string stateFingerprint() const override
    {
        return "join/1 left_key=" + keys::joinList(m_enc[kLeft].paths())
               + " right_key=" + keys::joinList(m_enc[kRight].paths());
    }

private:
    using Keys = join::Keys;

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

    /// {"left": {...}, "right": {...}} from two blocks in output form: pooled buffers sized
    /// for both, then the fields of each block in order.
    void emitPair(const char *l, const char *r, Timestamp t, Output &out)
    {
        const flat::Header hl = flat::header(l), hr = flat::header(r);
        Record o;
        o.reserve(hl.fields + hr.fields, hl.textBytes + hr.textBytes);
        m_codec[kLeft].appendTo(o, l);
        m_codec[kRight].appendTo(o, r);
        o.time = t;
        out.account(observe::Fate::JoinPair);
        out.emit(std::move(o));
    }

    /// {"left": {...}, "right": null} from a left block.
    void emitUnmatched(const char *l, Timestamp t, Output &out)
    {
        const flat::Header hl = flat::header(l);
        Record o;
        o.reserve(hl.fields + 1, hl.textBytes + 5);
        m_codec[kLeft].appendTo(o, l);
        o.append("right", Value::null());
        o.time = t;
        out.account(observe::Fate::JoinUnmatchedRow);
        out.emit(std::move(o));
    }

    void insert(int side,
                std::uint32_t key,
                Timestamp t,
                std::string_view block,
                bool matched,
                Timestamp evictAt)
    {
        std::uint32_t idx;
        if (!m_freeEntries.empty()) {
            idx = m_freeEntries.back();
            m_freeEntries.pop_back();
        } else {
            idx = static_cast<std::uint32_t>(m_links.size());
            m_links.emplace_back();
            m_meta.emplace_back();
        }
        KeyState &ks = m_keys.entry(key).value;
        Link &l = m_links[idx];
        l.t = t;
        l.block = m_blocks.take(block.size());
        std::memcpy(l.block, block.data(), block.size());
        l.prev = ks.tail[side];
        l.next = kNone;
        if (ks.tail[side] != kNone)
            m_links[ks.tail[side]].next = idx;
        else
            ks.head[side] = idx;
        ks.tail[side] = idx;
        ++ks.count;
        ks.touched = true;
        m_meta[idx] = {key, static_cast<std::uint8_t>(side), matched};
        m_bytes += block.size() + sizeof(Link) + sizeof(Meta);
        ++m_live;
        m_queue[side].push(evictAt, idx);
    }

    /// Unlinks entry `idx` and hands back its block; the caller returns it to m_blocks.
    char *take(std::uint32_t idx)
    {
        const Meta &m = m_meta[idx];
        Link &l = m_links[idx];
        KeyState &ks = m_keys.entry(m.key).value;
        if (l.prev != kNone)
            m_links[l.prev].next = l.next;
        else
            ks.head[m.side] = l.next;
        if (l.next != kNone)
            m_links[l.next].prev = l.prev;
        else
            ks.tail[m.side] = l.prev;
        char *block = l.block; // null when spilled (the caller dropped it from the store)
        l.block = nullptr;
        m_bytes -= (block ? flat::header(block).size : 0) + sizeof(Link) + sizeof(Meta);
        --m_live;
        if (--ks.count == 0)
            m_keys.erase(m.key);
        m_freeEntries.push_back(idx);
        return block;
    }

    void release(char *block)
    {
        if (block != nullptr)
            m_blocks.give(block, flat::header(block).size);
    }

    void evict(Output &out)
    {
        // Left first: an unmatched left record whose bound passed cannot match a right record
        // that is evicted at the same watermark (that right record is already in state).
        auto &lq = m_queue[kLeft];
        while (!lq.empty() && lq.top().at <= m_w) {
            const std::uint32_t idx = lq.top().payload;
            lq.pop();
            out.account(m_meta[idx].matched ? observe::Fate::JoinMatched
                                            : observe::Fate::JoinUnmatched);
            const bool unmatched = m_outer && !m_meta[idx].matched;
            if (m_links[idx].block == nullptr) {
                if (unmatched)
                    m_spill.load(idx); // it is emitted
                else
                    m_spill.drop(idx);
            }
            const Timestamp t = m_links[idx].t;
            char *block = take(idx);
            if (unmatched)
                emitUnmatched(block, t, out);
            release(block);
        }
        auto &rq = m_queue[kRight];
        while (!rq.empty() && rq.top().at <= m_w) {
            const std::uint32_t idx = rq.top().payload;
            rq.pop();
            out.account(m_meta[idx].matched ? observe::Fate::JoinMatched
                                            : observe::Fate::JoinUnmatched);
            if (m_links[idx].block == nullptr)
                m_spill.drop(idx);
            release(take(idx));
        }
        m_spill.commitDrops();
    }

    void clearState()
    {
        for (std::uint32_t k = 0; k < m_links.size(); ++k)
            if (m_links[k].block)
                release(m_links[k].block);
        m_keys.clear();
        m_links.clear();
        m_meta.clear();
        m_freeEntries.clear();
        m_queue[0].clear();
        m_queue[1].clear();
        m_live = 0;
        m_bytes = 0;
    }

    keys::KeyEncoder m_enc[2];
    std::int64_t m_lower;
    std::int64_t m_upper;
    bool m_outer;
    Timestamp m_w = kMinTime;
    std::string m_buf; ///< encoded key of the current record
    flat::Codec m_codec[2] = {flat::Codec(kPrefix[kLeft]), flat::Codec(kPrefix[kRight])};
    std::string m_self;                    ///< the current record as a flat block in output form
    std::vector<std::uint32_t> m_partners; ///< entries the current record joins with
    Keys m_keys{1024};
    // Buffered entries, by index (a free list recycles indexes): the vectors are parallel.
    std::vector<Link> m_links;
    std::vector<Meta> m_meta;
    flat::BlockPool m_blocks;
    std::vector<std::uint32_t> m_freeEntries;
    keys::ExpiryQueue<std::uint32_t> m_queue[2]; ///< eviction times per side
    std::size_t m_live = 0;
    std::size_t m_bytes = 0; ///< in memory (spilled blocks not counted)

    join::Spill m_spill{m_keys, m_links, m_meta, m_blocks, m_bytes}; ///< settings.state
};

} // namespace

std::unique_ptr<Operator> makeJoin(const OperatorContext &ctx)
{
    // settings.semantics other than "flink": that engine's join (mode_join.hpp). Flink mode
    // makes the operator below, as before the switch existed.
    if (ctx.semantics && ctx.semantics->engine != semantics::Engine::Flink) {
        join::ModeJoinParams mp = join::readModeJoinParams(ctx);
        if (ctx.semantics->engine == semantics::Engine::Spark)
            return join::makeSparkJoin(ctx, std::move(mp));
        return join::makeKafkaJoin(ctx, std::move(mp));
    }
    const NodeParams p(ctx);
    auto lk = p.fieldList("left_key");
    auto rk = p.fieldList("right_key");
    const std::int64_t lower = p.integer("lower_ms");
    const std::int64_t upper = p.integer("upper_ms");
    const std::string type = p.string("type");
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
    // Sizes as the operator reads them (a string is a one-field list).
    const NodeParams read(ctx);
    const auto lks = read.fieldList("left_key"), rks = read.fieldList("right_key");
    if (lk != p.end() && rk != p.end() && !lks.empty() && !rks.empty() && lks.size() != rks.size())
        ctx.error("right_key", "has " + std::to_string(rks.size()) + " field(s) but left_key has "
                                   + std::to_string(lks.size())
                                   + ": keys are compared field by field");
    auto lo = p.find("lower_ms"), up = p.find("upper_ms");
    if (lo != p.end() && up != p.end() && lo->is_number_integer() && up->is_number_integer()
        && lo->get<std::int64_t>() > up->get<std::int64_t>())
        ctx.error("lower_ms", "is " + std::to_string(lo->get<std::int64_t>()) + " but upper_ms is "
                                  + std::to_string(up->get<std::int64_t>())
                                  + ": no pair could ever join (need lower_ms <= upper_ms)");
}

} // namespace tideline
