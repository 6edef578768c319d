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
// Rows are as small as a key and its cells allow, and start on a cache line when their size
// divides 64: at 10,000 keys per window the pane's rows are what a record waits for (the load
// of the row's header was 58 % of findOrInsert's samples with 96-byte rows, which then spilled
// out of a 1 MiB L2), so a count and a sum by an integer key fill exactly one 64-byte line:
// a 16-byte header (the key inline up to 12 bytes, its length, the spare bit) and two 24-byte
// AggStates. The hash is not kept: a table is only ever probed with keys::hashBytes of the key
// (the toolkit's one hash), so keepOnly hashes a kept key again.
//
// settings.state "rocksdb" uses the header's spare bit as the second-chance bit of
// keys::SpillPolicy (touch / touched / clearTouches) and keepOnly to drop spilled rows.

#include "operators/keys/hash.hpp"
#include "operators/keys/huge_array.hpp"
#include "operators/keys/slot_index.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tideline::keys {

/// Keys and their fixed-size cells (the aligned window: keys of one window, their accumulators).
///
/// Layout for speed: each entry is one row: a 16-byte header (the key itself when it fits in
/// 12 bytes, else its offset in an arena; the key's length and the spare bit), then the
/// aggregates' cells. A lookup therefore touches the slot array and one row: no separate key
/// arena or accumulator array for the usual short keys. `hash` is always hashBytes(key).
template<class Cell>
class RowTable
{
    static_assert(std::is_trivially_copyable_v<Cell> && alignof(Cell) <= 16,
                  "cells are copied as bytes and follow a 16-byte header");

public:
    RowTable() = default;
    RowTable(RowTable &&o) noexcept { swap(o); }
    RowTable &operator=(RowTable &&o) noexcept
    {
        swap(o);
        return *this;
    }
    RowTable(const RowTable &) = delete; // nothing copies a pane table
    RowTable &operator=(const RowTable &) = delete;

    void reset(std::size_t expected, std::size_t nCells)
    {
        m_stride = kHeader + nCells * sizeof(Cell);
        m_capacity = m_bytes / m_stride; // the same bytes hold rows of another width
        m_size = 0;
        m_keys.clear();
        m_index.reset(Index::capacityFor(expected + 1));
        reserveRows(expected);
    }

