#pragma once
// WindowSet: the open windows of an operator whose windows are aligned to the epoch and shared
// by every key (the aligned window's panes, window_join's windows), in order of start, with
// lookup by start. Their firing and clean-up times go to the toolkit's one event-time timer
// queue (keys::ExpiryQueue), as every other keyed operator's do; this is only where the
// windows live.
//
// Why a sorted vector and not a map: few windows are open at once (size / slide, plus allowed
// lateness / size), a new one nearly always comes last (time moves forward) and the oldest is
// dropped first, and the hot path looks up the window it used last anyway (callers cache it).
// A reference to a window stays valid until a window is added or erased.

#include <tideline/engine/time.hpp>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace tideline::keys {

template<class W>
class WindowSet
{
public:
    using Item = std::pair<Timestamp, W>; ///< (start, window)

    std::size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    void clear() { m_items.clear(); }

    /// The window starting at `start`, or nullptr.
    W *find(Timestamp start)
    {
        auto it = lowerBound(start);
        return it != m_items.end() && it->first == start ? &it->second : nullptr;
    }

    /// The window starting at `start`, added (default-constructed) when absent.
    W &get(Timestamp start, bool &created)
    {
        auto it = lowerBound(start);
        created = it == m_items.end() || it->first != start;
        if (created)
            it = m_items.emplace(it, std::piecewise_construct, std::forward_as_tuple(start),
                                 std::forward_as_tuple());
        return it->second;
    }

    /// Removes the window starting at `start` (if any).
    void erase(Timestamp start)
    {
        auto it = lowerBound(start);
        if (it != m_items.end() && it->first == start)
            m_items.erase(it);
    }

    // In order of start.
    auto begin() { return m_items.begin(); }
    auto end() { return m_items.end(); }
    auto begin() const { return m_items.begin(); }
    auto end() const { return m_items.end(); }
    auto rbegin() { return m_items.rbegin(); }
    auto rend() { return m_items.rend(); }

private:
    typename std::vector<Item>::iterator lowerBound(Timestamp start)
    {
        // The newest window is the usual target: look there before searching.
        if (!m_items.empty() && m_items.back().first < start)
            return m_items.end();
        return std::lower_bound(m_items.begin(), m_items.end(), start,
                                [](const Item &i, Timestamp s) { return i.first < s; });
    }

    std::vector<Item> m_items;
};

} // namespace tideline::keys
