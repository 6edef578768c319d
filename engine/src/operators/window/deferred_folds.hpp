#pragma once
// DeferredFolds: the aligned window's records that only fold into a pane, held back for a few
// records so that their rows are fetched together (aligned_window.cpp).
//
// Why: at parallelism 1 records reach the window one at a time, and each one's row is a random
// line of a pane that, at 10,000 keys and more, lives in L3 or memory (the file's bytes stream
// through the L2 between two records of one key): findOrInsert waiting for the row was about a
// fifth of a tumbling run. A record that is not late and whose pane has not fired emits
// nothing, so nothing downstream can tell when it was folded in: such records wait here (their
// key and aggregate inputs, read off the record as the fused path reads them) in a short
// software pipeline: a record's slot is asked for on arrival, its row kRowAhead records later,
// and it is folded kDepth records later, when its row is in cache. Anything that
// looks at the panes or could emit (a watermark, a late update, snapshots, metrics, another
// entry point) folds them first, so the panes are never seen behind the records.
//
// [Threading] The window's: one thread at a time.

#include "operators/window/aggregates.hpp"

#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::window {

class DeferredFolds
{
public:
    /// Records held back: the oldest is folded when one more comes; the row of the one
    /// kRowAhead places back is asked for (its slot, asked for on arrival, is in cache by then).
    static constexpr std::size_t kDepth = 16, kRowAhead = 8;

    struct Fold
    {
        Timestamp start = 0;    ///< the pane's
        std::uint64_t hash = 0; ///< keys::hashBytes of the key
        std::string key;
    };

    explicit DeferredFolds(const std::vector<AggSpec> &specs)
        : m_reader(specs)
        , m_ring(kDepth)
        , m_inputs(kDepth * specs.size())
    {
    }

    bool empty() const { return m_size == 0; }
    bool full() const { return m_size == kDepth; }
    /// Keeps the record's key and aggregate inputs (not full()).
    void push(Timestamp start, std::string_view key, std::uint64_t hash, const Record &rec)
    {
        const std::size_t at = (m_head + m_size) % kDepth;
        Fold &f = m_ring[at];
        f.start = start;
        f.hash = hash;
        f.key.assign(key);
        m_reader.readAll(rec, m_inputs.data() + at * m_reader.size());
        ++m_size;
    }
    /// The fold kRowAhead places before the newest, or null.
    const Fold *rowAhead() const
    {
        return m_size > kRowAhead ? &m_ring[(m_head + m_size - 1 - kRowAhead) % kDepth] : nullptr;
    }
    std::size_t size() const { return m_size; }
    /// The i-th oldest (i < size()) and its aggregate inputs.
    const Fold &at(std::size_t i) const { return m_ring[(m_head + i) % kDepth]; }
    const AggInput *inputsAt(std::size_t i) const
    {
        return m_inputs.data() + (m_head + i) % kDepth * m_reader.size();
    }
    void popOldest()
    {
        m_head = (m_head + 1) % kDepth;
        --m_size;
    }
    void clear() { m_head = m_size = 0; }

private:
    AggInputReader m_reader;
    std::vector<Fold> m_ring;
    std::vector<AggInput> m_inputs; ///< m_reader.size() per ring slot
    std::size_t m_head = 0, m_size = 0;
};

} // namespace tideline::window
