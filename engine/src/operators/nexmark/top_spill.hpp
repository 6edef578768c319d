#pragma once
// The top node's groups (top.cpp) and their spilling under settings.state "rocksdb": a pass of
// keys::SpillPolicy moves the rows of cold groups to the node's spill store, and the group
// itself (key, completion time, best value, timer) stays in memory, so timers still find it
// and a record or the firing reads its rows back. An entry of the policy is a group.
//
// Spill-store rows: "G" + completion time (keys/time_key.hpp) + encoded group key -> the
// group's body as in a snapshot (start, row count, rows). A spilled group's completion time
// cannot move (a record reads the group back first), so the store's byte order is the
// snapshot's (completion time, key) order, and a snapshot merges the groups in memory with one
// scan of a RocksDB snapshot on the checkpoint writer thread: the same bytes as all in memory.
//
// [Threading] the pipeline loop only (the deferred snapshot part: the checkpoint writer).

#include "operators/keys/key_table.hpp"
#include "operators/keys/spill_policy.hpp"
#include "operators/keys/time_key.hpp"
#include "state/state_backend.hpp"

#include <tideline/engine/record.hpp>
#include <tideline/engine/state_io.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::top {

/// A ranked value: integers compare exactly, anything else as doubles.
struct Num
{
    bool isInt = true;
    std::int64_t i = 0;
    double d = 0;
    static Num of(const Value &v)
    {
        Num n;
        n.isInt = v.type == ValueType::Int;
        n.i = v.i;
        n.d = v.asDouble();
        return n;
    }
    int compare(const Num &o) const
    {
        if (isInt && o.isInt)
            return i == o.i ? 0 : (i < o.i ? -1 : 1);
        return d == o.d ? 0 : (d < o.d ? -1 : 1);
    }
};

struct Group
{
    Timestamp fireAt = 0;
    Timestamp start = 0;
    Num best;
    std::vector<Record> rows; ///< arrival order; empty while spilled
    std::size_t bytes = 0;    ///< the rows' byteSize() when added (spilling only)
    bool spilled = false;     ///< the rows are in the spill store
    bool touched = false;     ///< a record reached the group since the last spill pass
};

using Groups = keys::KeyTable<Group>;

class Spill
{
public:
    void configure(state::StateBackendConfig cfg, std::string nodeId)
    {
        m_state = std::move(cfg);
        m_policy.configure(m_state);
        m_nodeId = std::move(nodeId);
    }
    const keys::SpillPolicy &policy() const { return m_policy; }
    bool tick() { return m_policy.tick(); }
    state::SpillStats stats(std::size_t groups) const
    {
        return m_policy.stats(static_cast<std::int64_t>(groups) - m_spilledGroups);
    }

    void addRow(Group &g, Record &&r)
    {
        if (m_policy.enabled()) {
            const std::size_t b = r.byteSize();
            g.bytes += b;
            m_rowBytes += b;
        }
        g.rows.push_back(std::move(r));
    }
    void clearRows(Group &g)
    {
        m_rowBytes -= g.bytes;
        g.bytes = 0;
        g.rows.clear();
    }

    /// Everything on disk goes (a restore starts over).
    void reset()
    {
        if (m_policy.entriesSpilled() > 0)
            m_state.store->eraseRange("G", "H");
        m_policy.reset();
        m_rowBytes = 0;
        m_spilledGroups = 0;
    }

    /// The rows of spilled group `gi` come back into memory.
    void readBack(Groups &groups, std::uint32_t gi)
    {
        Groups::Entry &e = groups.entry(gi);
        Group &g = e.value;
        const std::string &k = rowKey(g.fireAt, e.key);
        if (!m_state.store->get(k, m_value))
            throw std::runtime_error("node `" + m_nodeId
                                     + "`: spilled state of a top group is missing");
        StateReader r(m_value);
        (void)r.i64(); // the start, which stayed in memory
        for (std::uint64_t n = r.u64(); n > 0 && !r.failed(); --n) {
            Record rec;
            r.record(rec);
            addRow(g, std::move(rec));
        }
        m_state.store->erase(k);
        g.spilled = false;
        --m_spilledGroups;
        m_policy.readBack(1);
    }

