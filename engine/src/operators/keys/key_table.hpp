#pragma once
// KeyTable: the keyed-state toolkit's hash table for state that erases keys one by one (dedup,
// join, session keys, top groups, window_join's keys and pairs state, enrich): encoded key
// bytes to a value. Its probing is the toolkit's one scheme (slot_index.hpp: one hash, linear
// probing, load <= 3/4, backward-shift deletion), with wide slots: a key that is one integer is
// compared by the 8 bytes in its slot, so finding a repeated id touches only its slot. The
// aligned window's RowTable (row_table.hpp) is the same table with rows in place of entries.
//
// Entries live in a vector with a free list (LIFO, so a freed entry is reused while still
// cached), so an entry index is a stable handle (expiry queues refer to keys by it); keys up
// to 15 bytes (any single number) stay inside the std::string, and a freed entry keeps its
// buffer, so steady state allocates nothing per record. Callers may hash once and pass the
// hash in, and prefetch the slot of a key they will touch soon (expiry loops know their next
// victims in advance).

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/slot_index.hpp"

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
    static constexpr std::uint32_t kNone = SlotIndex<WideSlot>::kNone;

    struct Entry
    {
        std::string key;
        V value{};
        std::uint32_t hash = 0; ///< the slot tag (low 31 bits of hashBytes(key), inline bit)
        bool used = false;
    };

    explicit KeyTable(std::size_t expected = 1024) { m_index.reset(Index::capacityFor(expected)); }

    static std::uint64_t hashOf(std::string_view key) { return hashBytes(key); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    Entry &entry(std::uint32_t idx) { return m_entries[idx]; }
    const Entry &entry(std::uint32_t idx) const { return m_entries[idx]; }

    /// Hints the CPU to load the home slot of a key with hash `h` (no effect on results).
    void prefetch(std::uint64_t h) const { m_index.prefetch(h); }
    void prefetchEntry(std::uint32_t idx) const { __builtin_prefetch(&m_entries[idx]); }

    /// Index of the entry for `key`, or kNone.
    std::uint32_t find(std::string_view key) const { return find(key, hashOf(key)); }
    std::uint32_t find(std::string_view key, std::uint64_t h) const
    {
        return m_index.find(Probe(key, h),
                            [&](std::uint32_t e) { return m_entries[e].key == key; });
    }

    /// Inserts `key` -> `value` unless present. Returns (entry index, inserted).
    std::pair<std::uint32_t, bool> tryEmplace(std::string_view key, const V &value)
    {
        return tryEmplace(key, hashOf(key), value);
    }
    std::pair<std::uint32_t, bool> tryEmplace(std::string_view key, std::uint64_t h, const V &value)
    {
        const Probe p(key, h);
        std::uint32_t hole = 0;
        const std::uint32_t found = m_index.find(
            p, [&](std::uint32_t e) { return m_entries[e].key == key; }, hole);
        if (found != kNone)
            return {found, false};
        if (m_index.full(m_size)) {
            m_index.rehash(m_index.capacity() * 2);
            hole = m_index.holeFor(p.tag);
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
        m_index.place(hole, p, idx);
        ++m_size;
        return {idx, true};
    }

    /// Removes the entry `idx` (from tryEmplace/find).
    void erase(std::uint32_t idx)
    {
        Entry &e = m_entries[idx];
        m_index.erase(idx, e.hash);
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
        m_index.reset(Index::capacityFor(1024));
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
    using Index = SlotIndex<WideSlot>;
    using Probe = Index::Probe;

    Index m_index;
    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_free;
    std::size_t m_size = 0;
};

} // namespace tideline::keys
