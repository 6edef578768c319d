#pragma once
// SpillPolicy: when and how much keyed state leaves memory under settings.state "rocksdb",
// one policy for every spilling operator (both window kinds, dedup, join), so that a budget
// means the same thing on each node and the same SpillStats reach the metrics.
//
// The policy, as the window first did it and the others now share:
// - the budget is checked every kCheckEvery inserts, not per record: measuring memory walks
//   the operator's tables, and 256 inserts move it by a few KiB at most;
// - over budget, a pass first spills what no record reached since the last pass (a second
//   chance: a key that is hot keeps its place, at the cost of one bit per entry), then, if
//   that is not enough, spills more in the operator's own order (oldest first) until 3/4 of
//   the budget is in use, so that the next pass is a quarter of a budget of inserts away;
// - the counters (entries on disk, peak, passes, read-backs) are kept here.
// What an "entry" is and how it is written stays with the operator (a pane's key, a session
// key, a dedup key, a join key with its buffered records); the policy only calls back.
//
// [Threading] the pipeline loop only, like the operator that owns it.

#include "state/state_backend.hpp"

#include <tideline/engine/state_io.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace tideline::keys {

class SpillPolicy
{
public:
    static constexpr std::uint32_t kCheckEvery = 256;

    void configure(const state::StateBackendConfig &cfg)
    {
        m_enabled = cfg.store != nullptr;
        m_budget = cfg.memoryBudget;
    }
    bool enabled() const { return m_enabled; }
    std::size_t budget() const { return m_budget; }
    /// The memory a pass brings the state down to.
    std::size_t target() const { return m_budget / 4 * 3; }

    /// Counts one insert (or one record, for operators that check per record); true when the
    /// budget is due a check. Always false when spilling is off.
    bool tick() { return m_enabled && ++m_sinceCheck >= kCheckEvery; }

    /// Runs a pass if memoryBytes() is over the budget: spillCold() spills every entry not
    /// touched since the last pass and clears the others' bits; spillMore(over) then spills
    /// further entries, in the operator's order, while over() says memory is above target().
    /// Returns whether a pass ran (tables may have been rebuilt: handles are stale).
    template<class Memory, class SpillCold, class SpillMore>
    bool maybeSpill(Memory &&memoryBytes, SpillCold &&spillCold, SpillMore &&spillMore)
    {
        m_sinceCheck = 0;
        if (!m_enabled || memoryBytes() <= m_budget)
            return false;
        ++m_stats.spillPasses;
        spillCold();
        const std::size_t goal = target();
        spillMore([&] { return memoryBytes() > goal; });
        m_stats.peakEntriesSpilled = std::max(m_stats.peakEntriesSpilled, m_stats.entriesSpilled);
        return true;
    }

    void spilled(std::int64_t n) { m_stats.entriesSpilled += n; }
    /// n entries came back from disk into memory (on access, or before firing).
    void readBack(std::int64_t n)
    {
        m_stats.entriesSpilled -= n;
        m_stats.readBacks += n;
    }
    /// n entries left the disk without coming back (expired, purged, a pane dropped).
    void dropped(std::int64_t n) { m_stats.entriesSpilled -= n; }
    std::int64_t entriesSpilled() const { return m_stats.entriesSpilled; }

    /// The counters, with entriesInMemory filled in by the caller's count.
    state::SpillStats stats(std::int64_t entriesInMemory) const
    {
        state::SpillStats s = m_stats;
        s.entriesInMemory = entriesInMemory;
        return s;
    }
    void reset()
    {
        m_stats = {};
        m_sinceCheck = 0;
    }

private:
    bool m_enabled = false;
    std::size_t m_budget = 0;
    std::uint32_t m_sinceCheck = 0;
    state::SpillStats m_stats;
};

/// The spilled part of a snapshot, written the same way by every spilling operator: nothing
/// but the end mark 0 when nothing is on disk; otherwise the entries are read by the
/// checkpoint writer thread (a deferred part) through a RocksDB snapshot pinned here, at the
/// checkpoint's cut, while the loop goes on. writeEntry(out, key, value) writes one entry
/// (with its own lead byte) or nothing; the part ends with 0.
template<class WriteEntry>
void deferSpilledEntries(StateWriter &w,
                         const std::shared_ptr<state::SpillStore> &store,
                         bool anySpilled,
                         WriteEntry writeEntry)
{
    if (!store || !anySpilled) {
        w.u8(0);
        return;
    }
    w.defer([snap = store->snapshot(), writeEntry](StateWriter &out) {
        snap->scan([&](std::string_view k, std::string_view v) { writeEntry(out, k, v); });
        out.u8(0);
    });
}

} // namespace tideline::keys