    /// Over budget (keys::SpillPolicy): spill the groups no record reached since the last
    /// pass, then others in table order. Group entries stay where they are.
    void maybeSpill(Groups &groups)
    {
        std::optional<state::SpillStore::Batch> batch;
        auto spillOne = [&](Groups::Entry &e) {
            Group &g = e.value;
            StateWriter w(std::move(m_value));
            writeBody(w, g);
            m_value = w.take();
            batch->put(rowKey(g.fireAt, e.key), m_value);
            clearRows(g);
            g.rows.shrink_to_fit();
            g.spilled = true;
            ++m_spilledGroups;
            m_policy.spilled(1);
        };
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            for (std::uint32_t i = 0; i < groups.entryEnd(); ++i) {
                Groups::Entry &e = groups.entry(i);
                if (!e.used || e.value.spilled)
                    continue;
                if (e.value.touched)
                    e.value.touched = false;
                else
                    spillOne(e);
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (std::uint32_t i = 0; i < groups.entryEnd() && overTarget(); ++i) {
                Groups::Entry &e = groups.entry(i);
                if (e.used && !e.value.spilled)
                    spillOne(e);
            }
        };
        auto memory = [&] {
            const auto inMemory = static_cast<std::size_t>(static_cast<std::int64_t>(groups.size())
                                                           - m_spilledGroups);
            return m_rowBytes + inMemory * kGroupBytes;
        };
        if (m_policy.maybeSpill(memory, spillCold, spillMore))
            batch->commit();
    }

    /// The groups of `order` (every group, in firing order): key, completion time, body.
    void
    snapshot(StateWriter &w, const Groups &groups, const std::vector<std::uint32_t> &order) const
    {
        if (m_policy.entriesSpilled() == 0) {
            for (const std::uint32_t gi : order) {
                const Groups::Entry &e = groups.entry(gi);
                w.str(e.key);
                w.i64(e.value.fireAt);
                writeBody(w, e.value);
            }
            return;
        }
        // The groups in memory are copied here (their bodies as bytes); the writer thread
        // merges them with the store's rows, both in (completion time, key) order.
        std::vector<Kept> kept;
        StateWriter bodies;
        for (const std::uint32_t gi : order) {
            const Groups::Entry &e = groups.entry(gi);
            if (e.value.spilled)
                continue;
            const std::size_t begin = bodies.size();
            writeBody(bodies, e.value);
            kept.push_back({e.value.fireAt, e.key, begin, bodies.size()});
        }
        w.defer([snap = m_state.store->snapshot(), kept = std::move(kept),
                 bytes = bodies.take()](StateWriter &out) {
            std::size_t i = 0;
            auto put = [&](std::string_view key, Timestamp at, std::string_view body) {
                out.str(key);
                out.i64(at);
                out.bytes(body.data(), body.size());
            };
            auto putKept = [&](const Kept &k) {
                put(k.key, k.at, std::string_view(bytes).substr(k.begin, k.end - k.begin));
            };
            snap->scan([&](std::string_view k, std::string_view v) {
                if (k.size() < 1 + keys::kTimeKeyBytes || k[0] != 'G')
                    return;
                const Timestamp at = keys::readTimeKey(k.substr(1));
                const std::string_view key = k.substr(1 + keys::kTimeKeyBytes);
                for (; i < kept.size() && (kept[i].at != at ? kept[i].at < at : kept[i].key < key);
                     ++i)
                    putKept(kept[i]);
                put(key, at, v);
            });
            for (; i < kept.size(); ++i)
                putKept(kept[i]);
        });
    }

private:
    /// Memory a group in memory costs beside its rows (entry, slot, key; approximate).
    static constexpr std::size_t kGroupBytes = sizeof(Groups::Entry) + 48;

    struct Kept
    {
        Timestamp at;
        std::string key;
        std::size_t begin, end; ///< its body in the copied bytes
    };

    static void writeBody(StateWriter &w, const Group &g)
    {
        w.i64(g.start);
        w.u64(g.rows.size());
        for (const auto &r : g.rows)
            w.record(r);
    }

    const std::string &rowKey(Timestamp fireAt, std::string_view key)
    {
        m_rowKey.assign(1, 'G');
        keys::appendTimeKey(m_rowKey, fireAt);
        m_rowKey.append(key);
        return m_rowKey;
    }

    state::StateBackendConfig m_state; ///< settings.state (store null unless "rocksdb")
    keys::SpillPolicy m_policy;
    std::string m_nodeId;
    std::size_t m_rowBytes = 0; ///< rows in memory (spilling only)
    std::int64_t m_spilledGroups = 0;
    std::string m_rowKey, m_value;
};

} // namespace tideline::top
