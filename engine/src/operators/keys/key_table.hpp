#pragma once
// KeyTable: an open-addressing hash table from encoded key bytes to a value, for the hot paths
// of keyed state that erases keys one by one (dedup, join, session keys, top groups,
// window_join's keys and pairs state, enrich). Compared with std::unordered_map it avoids the
// modulo by a prime and the pointer chase to a separately allocated node.
//
// Layout, chosen for cache misses (the cost that dominates once state outgrows L2):
// - slots are 16 bytes, {key word, tag, entry index}, linear probing in a power-of-two array
//   (load <= 0.7); the home index and the tag come from the low 31 bits of the hash. A key
//   that is one integer (the encoding 0x03 + 8 bytes: event ids, user ids) is compared by the
//   word in the slot (tag bit 31 says so), so finding a repeated id touches only its slot;
//   other keys compare key bytes in the entry, and only on equal tags;
// - entries live in a vector with a free list (LIFO, so a freed entry is reused while still
//   cached), so an entry index is a stable handle (expiry queues refer to keys by it); keys up
//   to 15 bytes (any single number) stay inside the std::string, and a freed entry keeps its
//   buffer, so steady state allocates nothing per record;
// - callers may hash once and pass the hash in, and prefetch the slot of a key they will
//   touch soon (expiry loops know their next victims in advance).
// Deletion uses backward shifting, so no tombstones accumulate. Slot arrays of a MiB and more
// ask for transparent huge pages (huge_array.hpp).

#include "operators/keys/huge_array.hpp"
#include "operators/keys/key_encoder.hpp"

#include <cstdint>
#include <cstring>
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
        V value{};
        std::uint32_t hash = 0; ///< the slot tag (low 31 bits of hashBytes(key), inline bit)
        bool used = false;
    };

    explicit KeyTable(std::size_t expected = 1024) { rehash(capacityFor(expected)); }

    static std::uint64_t hashOf(std::string_view key) { return hashBytes(key); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    Entry &entry(std::uint32_t idx) { return m_entries[idx]; }
    const Entry &entry(std::uint32_t idx) const { return m_entries[idx]; }

    /// Hints the CPU to load the home slot of a key with hash `h` (no effect on results).
    void prefetch(std::uint64_t h) const
    {
        __builtin_prefetch(&m_slots[static_cast<std::uint32_t>(h) & kHashBits & m_mask]);
    }
    void prefetchEntry(std::uint32_t idx) const { __builtin_prefetch(&m_entries[idx]); }

    /// Index of the entry for `key`, or kNone.
    std::uint32_t find(std::string_view key) const { return find(key, hashOf(key)); }
    std::uint32_t find(std::string_view key, std::uint64_t h) const
    {
        const Probe p(key, h);
        for (std::uint32_t i = p.tag & m_mask;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone)
                return kNone;
            if (matches(s, p, key))
                return s.entry;
        }
    }

    /// Inserts `key` -> `value` unless present. Returns (entry index, inserted).
    std::pair<std::uint32_t, bool> tryEmplace(std::string_view key, const V &value)
    {
        return tryEmplace(key, hashOf(key), value);
    }
    std::pair<std::uint32_t, bool> tryEmplace(std::string_view key, std::uint64_t h, const V &value)
    {
        const Probe p(key, h);
        std::uint32_t i = p.tag & m_mask;
        for (;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone)
                break;
            if (matches(s, p, key))
                return {s.entry, false};
        }
        if ((m_size + 1) * 10 > m_slots.size() * 7) {
            rehash(m_slots.size() * 2);
            for (i = p.tag & m_mask; m_slots[i].entry != kNone; i = (i + 1) & m_mask) {
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
        e.key.assign(key); // reuses the freed entry's buffer
        e.hash = p.tag;
        e.value = value;
        e.used = true;
        m_slots[i] = {p.word, p.tag, idx};
        ++m_size;
        return {idx, true};
    }

    /// Removes the entry `idx` (from tryEmplace/find).
    void erase(std::uint32_t idx)
    {
        Entry &e = m_entries[idx];
        std::uint32_t i = e.hash & m_mask;
        while (m_slots[i].entry != idx)
            i = (i + 1) & m_mask;
        // Backward-shift deletion: move later members of the probe run into the hole.
        std::uint32_t j = i;
        while (true) {
            j = (j + 1) & m_mask;
            if (m_slots[j].entry == kNone)
                break;
            const std::uint32_t home = m_slots[j].tag & m_mask;
            // Can slot j's entry move to i? Only if its home is not in (i, j] (cyclically).
            const bool homeBetween = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!homeBetween) {
                m_slots[i] = m_slots[j];
                i = j;
            }
        }
        m_slots[i] = Slot{};
        e.used = false;
        e.key.clear();
        e.value = V{};
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

    /// One past the highest entry index in use (entries below it may be free: check `used`).
    std::uint32_t entryEnd() const { return static_cast<std::uint32_t>(m_entries.size()); }

    template<class F>
    void forEach(F &&f) const
    {
        for (std::uint32_t k = 0; k < m_entries.size(); ++k)
            if (m_entries[k].used)
                f(k, m_entries[k]);
    }

private:
    static constexpr std::uint32_t kInline = 0x80000000u;
    static constexpr std::uint32_t kHashBits = 0x7fffffffu;

    struct Slot
    {
        std::uint64_t word = 0; ///< an integer key's 8 bytes (when tag has kInline)
        std::uint32_t tag = 0;
        std::uint32_t entry = kNone;
    };

    /// What a lookup compares: the tag, and for integer keys the word.
    struct Probe
    {
        std::uint32_t tag;
        std::uint64_t word = 0;
        Probe(std::string_view key, std::uint64_t h)
            : tag(static_cast<std::uint32_t>(h) & kHashBits)
        {
            if (key.size() == 9 && key[0] == '\x03') { // appendValue's Int encoding
                tag |= kInline;
                std::memcpy(&word, key.data() + 1, 8);
            }
        }
    };

    bool matches(const Slot &s, const Probe &p, std::string_view key) const
    {
        if (s.tag != p.tag)
            return false;
        return (p.tag & kInline) ? s.word == p.word : m_entries[s.entry].key == key;
    }

    static std::size_t capacityFor(std::size_t n)
    {
        std::size_t c = 16;
        while (c * 7 < n * 10)
            c *= 2;
        return c;
    }

    void rehash(std::size_t capacity)
    {
        HugeArray<Slot> old = std::move(m_slots);
        m_slots.assign(capacity, Slot{});
        m_mask = static_cast<std::uint32_t>(capacity - 1);
        for (const Slot &s : old) {
            if (s.entry == kNone)
                continue;
            std::uint32_t i = s.tag & m_mask;
            while (m_slots[i].entry != kNone)
                i = (i + 1) & m_mask;
            m_slots[i] = s;
        }
    }

    HugeArray<Slot> m_slots;
    std::uint32_t m_mask = 0;
    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_free;
    std::size_t m_size = 0;
};

} // namespace tideline::keys
