#pragma once
// The interval join's buffered state (join.cpp) and its spilling under settings.state
// "rocksdb": a pass of keys::SpillPolicy moves the flat blocks of cold keys to the node's spill
// store (RocksDB key = the entry index, 4 bytes big-endian; value = the block as it was in
// memory), and the links, keys and expiry timers stay, so matching and eviction still walk
// every entry and read a block back only when they need its record. m_bytes (owned by the
// operator) counts what is in memory; a spilled entry's block bytes are not in it.
//
// [Threading] the pipeline loop only.

#include "operators/join/flat_record.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/keys/spill_policy.hpp"
#include "state/state_backend.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::join {

constexpr std::uint32_t kNone = 0xffffffffu;

/// Per-key state: for each side, a list of buffered entries in arrival order (the order in
/// which a new record meets its partners, hence the order of the pairs it emits).
struct KeyState
{
    std::uint32_t head[2] = {kNone, kNone};
    std::uint32_t tail[2] = {kNone, kNone};
    std::uint32_t count = 0;
    std::uint32_t spilled = 0; ///< of count, entries whose block is in the spill store
    bool touched = true;       ///< a record of the key arrived since the last spill pass
};

/// What the match scan reads of a buffered entry (24 bytes; the record itself, a flat block in
/// output form, is touched only when it matches).
struct Link
{
    Timestamp t = 0;
    std::uint32_t next = kNone;
    std::uint32_t prev = kNone;
    char *block = nullptr; ///< the record written by m_codec[side], from m_blocks (null: spilled)
};

struct Meta
{
    std::uint32_t key = kNone; ///< entry of the key in the key table
    std::uint8_t side = 0;
    bool matched = false;
};

using Keys = keys::KeyTable<KeyState>;

class Spill
{
public:
    Spill(Keys &keys,
          std::vector<Link> &links,
          std::vector<Meta> &meta,
          flat::BlockPool &blocks,
          std::size_t &bytes)
        : m_keys(keys)
        , m_links(links)
        , m_meta(meta)
        , m_blocks(blocks)
        , m_bytes(bytes)
    {
    }

    void configure(state::StateBackendConfig cfg)
    {
        m_state = std::move(cfg);
        m_policy.configure(m_state);
    }
    keys::SpillPolicy &policy() { return m_policy; }
    const keys::SpillPolicy &policy() const { return m_policy; }

    /// What the budget is compared with (and the node's state_bytes): memory only.
    std::size_t memoryBytes() const { return m_bytes + m_keys.size() * 64; }

    /// Before a restore: nothing on disk, counters at zero.
    void reset()
    {
        if (m_policy.entriesSpilled() > 0)
            m_state.store->eraseRange(std::string(4, '\0'), std::string(5, '\xff'));
        m_policy.reset();
    }

    /// Entry `idx`'s spilled block, read into `buf` (snapshots); the entry stays spilled.
    const char *read(std::uint32_t idx, std::string &buf) const
    {
        char k[4];
        if (!m_state.store->get(diskKey(idx, k), buf))
            throw std::runtime_error("node join: a spilled record is missing");
        return buf.data();
    }

    /// Brings entry `idx`'s block back into memory (it matches, or is emitted unmatched).
    void load(std::uint32_t idx)
    {
        char k[4];
        if (!m_state.store->get(diskKey(idx, k), m_value))
            throw std::runtime_error("node join: a spilled record is missing");
        char *block = m_blocks.take(m_value.size());
        std::memcpy(block, m_value.data(), m_value.size());
        m_links[idx].block = block;
        m_bytes += m_value.size();
        --m_keys.entry(m_meta[idx].key).value.spilled;
        m_state.store->erase(std::string_view(k, 4));
        m_policy.readBack(1);
    }

    /// Forgets entry `idx`'s spilled block (evicted without being needed); the deletes of one
    /// watermark advance go in one batch (commitDrops).
    void drop(std::uint32_t idx)
    {
        if (!m_drops)
            m_drops.emplace(*m_state.store);
        char k[4];
        m_drops->erase(diskKey(idx, k));
        --m_keys.entry(m_meta[idx].key).value.spilled;
        m_policy.dropped(1);
    }
    void commitDrops()
    {
        if (m_drops) {
            m_drops->commit();
            m_drops.reset();
        }
    }

    /// Over budget (keys::SpillPolicy): spill the records of keys no record reached since the
    /// last pass, then of more keys in table order.
    void maybeSpill()
    {
        std::optional<state::SpillStore::Batch> batch;
        auto spillKey = [&](KeyState &ks) {
            for (int side : {0, 1}) {
                for (std::uint32_t e = ks.head[side]; e != kNone; e = m_links[e].next) {
                    char *block = m_links[e].block;
                    if (block == nullptr)
                        continue;
                    const std::uint32_t size = flat::header(block).size;
                    char k[4];
                    batch->put(diskKey(e, k), std::string_view(block, size));
                    flat::BlockPool::drop(block); // freed for good: spilled state leaves memory
                    m_links[e].block = nullptr;
                    m_bytes -= size;
                    ++ks.spilled;
                    m_policy.spilled(1);
                }
            }
        };
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            for (std::uint32_t k = 0; k < m_keys.entryEnd(); ++k) {
                if (!m_keys.entry(k).used)
                    continue;
                KeyState &ks = m_keys.entry(k).value;
                if (ks.touched)
                    ks.touched = false;
                else if (ks.spilled < ks.count)
                    spillKey(ks);
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (std::uint32_t k = 0; k < m_keys.entryEnd() && overTarget(); ++k) {
                KeyState &ks = m_keys.entry(k).value;
                if (m_keys.entry(k).used && ks.spilled < ks.count)
                    spillKey(ks);
            }
        };
        if (m_policy.maybeSpill([this] { return memoryBytes(); }, spillCold, spillMore))
            batch->commit();
    }

private:
    static std::string_view diskKey(std::uint32_t idx, char (&b)[4])
    {
        for (int i = 3; i >= 0; --i, idx >>= 8)
            b[i] = static_cast<char>(idx & 0xff);
        return {b, 4};
    }

    Keys &m_keys;
    std::vector<Link> &m_links;
    std::vector<Meta> &m_meta;
    flat::BlockPool &m_blocks;
    std::size_t &m_bytes;
    state::StateBackendConfig m_state; ///< settings.state (store null unless "rocksdb")
    keys::SpillPolicy m_policy;
    std::optional<state::SpillStore::Batch> m_drops;
    std::string m_value;
};

} // namespace tideline::join
