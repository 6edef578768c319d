// Tumbling and sliding windows: windows aligned to the epoch, shared by every key.
//
// Because every key has the same window boundaries, state is one pane per window (a
// keys::WindowSet, ordered by start, which for a fixed size is also the order of ends) and
// inside it the toolkit's table from encoded key to accumulators (keys::RowTable). A pane's
// firing (end - 1) and clean-up (end - 1 + allowed lateness) are timers in the toolkit's
// event-time timer queue (keys::ExpiryQueue), as dedup's, join's and the session window's are. The
// common path of a record is: floor its time to the window start, reuse the last pane when the
// window is the same, hash the key bytes, probe, fold the record in. Nothing is allocated unless
// the key is new in that window. A watermark advance looks at one timer when nothing fires. Panes
// that are dropped give their table memory back to a small pool, so a steady stream re-uses the
// same buffers.
//
// Sliding windows put a record into each of its size/slide windows (no pane sharing): simple
// and exact for every aggregate; the cost grows with size/slide, which validation bounds.

#include "checkpoint/keyed_state.hpp"
#include "operators/fusable.hpp"
#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/row_table.hpp"
#include "operators/keys/time_key.hpp"
#include "operators/keys/window_set.hpp"
#include "operators/window/deferred_folds.hpp"
#include "operators/window/window_base.hpp"

#include <cstddef>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace tideline::window {

