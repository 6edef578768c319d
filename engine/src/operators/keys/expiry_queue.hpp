#pragma once
// ExpiryQueue: items popped in (time, insertion order), for the state timers of dedup and join.
//
// Streams are nearly in time order, so expiry times mostly arrive non-decreasing. Those go to
// a ring buffer (push and pop are a store and a load, and the next victims sit in consecutive
// memory, so an expiry loop can prefetch their state); only an item earlier than the ring's
// last one goes to a binary heap. top() compares the two heads, which gives exactly the order
// of one heap over all items: (at, seq) with seq the push order.
//
// The toolkit's one event-time timer queue, for dedup, join, the session window (a timer names
// a session by slot, generation and start; stale ones are skipped when they come up), top (one
// timer per group; a group that completes later waits again), the aligned window (a pane's
// firing and its clean-up) and window_join (a window's firing); the last two keep the windows
// themselves in a keys::WindowSet. Equal times pop in push order, so an operator that needs
// another order within one firing sorts what came due (the windows sort by key).

#include <tideline/engine/time.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tideline::keys {

template<class P>
class ExpiryQueue
{
public:
    struct Item
    {
        Timestamp at;
        std::uint64_t seq;
        P payload;
    };

    std::size_t size() const { return m_count + m_heap.size(); }
    bool empty() const { return m_count == 0 && m_heap.empty(); }

    void push(Timestamp at, const P &payload)
    {
        Item it{at, m_seq++, payload};
        if (m_count == 0 || at >= back().at) {
            if (m_count == m_ring.size())
                grow();
            m_ring[(m_head + m_count) & (m_ring.size() - 1)] = it;
            ++m_count;
        } else {
            m_heap.push_back(it);
            std::push_heap(m_heap.begin(), m_heap.end(), Later{});
        }
    }

    /// The earliest item; the queue must not be empty.
    const Item &top() const
    {
        if (m_heap.empty())
            return m_ring[m_head];
        if (m_count == 0 || Later{}(m_ring[m_head], m_heap.front()))
            return m_heap.front();
        return m_ring[m_head];
    }

    void pop()
    {
        if (!m_heap.empty() && (m_count == 0 || Later{}(m_ring[m_head], m_heap.front()))) {
            std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
            m_heap.pop_back();
        } else {
            m_head = (m_head + 1) & (m_ring.size() - 1);
            --m_count;
        }
    }

    /// The k-th item of the in-order ring (k = 0 is its head), or nullptr: a hint of what
    /// expires next, for prefetching.
    const Item *ahead(std::size_t k) const
    {
        return k < m_count ? &m_ring[(m_head + k) & (m_ring.size() - 1)] : nullptr;
    }

    /// Every item, in (at, seq) order (snapshots).
    std::vector<Item> sorted() const
    {
        std::vector<Item> all(m_heap);
        for (std::size_t k = 0; k < m_count; ++k)
            all.push_back(m_ring[(m_head + k) & (m_ring.size() - 1)]);
        std::sort(all.begin(), all.end(),
                  [](const Item &a, const Item &b) { return Later{}(b, a); });
        return all;
    }

    void clear()
    {
        m_ring.clear();
        m_head = m_count = 0;
        m_heap.clear();
    }

private:
    struct Later
    {
        bool operator()(const Item &a, const Item &b) const
        {
            return a.at != b.at ? a.at > b.at : a.seq > b.seq;
        }
    };

    const Item &back() const { return m_ring[(m_head + m_count - 1) & (m_ring.size() - 1)]; }

    void grow()
    {
        std::vector<Item> bigger(std::max<std::size_t>(64, m_ring.size() * 2));
        for (std::size_t k = 0; k < m_count; ++k)
            bigger[k] = m_ring[(m_head + k) & (m_ring.size() - 1)];
        m_ring.swap(bigger);
        m_head = 0;
    }

    std::vector<Item> m_ring; ///< power-of-two size; items [m_head, m_head + m_count)
    std::size_t m_head = 0;
    std::size_t m_count = 0;
    std::vector<Item> m_heap; ///< min-heap on (at, seq) of items that arrived out of order
    std::uint64_t m_seq = 0;
};

} // namespace tideline::keys
