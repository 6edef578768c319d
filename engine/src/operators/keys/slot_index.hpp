#pragma once
// SlotIndex: the one probing scheme of the keyed-state toolkit's hash table (keyed_table.hpp):
// a power-of-two array of slots, linear probing from the home slot, load at most 3/4,
// backward-shift deletion (no tombstones), arrays of a MiB and more on transparent huge pages
// (huge_array.hpp). The home slot and the slot's tag both come from the low 31 bits of
// hashBytes(key) (hash.hpp, the one hash), so a table grows and deletes without the key.
//
// What a slot holds beside the entry number is the one choice a table makes (its Slot type):
// - WideSlot (16 bytes) also keeps an integer key's 8 bytes (the encodings 0x03 + 8 bytes of
//   both key formats: event ids, user ids), so finding a repeated id touches only its slot:
//   for state that is mostly probed to check a key is there (dedup, join, top, sessions);
// - NarrowSlot (8 bytes) keeps only the tag: for the aligned window's panes, where every
//   lookup goes on to the entry's row anyway (to fold the record in), so the word would save
//   nothing and the array is half the size (at 100,000 keys per window it stays in L2).
// Key comparison beyond the tag (and the word) is the caller's: find/findOrInsert take a
// predicate "does entry e hold this key?".

#include "operators/keys/huge_array.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tideline::keys {

struct WideSlot
{
    static constexpr bool kHasWord = true;
    std::uint64_t word = 0; ///< an integer key's 8 bytes (when tag has the inline bit)
    std::uint32_t tag = 0;
    std::uint32_t entry = 0xffffffffu;
};

struct NarrowSlot
{
    static constexpr bool kHasWord = false;
    std::uint32_t tag = 0;
    std::uint32_t entry = 0xffffffffu;
};

template<class Slot>
class SlotIndex
{
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;
    static constexpr std::uint32_t kInline = 0x80000000u;
    static constexpr std::uint32_t kHashBits = 0x7fffffffu;

    /// What a lookup compares before the key bytes: the tag, and for integer keys the word.
    struct Probe
    {
        std::uint32_t tag;
        std::uint64_t word = 0;
        Probe(std::string_view key, std::uint64_t h)
            : tag(static_cast<std::uint32_t>(h) & kHashBits)
        {
            if (Slot::kHasWord && key.size() == 9 && key[0] == '\x03') { // an Int encoding
                tag |= kInline;
                std::memcpy(&word, key.data() + 1, 8);
            }
        }
    };

    /// The smallest capacity that holds n entries at load <= 3/4.
    static std::size_t capacityFor(std::size_t n)
    {
        std::size_t c = 16;
        while (c * 3 < n * 4)
            c *= 2;
        return c;
    }

    /// Empties the index, with room for `capacity` slots (a power of two).
    void reset(std::size_t capacity)
    {
        if (m_slots.size() != capacity)
            m_slots.assign(capacity, Slot{});
        else
            for (Slot &s : m_slots)
                s = Slot{};
        m_mask = static_cast<std::uint32_t>(capacity - 1);
    }

    std::size_t capacity() const { return m_slots.size(); }
    std::size_t bytes() const { return m_slots.size() * sizeof(Slot); }
    /// Whether one more entry (beyond `size`) would pass the 3/4 load.
    bool full(std::size_t size) const { return (size + 1) * 4 > m_slots.size() * 3; }

    void prefetch(std::uint64_t h) const
    {
        __builtin_prefetch(&m_slots[static_cast<std::uint32_t>(h) & kHashBits & m_mask]);
    }

    /// The entry of the home slot of a key with hash h when that slot's tag is the key's
    /// (most likely the key's entry: a hint's guess), else kNone.
    std::uint32_t homeEntry(std::uint64_t h) const
    {
        const auto tag = static_cast<std::uint32_t>(h) & kHashBits;
        const Slot &s = m_slots[tag & m_mask];
        return (s.tag & kHashBits) == tag ? s.entry : kNone;
    }

    /// The entry holding the probed key, or kNone. `equals(e)`: does entry e hold the key?
    template<class Eq>
    std::uint32_t find(const Probe &p, Eq &&equals) const
    {
        for (std::uint32_t i = p.tag & m_mask;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone)
                return kNone;
            if (matches(s, p, equals))
                return s.entry;
        }
    }

    /// The entry holding the probed key, or kNone with `hole` set to the empty slot where it
    /// would go (valid until the index changes; after a grow, call find again).
    template<class Eq>
    std::uint32_t find(const Probe &p, Eq &&equals, std::uint32_t &hole) const
    {
        for (std::uint32_t i = p.tag & m_mask;; i = (i + 1) & m_mask) {
            const Slot &s = m_slots[i];
            if (s.entry == kNone) {
                hole = i;
                return kNone;
            }
            if (matches(s, p, equals))
                return s.entry;
        }
    }

    /// The empty slot the probed key would go to (the key must be absent).
    std::uint32_t holeFor(std::uint32_t tag) const
    {
        std::uint32_t i = tag & m_mask;
        while (m_slots[i].entry != kNone)
            i = (i + 1) & m_mask;
        return i;
    }

    /// Puts `entry` into the empty slot `hole` (from find or holeFor).
    void place(std::uint32_t hole, const Probe &p, std::uint32_t entry)
    {
        Slot &s = m_slots[hole];
        if constexpr (Slot::kHasWord)
            s.word = p.word;
        s.tag = p.tag;
        s.entry = entry;
    }

    /// Removes `entry`, whose tag is `tag` (Probe::tag of its key).
    void erase(std::uint32_t entry, std::uint32_t tag)
    {
        std::uint32_t i = tag & m_mask;
        while (m_slots[i].entry != entry)
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
    }

    /// Doubles (or sets) the capacity, keeping every entry.
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

private:
    template<class Eq>
    static bool matches(const Slot &s, const Probe &p, Eq &equals)
    {
        if (s.tag != p.tag)
            return false;
        if constexpr (Slot::kHasWord)
            if (p.tag & kInline)
                return s.word == p.word;
        return equals(s.entry);
    }

    HugeArray<Slot> m_slots;
    std::uint32_t m_mask = 0;
};

} // namespace tideline::keys