namespace {

Timestamp floorMod(Timestamp t, Timestamp s)
{
    const Timestamp r = t % s;
    return r < 0 ? r + s : r;
}

using PaneTable = keys::RowTable<AggState>; ///< keys of one window and their accumulators

struct Pane
{
    Timestamp start = 0;
    Timestamp end = 0;
    bool fired = false;
    PaneTable table;
    std::int64_t spilled = 0; ///< entries of this pane on disk (settings.state "rocksdb")
};

class AlignedWindow final : public WindowOperatorBase,
                            public checkpoint::KeyedState,
                            public fusable::PreKeyed,
                            public fusable::PreAggregated
{
public:
    AlignedWindow(const OperatorContext &ctx, WindowConfig cfg)
        : WindowOperatorBase(ctx, std::move(cfg))
        , m_deferred(m_aggs.specs())
    {
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const Timestamp t = rec.time;
        process<false>(WholeRecord{rec}, t, {}, 0, out);
    }
    void processKeyed(
        Record &&rec, Timestamp t, std::string_view key, std::uint64_t hash, Output &out) override
    {
        foldDeferred();
        process<true>(WholeRecord{rec}, t, key, hash, out);
    }

    const std::vector<AggSpec> *preAggregates() const override
    {
        return m_state.store ? nullptr : &m_aggs.specs(); // a spill reads back per record
    }
    void processInputs(Timestamp t,
                       std::string_view key,
                       std::uint64_t hash,
                       const AggInput *inputs,
                       fusable::RecordMaker &maker,
                       Output &out) override
    {
        foldDeferred();
        process<true>(Inputs{inputs, maker}, t, key, hash, out);
    }

    void prefetchAhead(Timestamp soon,
                       std::uint64_t soonHash,
                       Timestamp sooner,
                       std::uint64_t soonerHash) const override
    {
        // Tumbling records in the pane of the last one (nearly all, on ordered input); any
        // other record goes without: finding its pane would cost what the hint saves.
        if (m_cfg.type != WindowType::Tumbling || m_lastPane == nullptr
            || m_lastStart != m_tumbleFrom)
            return;
        if (soon >= m_tumbleFrom && soon < m_tumbleTo)
            m_lastPane->table.prefetchSlot(soonHash);
        if (sooner >= m_tumbleFrom && sooner < m_tumbleTo)
            m_lastPane->table.prefetchRowOf(soonerHash);
    }

    /// What process() needs of a record: to fold it into accumulators, and to emit it when it
    /// is late. The record itself, or (the fused path) its aggregate inputs and its maker.
    struct WholeRecord
    {
        Record &rec;
        Record take() { return std::move(rec); }
        int fold(Aggregates &aggs, AggState *acc) { return aggs.add(rec, acc); }
    };
    struct Inputs
    {
        const AggInput *in;
        fusable::RecordMaker &maker;
        Record take() { return maker.make(); }
        int fold(Aggregates &aggs, AggState *acc) { return aggs.fold(in, acc); }
    };

    /// The key and its hash: given (the fused path encoded and hashed it to route the
    /// record), or encoded here into m_keyBuf and hashed.
    template<bool Given, class In>
    std::string_view keyOf(In &in, std::string_view key, std::uint64_t &hash)
    {
        if constexpr (Given) {
            return key;
        } else {
            m_codec.encode(in.rec, m_keyBuf);
            hash = keys::hashFreshKey(m_keyBuf);
            return m_keyBuf;
        }
    }

    template<bool Given, class In>
    void process(In in, const Timestamp t, std::string_view key, std::uint64_t hash, Output &out)
    {
        if (m_cfg.type == WindowType::Tumbling) {
            const Timestamp start = tumblingStart(t);
            if (cleanupTime(satAdd(start, m_cfg.size)) <= m_wm) {
                out.emitLate("window_closed", in.take(), m_wm);
                return;
            }
            const std::string_view k = keyOf<Given>(in, key, hash);
            Pane &p = pane(start);
            out.account(p.fired ? observe::Fate::LateAccepted : observe::Fate::Windowed);
            if constexpr (!Given && std::is_same_v<In, WholeRecord>) {
                if (!p.fired && m_state.store == nullptr) { // a pure fold: deferred_folds.hpp
                    if (m_deferred.full())
                        foldOldest(); // adds and drops no pane: p stays valid
                    p.table.prefetchSlot(hash);
                    m_deferred.push(start, k, hash, in.rec);
                    if (const DeferredFolds::Fold *f = m_deferred.rowAhead())
                        (f->start == start ? p : pane(f->start)).table.prefetchRowOf(f->hash);
                    return;
                }
            }
            foldDeferred();
            addTo(p, k, hash, in, out);
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
            out.emitLate("window_closed", in.take(), m_wm);
            return;
        }
        const std::string_view k = keyOf<Given>(in, key, hash);
        // Late but accepted when its earliest live window (the first to fire) has fired.
        out.account(pane(start).fired ? observe::Fate::LateAccepted : observe::Fate::Windowed);
        for (; count > 0; --count) {
            addTo(pane(start), k, hash, in, out);
            if (count > 1)
                start = satAdd(start, m_cfg.slide);
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_wm)
            m_wm = w;
        // The folds held back wait across a watermark that moves no timer: it fires and drops
        // no pane, so nothing looks at one, and those records were found on time against the
        // watermark when they came (a watermark after nearly every record had drained the
        // ring each time, its last rows asked for just before they were folded).
        if (!m_timers.empty() && m_timers.top().at <= m_wm)
            foldDeferred();
        // Fire and drop panes as their timers come due. Panes of one size fire in order of end,
        // and a pane's clean-up (pushed after its firing) never comes before it.
        while (!m_timers.empty() && m_timers.top().at <= m_wm) {
            const PaneTimer t = m_timers.top().payload;
            m_timers.pop();
            Pane *p = m_panes.find(t.start);
            if (p == nullptr)
                continue;
            if (!t.drop) {
                readBackAll(*p);
                firePane(*p, out);
                p->fired = true;
                continue;
            }
            m_entries -= static_cast<std::int64_t>(p->table.size()) + p->spilled;
            dropSpilled(*p);
            if (m_pool.size() < 4 && !m_state.store)
                m_pool.push_back(std::move(p->table));
            m_panes.erase(t.start);
            m_lastPane = nullptr;
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        foldDeferredNow();
        m.stateEntries = m_entries;
        m.openWindows = static_cast<std::int64_t>(m_panes.size());
        // Entries count memory and disk; bytes are the memory in use (spilled bytes live in
        // the state store's folder).
        m.stateBytes = static_cast<std::int64_t>(memoryBytes());
        m.stateSpilled = m_spill.entriesSpilled();
        m.errors += m_ignoredValues;
    }

    state::SpillStats spillStats() const override
    {
        foldDeferredNow();
        return m_spill.stats(m_entries - m_spill.entriesSpilled());
    }

    void snapshotState(StateWriter &w) const override
    {
        foldDeferredNow();
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
        // Then the spilled entries: (1, pane start, key, accumulators)... 0.
        keys::deferSpilledEntries(w, m_state.store, m_spill.entriesSpilled() != 0,
                                  [](StateWriter &out, std::string_view k, std::string_view v) {
                                      if (k.size() < 8)
                                          return;
                                      out.u8(1);
                                      out.i64(panePrefixStart(k));
                                      char b[kMaxVarint];
                                      out.bytes(b, putUvar(b, k.size() - 8));
                                      out.bytes(k.data() + 8, k.size() - 8);
                                      out.bytes(v.data(),
                                                v.size()); // already the compact accumulators
                                  });
    }

    void snapshotMerged(const std::vector<const Operator *> &instances,
                        StateWriter &w) const override
    {
        // snapshotState()'s format for one instance holding every key: every pane any instance
        // has (by start; all instances agree on a pane's end and, being at the same
        // watermark, on whether it fired), each with all instances' entries. Only the order
        // of entries inside a pane differs from a single instance's (there: the order keys
        // arrived, which no instance knows; here: instance after instance), and the window
        // never looks at that order: a firing sorts by key, a late update names its own key.
        std::map<Timestamp, std::vector<const Pane *>> panes;
        for (const Operator *op : instances) {
            const auto *a = dynamic_cast<const AlignedWindow *>(op);
            if (a == nullptr)
                throw std::logic_error("window: asked to merge another operator's state");
            a->foldDeferredNow();
            // (settings.state "rocksdb" runs with parallelism 1: instances never spill.)
            if (a->m_spill.entriesSpilled() != 0)
                throw std::runtime_error("window entries spilled to RocksDB cannot be merged "
                                         "across parallel instances");
            for (const auto &[start, p] : a->m_panes)
                panes[start].push_back(&p);
        }
        writeHeader(w);
        w.u64(panes.size());
        for (const auto &[start, parts] : panes) {
            std::uint64_t entries = 0;
            bool fired = false;
            for (const Pane *p : parts) {
                entries += p->table.size();
                fired = fired || p->fired;
            }
            w.i64(start);
            w.i64(parts.front()->end);
            w.u8(fired ? 1 : 0);
            w.u64(entries);
            EntryBatch batch(*this, w);
            for (const Pane *p : parts)
                for (std::uint32_t i = 0; i < p->table.size(); ++i)
                    batch.entry(p->table.key(i), p->table.acc(i));
        }
        w.u8(0); // no spilled entries
    }

    void restoreState(StateReader &r) override { restoreKeyed(r, {}, true); }

    void restoreKeyed(StateReader &r, const checkpoint::KeepKey &keep, bool) override
    {
        m_panes.clear();
        m_timers.clear();
        m_lastPane = nullptr;
        m_deferred.clear();
        m_entries = 0;
        m_spill.reset();
        if (!readHeader(r))
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state does not match this window "
                                "(type, size, key or aggregates changed) or is corrupt");
        const std::uint64_t panes = r.u64();
        std::string scratch;
        std::vector<AggState> skipped(m_aggs.size()); // another instance's accumulators
        for (std::uint64_t n = 0; n < panes && !r.failed(); ++n) {
            const Timestamp start = r.i64();
            const Timestamp end = r.i64();
            const bool fired = r.u8() != 0;
            const std::uint64_t entries = r.u64();
            bool fresh = false;
            Pane &p = m_panes.get(start, fresh);
            p.start = start;
            p.end = end;
            p.fired = fired;
            // A corrupt count must not reserve gigabytes: an entry takes at least a byte (its
            // key's length), and the reader fails at the real end. An instance that keeps a
            // share of the keys lets its table grow instead of reserving for all of them.
            p.table.reset(keep ? 16 : std::min<std::uint64_t>({entries, r.remaining(), 1u << 24}),
                          m_aggs.size());
            for (std::uint64_t e = 0; e < entries && !r.failed(); ++e) {
                const std::string_view key = readKey(r, scratch);
                if (keep && !keep(key)) {
                    readAccs(r, skipped.data());
                    continue;
                }
                bool created = false;
                const std::uint32_t idx = p.table.findOrInsert(key, hashBytes(key), created);
                readAccs(r, p.table.acc(idx));
                ++m_entries;
                if (m_spill.tick())
                    maybeEvict(); // a state larger than the budget goes to disk as it loads
            }
        }
        // Spilled entries of the saved run (absent from states written before that existed).
        while (!r.failed() && !r.atEnd()) {
            if (r.u8() == 0)
                break;
            const Timestamp start = r.i64();
            const std::string_view key = readKey(r, scratch);
            if (keep && !keep(key)) {
                readAccs(r, skipped.data());
                continue;
            }
            Pane *p = m_panes.find(start);
            if (r.failed() || p == nullptr)
                throw ConfigError("node `" + m_nodeId
                                  + "`: the checkpointed window state is corrupt (a spilled key "
                                    "of a window that is not in the state)");
            bool created = false;
            const std::uint32_t idx = p->table.findOrInsert(key, hashBytes(key), created);
            readAccs(r, p->table.acc(idx));
            ++m_entries;
            if (m_spill.tick())
                maybeEvict();
        }
        if (r.failed())
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state is cut short");
        if (keep) {
            // A pane none of this instance's keys is in: the instance would not have it (a
            // record of its keys creates it again, fired as the watermark says).
            std::vector<Timestamp> empty;
            for (const auto &[start, p] : m_panes)
                if (p.table.size() == 0 && p.spilled == 0)
                    empty.push_back(start);
            for (Timestamp start : empty)
                m_panes.erase(start);
        }
        if (m_state.store)
            maybeEvict();
        for (const auto &[start, p] : m_panes)
            pushTimers(p);
    }

private:
    /// satSub(t, floorMod(t, size)) without the division (tens of cycles) while records stay in
    /// the window of the previous one, which they mostly do.
    Timestamp tumblingStart(Timestamp t)
    {
        if (t >= m_tumbleFrom && t < m_tumbleTo)
            return m_tumbleFrom;
        const Timestamp r = floorMod(t, m_cfg.size);
        Timestamp start, end;
        // Remembered only when exact (no saturation): then every t' in [start, end) has
        // remainder t' - start, and the same start.
        if (!__builtin_sub_overflow(t, r, &start)
            && !__builtin_add_overflow(start, m_cfg.size, &end)) {
            m_tumbleFrom = start;
            m_tumbleTo = end;
            return start;
        }
        return satSub(t, r);
    }

    Pane &pane(Timestamp start)
    {
        if (m_lastPane != nullptr && m_lastStart == start)
            return *m_lastPane;
        bool created = false;
        Pane &p = m_panes.get(start, created);
        if (created) {
            p.start = start;
            p.end = satAdd(start, m_cfg.size);
            if (!m_pool.empty()) {
                p.table = std::move(m_pool.back());
                m_pool.pop_back();
            }
            std::size_t expected = m_expected;
            if (m_state.store) // do not reserve past the memory budget
                expected = std::min(expected, m_state.memoryBudget / (48 * (1 + m_aggs.size())));
            p.table.reset(std::max<std::size_t>(16, expected), m_aggs.size());
            // A window the watermark already passed (only reachable with allowed lateness)
            // counts as fired: each key's first record fires it at once.
            p.fired = satSub(p.end, 1) <= m_wm;
            pushTimers(p);
        }
        m_lastPane = &p;
        m_lastStart = start;
        return p;
    }

    /// Folds the deferred records into their panes, in their order (deferred_folds.hpp): the
    /// rows not asked for yet first, then each record folded as addTo folds it (no spill:
    /// never deferred with one; the pane has not fired: nothing to emit).
    void foldDeferred()
    {
        if (m_deferred.empty()) [[likely]]
            return;
        const std::size_t n = m_deferred.size();
        for (std::size_t i = n > DeferredFolds::kRowAhead ? n - DeferredFolds::kRowAhead : 0; i < n;
             ++i)
            pane(m_deferred.at(i).start).table.prefetchRowOf(m_deferred.at(i).hash);
        while (!m_deferred.empty())
            foldOldest();
    }
    void foldOldest()
    {
        const DeferredFolds::Fold &f = m_deferred.at(0);
        Pane &p = pane(f.start); // made when the record came; panes go only at watermarks
        bool created = false;
        const std::uint32_t idx = p.table.findOrInsert(f.key, f.hash, created);
        m_entries += created ? 1 : 0;
        m_ignoredValues += m_aggs.fold(m_deferred.inputsAt(0), p.table.acc(idx));
        m_deferred.popOldest();
    }
    /// foldDeferred from a const entry point: the records are folded in already as far as
    /// anything outside can tell, so their state is the operator's observable state.
    void foldDeferredNow() const { const_cast<AlignedWindow *>(this)->foldDeferred(); }

    /// A pane's timers: its firing unless it counts as fired, then its clean-up.
    void pushTimers(const Pane &p)
    {
        if (!p.fired)
            m_timers.push(satSub(p.end, 1), {p.start, false});
        m_timers.push(cleanupTime(p.end), {p.start, true});
    }

    template<class In>
    void addTo(Pane &p, std::string_view key, std::uint64_t hash, In &in, Output &out)
    {
        bool created = false;
        const std::uint32_t idx = p.table.findOrInsert(key, hash, created);
        AggState *acc = p.table.acc(idx);
        const bool spill = m_state.store != nullptr;
        bool inserted = created;
        if (spill) {
            p.table.touch(idx);
            if (created && p.spilled > 0 && readBack(p, key, acc))
                created = false; // the key was on disk: it continues where it left off
        }
        m_entries += created ? 1 : 0;
        m_ignoredValues += in.fold(m_aggs, acc);
        if (p.fired) {
            emitResult(p.start, p.end, p.table.key(idx), acc,
                       created ? EmitKind::Final : EmitKind::Update, out);
        }
        // Last: an eviction pass rebuilds tables (acc and idx are stale after it).
        if (inserted && m_spill.tick())
            maybeEvict();
    }

    // --- settings.state "rocksdb" ---
    // A spilled entry's RocksDB key is its pane's start (8 bytes, big-endian with the sign bit
    // flipped, so panes sort by start) followed by the encoded key; the value is its compact
    // accumulators. An entry is either in its pane's table or on disk, never both.

    static void putPanePrefix(std::string &out, Timestamp start)
    {
        keys::appendTimeKey(out, start);
    }
    static Timestamp panePrefixStart(std::string_view key) { return keys::readTimeKey(key); }
    std::string &diskKey(Timestamp start, std::string_view key)
    {
        m_diskKey.clear();
        putPanePrefix(m_diskKey, start);
        m_diskKey.append(key);
        return m_diskKey;
    }

    /// A key new to the pane's table may be on disk: move it back. true when it was.
    bool readBack(Pane &p, std::string_view key, AggState *acc)
    {
        const std::string &k = diskKey(p.start, key);
        if (!m_state.store->get(k, m_valueBuf))
            return false;
        StateReader r(m_valueBuf);
        m_aggs.loadCompact(r, acc);
        m_state.store->erase(k);
        --p.spilled;
        m_spill.readBack(1);
        return true;
    }

    /// Before a pane fires: every spilled entry comes back (firing sees all keys, sorted).
    void readBackAll(Pane &p)
    {
        if (!m_state.store || p.spilled == 0)
            return;
        std::string begin, end;
        putPanePrefix(begin, p.start);
        putPanePrefix(end, satAdd(p.start, 1));
        std::int64_t n = 0;
        m_state.store->scan(begin, end, [&](std::string_view k, std::string_view v) {
            bool created = false;
            const std::string_view key = k.substr(8);
            const std::uint32_t idx = p.table.findOrInsert(key, hashBytes(key), created);
            StateReader r(v);
            m_aggs.loadCompact(r, p.table.acc(idx));
            ++n;
        });
        m_state.store->eraseRange(begin, end);
        m_spill.readBack(n);
        m_spill.dropped(p.spilled - n); // none: every spilled entry of the pane was read
        p.spilled = 0;
    }

    void dropSpilled(Pane &p)
    {
        if (!m_state.store || p.spilled == 0)
            return;
        std::string begin, end;
        putPanePrefix(begin, p.start);
        putPanePrefix(end, satAdd(p.start, 1));
        m_state.store->eraseRange(begin, end);
        m_spill.dropped(p.spilled);
        p.spilled = 0;
    }

    std::size_t memoryBytes() const
    {
        std::size_t bytes = 0;
        for (const auto &[start, p] : m_panes)
            bytes += sizeof(Pane) + 48 + p.table.bytes();
        return bytes;
    }

    /// Over budget (keys::SpillPolicy): spill entries not touched since the last pass, then,
    /// if that is not enough, whole panes from the oldest.
    void maybeEvict()
    {
        std::optional<state::SpillStore::Batch> batch;
        auto spillEntry = [&](Pane &p, std::uint32_t i) {
            const std::size_t n = m_aggs.saveCompact(m_accScratch.data(), p.table.acc(i));
            batch->put(diskKey(p.start, p.table.key(i)), std::string_view(m_accScratch.data(), n));
            ++p.spilled;
            m_spill.spilled(1);
        };
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            m_accScratch.resize(m_aggs.compactBound() + 1);
            std::vector<std::uint32_t> keep;
            for (auto &[start, p] : m_panes) {
                keep.clear();
                for (std::uint32_t i = 0; i < p.table.size(); ++i) {
                    if (p.table.touched(i))
                        keep.push_back(i);
                    else
                        spillEntry(p, i);
                }
                if (keep.size() != p.table.size())
                    p.table.keepOnly(keep, m_aggs.size());
                else
                    p.table.clearTouches();
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (auto &[start, p] : m_panes) {
                if (!overTarget())
                    break;
                for (std::uint32_t i = 0; i < p.table.size(); ++i)
                    spillEntry(p, i);
                p.table.keepOnly({}, m_aggs.size());
            }
        };
        if (!m_spill.maybeSpill([this] { return memoryBytes(); }, spillCold, spillMore))
            return;
        batch->commit();
        m_lastPane = nullptr;
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
        // Key order visits the rows at random: at 100,000 keys a window's rows are megabytes,
        // and waiting for each row was a fifth of the run. Ask for the row a few keys ahead.
        constexpr std::uint32_t kAhead = 8;
        for (std::uint32_t j = 0; j < n; ++j) {
            if (j + kAhead < n)
                p.table.prefetch(m_order[j + kAhead]);
            const std::uint32_t i = m_order[j];
            emitResult(p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Final, out);
        }
    }

    struct PaneTimer
    {
        Timestamp start; ///< the pane's
        bool drop;       ///< its clean-up, else its firing
    };
    keys::WindowSet<Pane> m_panes; ///< by window start (= by end: one size)
    keys::ExpiryQueue<PaneTimer> m_timers;
    std::vector<PaneTable> m_pool;
    Pane *m_lastPane = nullptr;
    DeferredFolds m_deferred; ///< pure folds held back (P = 1's records)
    Timestamp m_lastStart = 0;
    Timestamp m_tumbleFrom = 1, m_tumbleTo = 0; ///< tumblingStart's last window (none yet)
    std::size_t m_expected = 16;                ///< keys per window seen last: initial table size
    std::int64_t m_entries = 0;
    std::vector<std::uint32_t> m_order;
    std::vector<std::string_view> m_sortKeys;
    std::string m_diskKey;
    std::vector<char> m_accScratch;
};

} // namespace

std::unique_ptr<Operator> makeAlignedWindow(const OperatorContext &ctx, WindowConfig cfg)
{
    return std::make_unique<AlignedWindow>(ctx, std::move(cfg));
}

} // namespace tideline::window
