#pragma once
// window_join's buffered state (window_join.cpp) and its spilling under settings.state
// "rocksdb". An entry of keys::SpillPolicy is a buffered record: a pass moves every record a
// window holds in memory to the node's spill store, windows no record reached since the last
// pass first, then the latest windows (they fire last); a window reads its records back when
// it fires, so memory briefly holds one window while it fires (as the aligned window does).
// left_semi's right keys stay in memory (a key set: small, and probed by every left record).
//
// Spill-store rows: "W" + start (keys/time_key.hpp) + "L" or "R" + 8-byte big-endian number
// -> the encoded key (StateWriter::str) and the record. Numbers count up per window and side,
// so a scan gives the left records in arrival order and each key's right records in arrival
// order; what is on disk arrived before what is in memory. Snapshots read the store on the
// loop (like the interval join) and are the same bytes wherever the records live: right
// records are written by key.
//
// [Threading] the pipeline loop only.

#include "operators/keys/key_table.hpp"
#include "operators/keys/spill_policy.hpp"
#include "operators/keys/time_key.hpp"
#include "operators/keys/window_set.hpp"
#include "state/state_backend.hpp"

#include <tideline/engine/record.hpp>
#include <tideline/engine/state_io.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tideline::window_join {

using RightRecords = keys::KeyTable<std::vector<Record>>;

struct Win
{
    std::vector<std::pair<std::string, Record>> left; ///< arrival order (after those on disk)
    /// left_semi: the right keys (open addressing, no node per key; q8 puts ~60,000
    /// auctions in a 10 s window)
    keys::KeyTable<char> rightKeys;
    RightRecords right{16};         ///< pairs: per key, arrival order (after those on disk)
    std::uint64_t leftSpilled = 0;  ///< left records on disk
    std::uint64_t rightSpilled = 0; ///< right records on disk (pairs)
    std::size_t bytes = 0;          ///< the records' bytes in memory
    std::size_t keyBytes = 0;       ///< left_semi's right keys
    bool touched = true;            ///< a record arrived since the last spill pass
};

/// Open windows by start; their firing times are in the operator's keys::ExpiryQueue.
using Windows = keys::WindowSet<Win>;

class Spill
{
public:
    void configure(state::StateBackendConfig cfg)
    {
        m_state = std::move(cfg);
        m_policy.configure(m_state);
    }
    const keys::SpillPolicy &policy() const { return m_policy; }
    bool tick() { return m_policy.tick(); }
    /// Memory held by buffered records and keys (approximate, as the other nodes count).
    std::size_t bytes() const { return m_bytes + m_keyBytes; }
    state::SpillStats stats(std::int64_t entries) const
    {
        return m_policy.stats(entries - m_policy.entriesSpilled());
    }

    static std::size_t entryBytes(std::string_view key, const Record &r)
    {
        return key.size() + r.byteSize() + kEntryBytes;
    }
    void added(Win &w, std::size_t bytes)
    {
        w.bytes += bytes;
        m_bytes += bytes;
    }
    void addedKey(Win &w, std::size_t keyBytes)
    {
        w.keyBytes += keyBytes + kEntryBytes;
        m_keyBytes += keyBytes + kEntryBytes;
    }
    /// A window fired: its memory is free.
    void fired(Win &w)
    {
        m_bytes -= w.bytes;
        m_keyBytes -= w.keyBytes;
        w.bytes = w.keyBytes = 0;
    }
    void reset()
    {
        if (m_policy.entriesSpilled() > 0)
            m_state.store->eraseRange("W", "X");
        m_policy.reset();
        m_bytes = m_keyBytes = 0;
    }

    /// Before `w` fires: its records on disk come back, in arrival order, before those in
    /// memory.
    void readBack(Timestamp start, Win &w)
    {
        if (w.leftSpilled + w.rightSpilled == 0)
            return;
        if (w.leftSpilled > 0) {
            std::vector<std::pair<std::string, Record>> all;
            all.reserve(w.leftSpilled + w.left.size());
            scan(start, 'L', [&](StateReader &r) {
                std::string key = r.str();
                Record rec;
                r.record(rec);
                added(w, entryBytes(key, rec));
                all.emplace_back(std::move(key), std::move(rec));
            });
            std::move(w.left.begin(), w.left.end(), std::back_inserter(all));
            w.left = std::move(all);
        }
        if (w.rightSpilled > 0) {
            RightRecords all(w.right.size() + 16);
            scan(start, 'R', [&](StateReader &r) {
                const std::string key = r.str();
                Record rec;
                r.record(rec);
                added(w, entryBytes(key, rec));
                all.entry(all.tryEmplace(key, {}).first).value.push_back(std::move(rec));
            });
            for (std::uint32_t i = 0; i < w.right.entryEnd(); ++i) {
                auto &e = w.right.entry(i);
                if (!e.used)
                    continue;
                auto &to = all.entry(all.tryEmplace(e.key, {}).first).value;
                std::move(e.value.begin(), e.value.end(), std::back_inserter(to));
            }
            w.right = std::move(all);
        }
        std::string begin, end;
        appendRowKey(begin, start, 'L', 0);
        appendRowKey(end, start, 'S', 0);
        m_state.store->eraseRange(begin, end);
        m_policy.readBack(static_cast<std::int64_t>(w.leftSpilled + w.rightSpilled));
        w.leftSpilled = w.rightSpilled = 0;
    }

