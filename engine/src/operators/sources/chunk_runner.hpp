#pragma once
// Sources that parse (or generate) in chunks on other threads when the run has parallelism > 1
// (ARCHITECTURE.md "Parallel execution", sources). A file is split at line boundaries, the
// generator by index ranges; each chunk becomes records on a worker, and the source emits the
// chunks' records on the loop thread strictly in chunk order, so everything downstream sees
// the very sequence the single-threaded source produces.
//
// Why the runtime's WorkerPool and not threads of the source's own: on a machine with N cores
// the job already has N workers for its keyed stages; a second set of threads would only
// compete with them. The pool runs a worker's own stage rounds first and chunks whenever it
// has none, so parsing fills exactly the time the stages leave free.
//
// [Threading] A ChunkTask is run() by one worker, once per submit; the source (loop thread)
// touches the chunk only before submit and after the runner said it finished (waitChunk,
// cancelChunk: they synchronise through the runner's mutex; waitChunk may run it on the loop
// thread itself).
// run() may read only what the source does not change while chunks are in flight (its
// configuration, the open file through pread). The source's destructor waits for every chunk it
// submitted.

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

namespace tideline::sources {

class ChunkTask
{
public:
    /// Does the chunk's work (on a worker). Must not throw: failures go into the chunk.
    virtual void run() noexcept = 0;
    /// Set by the runner under its lock when run() returned; read through the runner only.
    bool finished = false;

protected:
    ~ChunkTask() = default;
};

/// Runs chunk tasks on other threads: implemented by the runtime's WorkerPool.
class ChunkRunner
{
public:
    virtual int threads() const = 0;
    /// Queues the task for any worker (loop thread).
    virtual void submitChunk(ChunkTask &task) = 0;
    /// Returns once run() returned (loop thread). A task no worker has started yet is taken
    /// back and run here: the loop never waits for a worker that has not got to it (on a
    /// loaded machine a worker may not get a core for a while).
    virtual void waitChunk(ChunkTask &task) = 0;
    /// The task's result is not wanted: dropped if no worker has started it, else waited for.
    virtual void cancelChunk(ChunkTask &task) = 0;

protected:
    ~ChunkRunner() = default;
};

/// A source that can hand its work to a ChunkRunner. The runtime calls runChunksOn once,
/// after open() and before the first poll; false when the source must stay sequential (a
/// --replay or --record, pacing), and then it does.
class ChunkedSource
{
public:
    [[nodiscard]] virtual bool runChunksOn(ChunkRunner &runner) = 0;

protected:
    ~ChunkedSource() = default;
};

/// The chunks a source has in flight, oldest first, and the finished ones kept for reuse
/// (their buffers stay warm). Loop thread only.
template<class Chunk>
class ChunkQueue
{
public:
    explicit ChunkQueue(ChunkRunner &runner)
        : m_runner(runner)
    {
    }
    ~ChunkQueue() { drain(); }
    ChunkQueue(const ChunkQueue &) = delete;
    ChunkQueue &operator=(const ChunkQueue &) = delete;

    /// Enough chunks in flight to keep every worker busy while the loop consumes one.
    std::size_t depth() const { return 2 * static_cast<std::size_t>(m_runner.threads()) + 1; }
    bool full() const { return m_inFlight.size() >= depth(); }
    bool empty() const { return m_inFlight.empty(); }

    /// A chunk to fill in before submit (a reused one when there is one).
    std::unique_ptr<Chunk> take()
    {
        if (m_spare.empty())
            return nullptr;
        auto c = std::move(m_spare.back());
        m_spare.pop_back();
        return c;
    }
    void submit(std::unique_ptr<Chunk> chunk)
    {
        m_runner.submitChunk(*chunk);
        m_inFlight.push_back(std::move(chunk));
    }
    /// The oldest chunk, once it is finished (blocks for it); null when none is in flight.
    Chunk *front()
    {
        if (m_inFlight.empty())
            return nullptr;
        m_runner.waitChunk(*m_inFlight.front());
        return m_inFlight.front().get();
    }
    /// The oldest chunk is consumed: kept for reuse.
    void pop()
    {
        m_spare.push_back(std::move(m_inFlight.front()));
        m_inFlight.pop_front();
    }
    /// Drops every chunk in flight, waiting for those a worker is running (a switch back to
    /// reading on the loop thread, a failed read, destruction).
    void drain()
    {
        for (auto &c : m_inFlight)
            m_runner.cancelChunk(*c);
        m_inFlight.clear();
    }

private:
    ChunkRunner &m_runner;
    std::deque<std::unique_ptr<Chunk>> m_inFlight;
    std::vector<std::unique_ptr<Chunk>> m_spare;
};

} // namespace tideline::sources
