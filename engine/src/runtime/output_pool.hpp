#pragma once
// OutputPool: a parallel stage's large output vectors, handed from one round to the next.
//
// Why: a window fires thousands of results at once, into whichever round its watermark
// crosses in. Rounds rotate (about ten in flight or spare on the fused path), so each of them
// grew its own output vectors to a firing's size in turn: fresh pages touched for the first
// time, doubled and copied as they grew. On the 2-core VM a page fault costs microseconds, and
// faults were about a tenth of a P = 2 file run's CPU (docs/benchmarks.md, "Session 15"). Vectors
// of kFrom items or more go back to the pool once their round is replayed, and a round that must
// grow past kFrom takes the largest pooled one, so a firing's outputs land in memory an earlier
// firing already touched, and rarely grow at all. A pooled vector keeps its items until a
// worker takes it: their records are a worker's results, destroyed on a worker so that their
// buffers make its next results (InstanceIO::clearReplayed).
//
// [Threading] put() on the loop thread after a round is replayed, reserve() on a worker while
// it runs a round; one mutex, taken only for vectors of kFrom items or more (a few times per
// firing, never per record).

#include "runtime/parallel_round.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <utility>
#include <vector>

namespace tideline::parallel {

template<class T>
class VectorPool
{
public:
    /// Smaller vectors stay with their round (malloc reuses them well).
    static constexpr std::size_t kFrom = 1024;
    /// Pooled vectors kept at most (the smallest goes beyond): a few firings in flight.
    static constexpr std::size_t kKeep = 8;

    /// Makes room for `need` items in v when that would grow it past kFrom: v's items move
    /// into the largest pooled vector when that holds `need`, and v's own storage is pooled.
    /// Otherwise v is left to grow as usual.
    void reserve(std::vector<T> &v, std::size_t need)
    {
        if (need <= v.capacity() || need < kFrom)
            return;
        std::vector<T> bigger;
        {
            std::lock_guard lock(m_mutex);
            auto best = std::max_element(m_free.begin(), m_free.end(), byCapacity);
            if (best == m_free.end() || best->capacity() < need)
                return;
            bigger = std::move(*best);
            m_free.erase(best);
        }
        bigger.clear(); // the items put() left: destroyed on this worker
        bigger.insert(bigger.end(), std::make_move_iterator(v.begin()),
                      std::make_move_iterator(v.end()));
        v.swap(bigger);
        put(bigger);
    }

    /// Takes v's storage when its capacity is kFrom items or more, items and all (reserve()
    /// destroys them; the smallest vector dropped beyond kKeep is destroyed here), leaving v
    /// empty, without storage; a smaller v is left as it is.
    void put(std::vector<T> &v)
    {
        if (v.capacity() < kFrom)
            return;
        std::lock_guard lock(m_mutex);
        m_free.push_back(std::move(v));
        v = std::vector<T>();
        if (m_free.size() > kKeep)
            m_free.erase(std::min_element(m_free.begin(), m_free.end(), byCapacity));
    }

private:
    static bool byCapacity(const std::vector<T> &a, const std::vector<T> &b)
    {
        return a.capacity() < b.capacity();
    }

    std::mutex m_mutex;
    std::vector<std::vector<T>> m_free;
};

/// The output vectors a window's firing fills (InstanceIO::out, sortKeys, values).
struct OutputPool
{
    VectorPool<OutItem> out;
    VectorPool<SortKey> sortKeys;
    VectorPool<Value> values;

    /// After `io`'s round is replayed (loop thread): its large vectors go back.
    void put(InstanceIO &io)
    {
        out.put(io.out);
        sortKeys.put(io.sortKeys);
        values.put(io.values);
    }
};

} // namespace tideline::parallel