    /// Over budget (keys::SpillPolicy): spill windows no record reached since the last pass,
    /// then the latest ones.
    void maybeSpill(Windows &windows)
    {
        std::optional<state::SpillStore::Batch> batch;
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            for (auto &[start, w] : windows) {
                if (w.touched)
                    w.touched = false;
                else
                    spillWindow(*batch, start, w);
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (auto it = windows.rbegin(); it != windows.rend() && overTarget(); ++it)
                spillWindow(*batch, it->first, it->second);
        };
        if (m_policy.maybeSpill([this] { return bytes(); }, spillCold, spillMore))
            batch->commit();
    }

    /// One window as a snapshot holds it: start, left records (key, record) in arrival order,
    /// the right keys (left_semi), right records by key (pairs: key, count, records).
    void writeWindow(StateWriter &out, Timestamp start, const Win &w) const
    {
        out.i64(start);
        out.u64(w.leftSpilled + w.left.size());
        if (w.leftSpilled > 0)
            scanRaw(start, 'L', [&](std::string_view v) { out.bytes(v.data(), v.size()); });
        for (const auto &[k, r] : w.left) {
            out.str(k);
            out.record(r);
        }
        out.u64(w.rightKeys.size());
        w.rightKeys.forEach([&](std::uint32_t, const auto &e) { out.str(e.key); });
        // Right records by key: the records on disk of a key first (arrival order), then
        // those in memory.
        std::map<std::string, std::vector<std::string>, std::less<>> disk;
        if (w.rightSpilled > 0)
            scanRaw(start, 'R', [&](std::string_view v) {
                StateReader r(v);
                const std::uint64_t n = r.u64();
                disk[std::string(v.substr(8, n))].emplace_back(v.substr(8 + n));
            });
        std::vector<std::pair<std::string_view, const std::vector<Record> *>> keys;
        w.right.forEach([&](std::uint32_t, const RightRecords::Entry &e) {
            keys.emplace_back(e.key, &e.value);
        });
        for (const auto &[k, recs] : disk)
            if (w.right.find(k) == RightRecords::kNone)
                keys.emplace_back(k, nullptr);
        std::sort(keys.begin(), keys.end());
        out.u64(keys.size());
        for (const auto &[k, recs] : keys) {
            const auto d = disk.find(k);
            const std::size_t onDisk = d == disk.end() ? 0 : d->second.size();
            out.str(k);
            out.u64(onDisk + (recs ? recs->size() : 0));
            for (std::size_t i = 0; i < onDisk; ++i)
                out.bytes(d->second[i].data(), d->second[i].size());
            if (recs)
                for (const auto &r : *recs)
                    out.record(r);
        }
    }

private:
    /// Per buffered record beside its key and record bytes (vector slot, table entry).
    static constexpr std::size_t kEntryBytes = 48;

    void spillWindow(state::SpillStore::Batch &batch, Timestamp start, Win &w)
    {
        std::int64_t n = 0;
        for (const auto &[k, r] : w.left) {
            batch.put(rowKey(start, 'L', w.leftSpilled++), value(k, r));
            ++n;
        }
        w.left.clear();
        w.left.shrink_to_fit();
        for (std::uint32_t i = 0; i < w.right.entryEnd(); ++i) {
            const auto &e = w.right.entry(i);
            if (!e.used)
                continue;
            for (const auto &r : e.value) {
                batch.put(rowKey(start, 'R', w.rightSpilled++), value(e.key, r));
                ++n;
            }
        }
        if (w.right.size() > 0)
            w.right = RightRecords(16);
        m_bytes -= w.bytes;
        w.bytes = 0;
        m_policy.spilled(n);
    }

    template<class F>
    void scanRaw(Timestamp start, char side, F &&f) const
    {
        std::string begin, end;
        appendRowKey(begin, start, side, 0);
        appendRowKey(end, start, static_cast<char>(side + 1), 0);
        m_state.store->scan(begin, end, [&](std::string_view, std::string_view v) { f(v); });
    }
    template<class F>
    void scan(Timestamp start, char side, F &&f) const
    {
        scanRaw(start, side, [&](std::string_view v) {
            StateReader r(v);
            f(r);
        });
    }

    static void appendRowKey(std::string &out, Timestamp start, char side, std::uint64_t n)
    {
        out.push_back('W');
        keys::appendTimeKey(out, start);
        out.push_back(side);
        for (int b = 7; b >= 0; --b)
            out.push_back(static_cast<char>(static_cast<std::uint8_t>(n >> (8 * b))));
    }
    const std::string &rowKey(Timestamp start, char side, std::uint64_t n)
    {
        m_rowKey.clear();
        appendRowKey(m_rowKey, start, side, n);
        return m_rowKey;
    }
    const std::string &value(std::string_view key, const Record &r)
    {
        StateWriter w(std::move(m_value));
        w.str(key);
        w.record(r);
        m_value = w.take();
        return m_value;
    }

    state::StateBackendConfig m_state; ///< settings.state (store null unless "rocksdb")
    keys::SpillPolicy m_policy;
    std::size_t m_bytes = 0;    ///< buffered records in memory
    std::size_t m_keyBytes = 0; ///< left_semi's right keys
    std::string m_rowKey, m_value;
};

} // namespace tideline::window_join
