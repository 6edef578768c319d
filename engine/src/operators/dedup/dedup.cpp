// dedup: the first record of a key passes; repeats are dropped (counted) while the key's state
// lives. State for a key first seen at t0 is removed once W >= t0 + within_ms, in time order
// through an ExpiryQueue (no scans): keys arrive nearly in time order, so expiry is a walk
// along a ring buffer that prefetches the hash slots of the next victims (the random accesses
// into a table of ~10^5..10^6 keys are what costs, not the instructions). Records behind the
// watermark go to `late`.
//
// settings.state "rocksdb" (the toolkit's keys::SpillPolicy, the windows' budget and counters):
// keys no record repeated since the last pass, then the soonest to expire, move to the spill
// store as two rows written together: "K" + key -> t0 (is it a repeat?) and "T" + expiry time
// + key -> t0 (expiry is one range scan, and the rows come out in the snapshot's order). A new
// key that is on disk is a repeat: it comes back into memory (read back). Nothing of a
// spilled key stays in memory, so the budget bounds the state in memory.

#include "checkpoint/keyed_state.hpp"
#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/params.hpp"
#include "operators/keys/spill_policy.hpp"
#include "operators/keys/time_key.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"
#include "semantics/semantics.hpp"
#include "state/state_backend.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

namespace tideline {

namespace {

class DedupOperator final : public Operator,
                            public state::StatefulOperator,
                            public checkpoint::KeyedState
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
            out.account(observe::Fate::Duplicate);
            if (m_spill.enabled())
                m_touched[idx] = 1;
            return;
        }
        Timestamp t0 = record.time;
        const bool repeat = m_spill.entriesSpilled() > 0 && readBack(m_buf, t0);
        if (repeat)
            m_keys.entry(idx).value = t0; // a spilled key: back in memory, a repeat
        m_keyBytes += m_buf.size();
        m_expiry.push(satAdd(t0, m_within), {idx, static_cast<std::uint32_t>(h)});
        if (m_spill.enabled()) {
            if (m_touched.size() <= idx)
                m_touched.resize(std::max<std::size_t>(idx + 1, m_touched.size() * 2));
            m_touched[idx] = 1;
        }
        if (repeat) {
            ++m_duplicates;
            out.account(observe::Fate::Duplicate);
        } else
            out.emit(std::move(record));
        if (m_spill.tick())
            maybeSpill();
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
        // Entries count memory and disk; bytes are the memory in use (as the windows report).
        m.stateEntries = static_cast<std::int64_t>(m_keys.size()) + m_spill.entriesSpilled();
        // Key bytes plus a hash node and a heap slot per key (approximate, as documented).
        m.stateBytes = static_cast<std::int64_t>(memoryBytes());
        m.stateSpilled = m_spill.entriesSpilled();
    }

    void configureState(state::StateBackendConfig cfg) override
    {
        m_state = std::move(cfg);
        m_spill.configure(m_state);
    }
    state::SpillStats spillStats() const override
    {
        return m_spill.stats(static_cast<std::int64_t>(m_keys.size()));
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_w);
        w.i64(m_duplicates);
        w.u64(m_keys.size() + static_cast<std::uint64_t>(m_spill.entriesSpilled()));
        // Written in expiry order (ties by key bytes, so equal states give equal bytes); a
        // restore then pushes in order and the whole queue lands in the ring.
        auto order = m_expiry.sorted();
        std::sort(order.begin(), order.end(), [this](const Timer &a, const Timer &b) {
            return a.at != b.at
                       ? a.at < b.at
                       : m_keys.entry(a.payload.entry).key < m_keys.entry(b.payload.entry).key;
        });
        if (m_spill.entriesSpilled() == 0) {
            for (const auto &t : order) {
                w.str(m_keys.entry(t.payload.entry).key);
                w.i64(m_keys.entry(t.payload.entry).value);
            }
            return;
        }
        // Some keys are on disk: the checkpoint writer thread merges the keys in memory (copied
        // here) with the "T" rows of a RocksDB snapshot pinned at this cut. Both are in
        // (expiry, key bytes) order, so the bytes are those of the same state all in memory.
        std::vector<Kept> kept;
        kept.reserve(order.size());
        for (const auto &t : order)
            kept.push_back(
                {t.at, m_keys.entry(t.payload.entry).key, m_keys.entry(t.payload.entry).value});
        w.defer([snap = m_state.store->snapshot(), kept = std::move(kept)](StateWriter &out) {
            std::size_t i = 0;
            snap->scan([&](std::string_view k, std::string_view v) {
                if (k.size() < 1 + keys::kTimeKeyBytes || k[0] != 'T')
                    return;
                const Timestamp at = keys::readTimeKey(k.substr(1));
                const std::string_view key = k.substr(1 + keys::kTimeKeyBytes);
                for (; i < kept.size() && (kept[i].at != at ? kept[i].at < at : kept[i].key < key);
                     ++i) {
                    out.str(kept[i].key);
                    out.i64(kept[i].t0);
                }
                out.str(key);
                out.i64(decodeT0(v));
            });
            for (; i < kept.size(); ++i) {
                out.str(kept[i].key);
                out.i64(kept[i].t0);
            }
        });
    }

    void snapshotMerged(const std::vector<const Operator *> &instances,
                        StateWriter &w) const override
    {
        // Byte-identical to snapshotState() of one instance that holds every key: the same
        // watermark (every instance saw every watermark), duplicates added up, and all keys
        // in (expiry, key bytes) order, which does not depend on where they were kept.
        struct Item
        {
            Timestamp at;
            std::string_view key;
            Timestamp t0;
        };
        std::vector<Item> items;
        Timestamp wm = kMinTime;
        std::int64_t duplicates = 0;
        for (const Operator *op : instances) {
            const auto *d = dynamic_cast<const DedupOperator *>(op);
            if (d == nullptr)
                throw std::logic_error("dedup: asked to merge another operator's state");
            // (settings.state "rocksdb" runs with parallelism 1: instances never spill.)
            if (d->m_spill.entriesSpilled() > 0)
                throw std::runtime_error("keys spilled to RocksDB cannot be merged across "
                                         "parallel instances");
            wm = std::max(wm, d->m_w);
            duplicates += d->m_duplicates;
            for (const Timer &t : d->m_expiry.sorted()) {
                const auto &e = d->m_keys.entry(t.payload.entry);
                items.push_back({t.at, e.key, e.value});
            }
        }
        std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
            return a.at != b.at ? a.at < b.at : a.key < b.key;
        });
        w.i64(wm);
        w.i64(duplicates);
        w.u64(items.size());
        for (const Item &it : items) {
            w.str(it.key);
            w.i64(it.t0);
        }
    }

    void restoreState(StateReader &r) override { restoreKeyed(r, {}, true); }

    void restoreKeyed(StateReader &r, const checkpoint::KeepKey &keep, bool first) override
    {
        m_keys.clear();
        m_expiry.clear();
        m_keyBytes = 0;
        m_touched.clear();
        if (m_spill.entriesSpilled() > 0)
            m_state.store->eraseRange("K", "U"); // every "K" and "T" row
        m_spill.reset();
        m_nextSpilledAt = kMaxTime;
        m_w = r.i64();
        m_duplicates = r.i64();
        if (!first)
            m_duplicates = 0; // the stage adds its instances' counts up
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            std::string key = r.str();
            Timestamp t0 = r.i64();
            if (keep && !keep(key))
                continue; // another instance's key group
            const std::uint64_t h = Table::hashOf(key);
            auto [idx, ok] = m_keys.tryEmplace(key, h, t0);
            if (!ok)
                continue;
            m_keyBytes += key.size();
            m_expiry.push(satAdd(t0, m_within), {idx, static_cast<std::uint32_t>(h)});
            if (m_spill.enabled()) {
                if (m_touched.size() <= idx)
                    m_touched.resize(std::max<std::size_t>(idx + 1, m_touched.size() * 2));
                m_touched[idx] = 1;
                if (m_spill.tick())
                    maybeSpill(); // a state larger than the budget goes to disk as it loads
            }
        }
        expire();
        if (m_spill.enabled())
            maybeSpill();
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
        if (m_spill.entriesSpilled() > 0 && m_nextSpilledAt <= m_w)
            expireSpilled();
    }

    // --- settings.state "rocksdb" ---

    struct Kept
    {
        Timestamp at;
        std::string key;
        Timestamp t0;
    };

    std::size_t memoryBytes() const { return m_keyBytes + m_keys.size() * 64; }

    static std::string_view encodeT0(Timestamp t0, char (&b)[8])
    {
        std::memcpy(b, &t0, 8);
        return {b, 8};
    }
    static Timestamp decodeT0(std::string_view v)
    {
        Timestamp t0 = 0;
        if (v.size() == 8)
            std::memcpy(&t0, v.data(), 8);
        return t0;
    }
    const std::string &kRow(std::string_view key)
    {
        m_kRow.assign(1, 'K');
        m_kRow.append(key);
        return m_kRow;
    }
    const std::string &tRow(Timestamp at, std::string_view key)
    {
        m_tRow.assign(1, 'T');
        keys::appendTimeKey(m_tRow, at);
        m_tRow.append(key);
        return m_tRow;
    }

    /// A key new to memory may be on disk: then it comes back (t0 = its first time). true when
    /// it was there.
    bool readBack(std::string_view key, Timestamp &t0)
    {
        if (!m_state.store->get(kRow(key), m_value))
            return false;
        t0 = decodeT0(m_value);
        state::SpillStore::Batch batch(*m_state.store);
        batch.erase(kRow(key));
        batch.erase(tRow(satAdd(t0, m_within), key));
        batch.commit();
        m_spill.readBack(1);
        return true;
    }

    /// Drops the spilled keys whose expiry time the watermark reached: one range scan of "T".
    void expireSpilled()
    {
        std::string begin(1, 'T'), end;
        if (m_w == kMaxTime) {
            end = "U";
        } else {
            end = "T";
            keys::appendTimeKey(end, m_w + 1);
        }
        state::SpillStore::Batch batch(*m_state.store);
        std::int64_t n = 0;
        m_state.store->scan(begin, end, [&](std::string_view k, std::string_view) {
            batch.erase(k);
            batch.erase(kRow(k.substr(1 + keys::kTimeKeyBytes)));
            ++n;
        });
        batch.commit();
        m_spill.dropped(n);
        m_nextSpilledAt = kMaxTime;
        if (m_spill.entriesSpilled() > 0 && m_state.store->first(end, "U", m_tRow))
            m_nextSpilledAt = keys::readTimeKey(std::string_view(m_tRow).substr(1));
    }

    /// Over budget (keys::SpillPolicy): spill keys no record repeated since the last pass,
    /// then the soonest to expire. The expiry queue is rebuilt without them.
    void maybeSpill()
    {
        std::optional<state::SpillStore::Batch> batch;
        std::vector<Timer> order;
        std::int64_t n = 0;
        auto spill = [&](const Timer &t) {
            const std::uint32_t idx = t.payload.entry;
            Table::Entry &e = m_keys.entry(idx);
            char b[8];
            batch->put(kRow(e.key), encodeT0(e.value, b));
            batch->put(tRow(t.at, e.key), encodeT0(e.value, b));
            m_nextSpilledAt = std::min(m_nextSpilledAt, t.at);
            m_keyBytes -= e.key.size();
            m_keys.erase(idx);
            ++n;
            m_spill.spilled(1);
        };
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            order = m_expiry.sorted();
            for (const Timer &t : order) {
                if (m_touched[t.payload.entry])
                    m_touched[t.payload.entry] = 0;
                else
                    spill(t);
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (const Timer &t : order) {
                if (!overTarget())
                    break;
                if (m_keys.entry(t.payload.entry).used)
                    spill(t);
            }
        };
        if (!m_spill.maybeSpill([this] { return memoryBytes(); }, spillCold, spillMore))
            return;
        batch->commit();
        if (n == 0)
            return;
        m_expiry.clear();
        for (const Timer &t : order)
            if (m_keys.entry(t.payload.entry).used)
                m_expiry.push(t.at, t.payload);
    }

    keys::KeyEncoder m_enc;
    std::int64_t m_within;
    Timestamp m_w = kMinTime;
    std::string m_buf;
    Table m_keys{1 << 16};
    keys::ExpiryQueue<Victim> m_expiry;
    std::size_t m_keyBytes = 0;
    std::int64_t m_duplicates = 0;

    state::StateBackendConfig m_state; ///< settings.state (store null unless "rocksdb")
    keys::SpillPolicy m_spill;
    std::vector<std::uint8_t> m_touched;  ///< per entry: a record reached it since the last pass
    Timestamp m_nextSpilledAt = kMaxTime; ///< no spilled key expires before this
    std::string m_kRow, m_tRow, m_value;
};

} // namespace

std::unique_ptr<Operator> makeDedup(const OperatorContext &ctx)
{
    if (ctx.semantics && ctx.semantics->engine != semantics::Engine::Flink)
        return makeModeDedup(ctx);
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
