#pragma once
// KeyTable: an open-addressing hash table from encoded key bytes to a value, for the hot paths
// of dedup (and any node keeping per-key state). Compared with std::unordered_map it avoids the
// modulo by a prime and the pointer chase to a separately allocated node: a lookup probes a
// flat array of (hash, entry) slots (linear probing, power-of-two capacity, load <= 1/2) and
// compares key bytes only when the 64-bit hashes are equal. Entries live in a vector with a
// free list, so an entry index is a stable handle (timers refer to keys by it). Deletion uses
// backward shifting, so no tombstones accumulate.

#include "operators/keys/key_encoder.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tideline::keys {

template<class V>
class KeyTable
{
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;

    struct Entry
    {
        std::string key;
        std::uint64_t hash = 0;
        V value{};
        bool used = false;
    };

    explicit KeyTable(std::size_t expected = 1024) { rehash(capacityFor(expected)); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    Entry &entry(std::uint32_t idx) { return m_entries[idx]; }
    const Entry &entry(std::uint32_t idx) const { return m_entries[idx]; }

    /// Index of the entry for `key`, or kNone.
    std::uint32_t find(std::string_view key) const
    {
        const std::uint64_t h = hashBytes(key);
        for (std::uint64_t i = h & m_mask;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone)
                return kNone;
            if (s.hash == h && m_entries[s.entry].key == key)
                return s.entry;
        }
    }

    /// Inserts `key` -> `value` unless present. Returns (entry index, inserted).
    std::pair<std::uint32_t, bool> tryEmplace(std::string_view key, const V &value)
    {
        const std::uint64_t h = hashBytes(key);
        std::uint64_t i = h & m_mask;
        for (;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone)
                break;
            if (s.hash == h && m_entries[s.entry].key == key)
                return {s.entry, false};
        }
        if ((m_size + 1) * 2 > m_slots.size()) {
            rehash(m_slots.size() * 2);
            for (i = h & m_mask; m_slots[i].entry != kNone; i = (i + 1) & m_mask) {
            }
        }
        std::uint32_t idx;
        if (!m_free.empty()) {
            idx = m_free.back();
            m_free.pop_back();
        } else {
            idx = static_cast<std::uint32_t>(m_entries.size());
            m_entries.emplace_back();
        }
        Entry &e = m_entries[idx];
        e.key.assign(key);
        e.hash = h;
        e.value = value;
        e.used = true;
        m_slots[i] = {h, idx};
        ++m_size;
        return {idx, true};
    }

    /// Removes the entry `idx` (from tryEmplace/find).
    void erase(std::uint32_t idx)
    {
        Entry &e = m_entries[idx];
        std::uint64_t i = e.hash & m_mask;
        while (m_slots[i].entry != idx)
            i = (i + 1) & m_mask;
        // Backward-shift deletion: move later members of the probe run into the hole.
        std::uint64_t j = i;
        while (true) {
            j = (j + 1) & m_mask;
            if (m_slots[j].entry == kNone)
                break;
            std::uint64_t home = m_slots[j].hash & m_mask;
            // Can slot j's entry move to i? Only if its home is not in (i, j] (cyclically).
            bool homeBetween = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!homeBetween) {
                m_slots[i] = m_slots[j];
                i = j;
            }
        }
        m_slots[i] = {0, kNone};
        e.used = false;
        e.key.clear();
        e.key.shrink_to_fit();
        m_free.push_back(idx);
        --m_size;
    }

    void clear()
    {
        m_entries.clear();
        m_free.clear();
        m_size = 0;
        rehash(capacityFor(1024));
    }

    template<class F>
    void forEach(F &&f) const
    {
        for (std::uint32_t k = 0; k < m_entries.size(); ++k)
            if (m_entries[k].used)
                f(k, m_entries[k]);
    }

private:
    struct Slot
    {
        std::uint64_t hash = 0;
        std::uint32_t entry = kNone;
    };

    static std::size_t capacityFor(std::size_t n)
    {
        std::size_t c = 16;
        while (c < n * 2)
            c *= 2;
        return c;
    }

    void rehash(std::size_t capacity)
    {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(capacity, Slot{});
        m_mask = capacity - 1;
        for (const Slot &s : old) {
            if (s.entry == kNone)
                continue;
            std::uint64_t i = s.hash & m_mask;
            while (m_slots[i].entry != kNone)
                i = (i + 1) & m_mask;
            m_slots[i] = s;
        }
    }

    std::vector<Slot> m_slots;
    std::uint64_t m_mask = 0;
    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_free;
    std::size_t m_size = 0;
};

} // namespace tideline::keys
