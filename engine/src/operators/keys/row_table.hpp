#pragma once
// RowTable: the keyed-state toolkit's hash table (one hash, one probing scheme: slot_index.hpp)
// with rows in place of entries, for the aligned window's panes (one per window), the hottest
// structure of a window at many keys. Insert-only with a reset: a pane's keys all live until
// the pane is dropped, so there is no erase and rows stay in insertion order (firing sorts
// them by key; a snapshot writes them in that order, which keeps snapshots canonical for a
// given input). KeyTable (key_table.hpp) is the same probing over entries that can be erased
// one by one (dedup, join, session keys, top groups, window_join); the two differ only in what
// one probe touches: here narrow slots (every lookup goes on to its row to fold the record
// in, so a slot need not hold the key) and a key and its cells in one row.
//
// settings.state "rocksdb" uses the header's spare word as the second-chance bit of
// keys::SpillPolicy (touch / touched / clearTouches) and keepOnly to drop spilled rows.

#include "operators/keys/slot_index.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tideline::keys {

/// Keys and their fixed-size cells (the aligned window: keys of one window, their accumulators).
///
/// Layout for speed: each entry is one row of Cell-sized cells, the first cell holding the
/// entry's header (hash, key length, and the key itself when it fits in 16 bytes, else its
/// offset in an arena), the following cells the aggregates. A lookup therefore touches the slot
/// array and one row: no separate key arena or accumulator array for the usual short keys.
template<class Cell>
class RowTable
{
public:
    void reset(std::size_t expected, std::size_t nCells)
    {
        m_stride = 1 + nCells;
        m_size = 0;
        m_rows.clear();
        m_keys.clear();
        m_index.reset(Index::capacityFor(expected + 1));
        m_rows.reserve(expected * m_stride);
    }

    std::uint32_t findOrInsert(std::string_view key, std::uint64_t hash, bool &created)
    {
        // The probe key, zero-padded, so that short keys compare as two words.
        std::uint64_t probe[2] = {0, 0};
        const bool small = key.size() <= sizeof probe;
        if (small && !key.empty())
            std::memcpy(probe, key.data(), key.size());
        const Probe p(key, hash);
        std::uint32_t hole = 0;
        const std::uint32_t found = m_index.find(
            p,
            [&](std::uint32_t idx) {
                const Header h = header(idx);
                return h.len == key.size()
                       && (small ? (h.inl[0] == probe[0] && h.inl[1] == probe[1])
                                 : std::memcmp(m_keys.data() + h.inl[0], key.data(), h.len) == 0);
            },
            hole);
        if (found != Index::kNone) {
            created = false;
            return found;
        }
        if (m_index.full(m_size)) {
            m_index.rehash(m_index.capacity() * 2);
            hole = m_index.holeFor(p.tag);
        }
        const auto idx = static_cast<std::uint32_t>(m_size);
        Header h;
        h.hash = hash;
        h.pad = 0; // not touched (a pass's keepOnly relies on it: "with their bits cleared")
        h.len = static_cast<std::uint32_t>(key.size());
        if (small) {
            h.inl[0] = probe[0];
            h.inl[1] = probe[1];
        } else {
            h.inl[0] = m_keys.size();
            h.inl[1] = 0;
            m_keys.append(key);
        }
        m_rows.resize(m_rows.size() + m_stride);
        std::memcpy(static_cast<void *>(&m_rows[idx * m_stride]), &h, sizeof h);
        ++m_size;
        m_index.place(hole, p, idx);
        created = true;
        return idx;
    }

    std::size_t size() const { return m_size; }
    std::string_view key(std::uint32_t i) const
    {
        // Short keys live in the header cell itself (stable until the table changes); the
        // cell's bytes are read as chars, which may alias anything.
        const char *cell = reinterpret_cast<const char *>(&m_rows[i * m_stride]);
        const Header h = header(i);
        if (h.len <= 16)
            return {cell + offsetof(Header, inl), h.len};
        return {m_keys.data() + h.inl[0], h.len};
    }
    Cell *acc(std::uint32_t i) { return m_rows.data() + std::size_t(i) * m_stride + 1; }
    const Cell *acc(std::uint32_t i) const { return m_rows.data() + std::size_t(i) * m_stride + 1; }
    std::size_t longKeyBytes() const { return m_keys.size(); }
    /// Hints the CPU to load entry i's row (its first and last cell: a row may span two
    /// cache lines). No effect on results.
    void prefetch(std::uint32_t i) const
    {
        const Cell *row = m_rows.data() + std::size_t(i) * m_stride;
        __builtin_prefetch(row);
        __builtin_prefetch(row + m_stride - 1);
    }

    // settings.state "rocksdb": a second-chance bit per entry (the header's spare word), set
    // when a record reaches the entry, cleared by an eviction pass that keeps it.
    void touch(std::uint32_t i)
    {
        const std::uint32_t one = 1;
        std::memcpy(reinterpret_cast<char *>(&m_rows[i * m_stride]) + offsetof(Header, pad), &one,
                    sizeof one);
    }
    bool touched(std::uint32_t i) const { return header(i).pad != 0; }
    void clearTouches()
    {
        const std::uint32_t zero = 0;
        for (std::uint32_t i = 0; i < m_size; ++i)
            std::memcpy(reinterpret_cast<char *>(&m_rows[i * m_stride]) + offsetof(Header, pad),
                        &zero, sizeof zero);
    }
    /// Keeps only the entries listed (in that order), with their bits cleared; memory is
    /// given back (a fresh, right-sized table).
    void keepOnly(const std::vector<std::uint32_t> &keep, std::size_t nCells)
    {
        RowTable t;
        t.reset(keep.size(), nCells);
        for (std::uint32_t i : keep) {
            bool created = false;
            const std::uint32_t j = t.findOrInsert(key(i), header(i).hash, created);
            std::memcpy(static_cast<void *>(t.acc(j)), acc(i), nCells * sizeof(Cell));
        }
        *this = std::move(t);
    }
    std::size_t bytes() const
    {
        return m_index.bytes() + m_rows.capacity() * sizeof(Cell) + m_keys.capacity();
    }

private:
    struct Header
    {
        std::uint64_t hash;
        std::uint32_t len;
        std::uint32_t pad;
        std::uint64_t inl[2]; ///< the key when len <= 16 (zero-padded), else {arena offset, 0}
    };
    static_assert(sizeof(Header) == sizeof(Cell) && std::is_trivially_copyable_v<Cell>,
                  "a row's first cell holds the header");

    Header header(std::uint32_t i) const
    {
        Header h;
        std::memcpy(&h, &m_rows[i * m_stride], sizeof h);
        return h;
    }

    using Index = SlotIndex<NarrowSlot>;
    using Probe = Index::Probe;

    Index m_index;
    std::vector<Cell> m_rows; ///< m_stride cells per entry: header, then the aggregates
    std::string m_keys;       ///< keys longer than 16 bytes
    std::size_t m_stride = 1;
    std::size_t m_size = 0;
};

} // namespace tideline::keys