    std::uint32_t findOrInsert(std::string_view key, std::uint64_t hash, bool &created)
    {
        // The probe key, zero-padded, so that short keys compare as a word and a half.
        Header probe{};
        const bool small = key.size() <= kInlineKey;
        if (small && !key.empty())
            std::memcpy(&probe, key.data(), key.size());
        const auto lenBits = static_cast<std::uint32_t>(key.size()) << 1;
        const Probe p(key, hash);
        std::uint32_t hole = 0;
        const std::uint32_t found = m_index.find(
            p,
            [&](std::uint32_t idx) {
                const Header h = header(idx);
                return (h.meta & ~kTouched) == lenBits
                       && (small ? (h.w0 == probe.w0 && h.k1 == probe.k1)
                                 : std::memcmp(m_keys.data() + h.w0, key.data(), key.size()) == 0);
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
        if (m_size == m_capacity)
            reserveRows(m_capacity ? m_capacity * 2 : 16);
        Header h = probe; // not touched (a pass's keepOnly relies on it: "with their bits cleared")
        h.meta = lenBits;
        if (!small) {
            h.w0 = m_keys.size();
            h.k1 = 0;
            m_keys.append(key);
        }
        std::byte *row = rowAt(idx);
        std::memcpy(row, &h, kHeader);
        std::memset(row + kHeader, 0, m_stride - kHeader); // the cells as Cell{}: all zero
        ++m_size;
        m_index.place(hole, p, idx);
        created = true;
        return idx;
    }

    std::size_t size() const { return m_size; }
    std::string_view key(std::uint32_t i) const
    {
        // Short keys live in the header itself (stable until the table changes); its bytes
        // are read as chars, which may alias anything.
        const Header h = header(i);
        const std::size_t len = h.meta >> 1;
        if (len <= kInlineKey)
            return {reinterpret_cast<const char *>(rowAt(i)), len};
        return {m_keys.data() + h.w0, len};
    }
    Cell *acc(std::uint32_t i) { return reinterpret_cast<Cell *>(rowAt(i) + kHeader); }
    const Cell *acc(std::uint32_t i) const
    {
        return reinterpret_cast<const Cell *>(rowAt(i) + kHeader);
    }
    std::size_t longKeyBytes() const { return m_keys.size(); }
    /// Hints the CPU to load entry i's row (its first and last byte: a row may span two
    /// cache lines). No effect on results.
    void prefetch(std::uint32_t i) const
    {
        const std::byte *row = rowAt(i);
        // GCC 12 drops a prefetch whose address comes from a load nothing else uses (the slot
        // prefetchRowOf reads: it compiled to nothing); the empty asm is that use.
        asm volatile("" : : "r"(row));
        __builtin_prefetch(row);
        __builtin_prefetch(row + m_stride - 1);
    }

    /// Hints for a lookup of a key with this hash a few records from now: first its home
    /// slot, then (once that is in cache) the row the slot names when its tag is the key's.
    /// No effect on results; the tag check only keeps a wrong guess from costing a miss.
    void prefetchSlot(std::uint64_t hash) const { m_index.prefetch(hash); }
    void prefetchRowOf(std::uint64_t hash) const
    {
        const std::uint32_t entry = m_index.homeEntry(hash);
        if (entry < m_size)
            prefetch(entry);
    }

    // settings.state "rocksdb": a second-chance bit per entry (the header's spare bit), set
    // when a record reaches the entry, cleared by an eviction pass that keeps it.
    void touch(std::uint32_t i) { metaOf(i) |= kTouched; }
    bool touched(std::uint32_t i) const { return (header(i).meta & kTouched) != 0; }
    void clearTouches()
    {
        for (std::uint32_t i = 0; i < m_size; ++i)
            metaOf(i) &= ~kTouched;
    }
    /// Keeps only the entries listed (in that order), with their bits cleared; memory is
    /// given back (a fresh, right-sized table).
    void keepOnly(const std::vector<std::uint32_t> &keep, std::size_t nCells)
    {
        RowTable t;
        t.reset(keep.size(), nCells);
        for (std::uint32_t i : keep) {
            bool created = false;
            const std::string_view k = key(i);
            const std::uint32_t j = t.findOrInsert(k, hashBytes(k), created);
            std::memcpy(static_cast<void *>(t.acc(j)), acc(i), nCells * sizeof(Cell));
        }
        *this = std::move(t);
    }
    std::size_t bytes() const { return m_index.bytes() + m_bytes + m_keys.capacity(); }

private:
    struct Header
    {
        std::uint64_t w0;   ///< key bytes 0-7 when len <= 12 (zero-padded), else its arena offset
        std::uint32_t k1;   ///< key bytes 8-11 (zero-padded), or 0
        std::uint32_t meta; ///< len << 1 | the spare (touched) bit
    };
    static constexpr std::size_t kHeader = sizeof(Header);
    static constexpr std::size_t kInlineKey = 12;
    static constexpr std::uint32_t kTouched = 1;
    static_assert(kHeader == 16 && kHeader % alignof(Cell) == 0
                  && sizeof(Cell) % alignof(Cell) == 0);

    struct Free
    {
        void operator()(std::byte *p) const { std::free(p); }
    };

    std::byte *rowAt(std::uint32_t i) { return m_rows.get() + std::size_t(i) * m_stride; }
    const std::byte *rowAt(std::uint32_t i) const
    {
        return m_rows.get() + std::size_t(i) * m_stride;
    }
    Header header(std::uint32_t i) const
    {
        Header h;
        std::memcpy(&h, rowAt(i), sizeof h);
        return h;
    }
    std::uint32_t &metaOf(std::uint32_t i)
    {
        return *reinterpret_cast<std::uint32_t *>(rowAt(i) + offsetof(Header, meta));
    }

    /// Room for `rows` rows of the current stride, keeping the rows there are (allocateTable:
    /// cache-line aligned, on huge pages from 1 MiB on).
    void reserveRows(std::size_t rows)
    {
        if (rows <= m_capacity && m_rows)
            return;
        std::size_t bytes = rows * m_stride;
        auto *p = static_cast<std::byte *>(allocateTable(bytes));
        if (m_size)
            std::memcpy(p, m_rows.get(), m_size * m_stride);
        m_rows.reset(p);
        m_bytes = bytes;
        m_capacity = bytes / m_stride;
    }
    void swap(RowTable &o) noexcept
    {
        std::swap(m_index, o.m_index);
        std::swap(m_rows, o.m_rows);
        std::swap(m_keys, o.m_keys);
        std::swap(m_stride, o.m_stride);
        std::swap(m_size, o.m_size);
        std::swap(m_capacity, o.m_capacity);
        std::swap(m_bytes, o.m_bytes);
    }

    using Index = SlotIndex<NarrowSlot>;
    using Probe = Index::Probe;

    Index m_index;
    std::unique_ptr<std::byte[], Free> m_rows; ///< m_stride bytes per entry: header, then cells
    std::string m_keys;                        ///< keys longer than 12 bytes
    std::size_t m_stride = kHeader;
    std::size_t m_size = 0;
    std::size_t m_capacity = 0; ///< rows m_rows has room for
    std::size_t m_bytes = 0;    ///< m_rows' size
};

} // namespace tideline::keys
