// The worker threads of parallel stages (parallel.hpp): worker k runs instance k of every
// stage, its tasks in the order they were submitted, so an instance sees its rounds in order.
// The loop thread runs chunks while it waits only on a machine with a core to spare (measured
// on 2 cores at parallelism 2: the loop thread not parsing made file-window 10 % and
// generator-window 20 % faster, docs/benchmarks.md "Lines, not records").
// One mutex for the queues and the rounds' pending counts: a round is a few thousand records,
// so the lock is taken a few times per round, never per record. Sources' chunks (chunk_runner.hpp)
// share the mutex: a chunk is hundreds of records (32 KiB of a file, 1,024 generated events). A
// worker runs its own queue first (the loop may be waiting for that round, and the stage's
// instances are only its) and takes a chunk when it has nothing of its own, so parsing fills the
// time the stages leave free.
// Only the loop thread ever waits (on m_done), and only for one round or chunk at a time: a
// worker notifies it when that one finished, not for every other (m_awaited). On a VM a
// wake-up costs far more than the few microseconds the loop then runs: with two workers on
// two cores each one takes a core from a worker, and a parse-like loop measured 15 % slower
// with 6,000 such wake-ups a second beside it.

#include "record/buffer_pool.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_round.hpp"
#include "runtime/thread_heap.hpp"

#include <algorithm>

namespace tideline::parallel {

template<class Done>
void WorkerPool::awaitOnLoop(std::unique_lock<std::mutex> &lock, const void *what, Done done)
{
    m_awaited = what;
    m_done.wait(lock, done);
    m_awaited = nullptr;
}

WorkerPool::WorkerPool(int n)
    : m_queues(static_cast<std::size_t>(n))
    , m_loopRunsChunks(std::thread::hardware_concurrency() > static_cast<unsigned>(n))
{
    m_workers.reserve(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
        m_workers.emplace_back([this, k] {
            preferHugePagesForThisThreadsHeap();
            work(k);
        });
}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto &t : m_workers)
        t.join();
}

void WorkerPool::submit(ParallelStage &stage, Round &round)
{
    {
        std::lock_guard lock(m_mutex);
        round.pending = static_cast<int>(m_queues.size());
        for (auto &q : m_queues)
            q.push_back({&stage, &round});
    }
    m_wake.notify_all();
}

bool WorkerPool::done(const Round &round)
{
    std::lock_guard lock(m_mutex);
    return round.pending == 0;
}

void WorkerPool::wait(const Round &round)
{
    std::unique_lock lock(m_mutex);
    // Meanwhile the caller (the loop thread) makes sources' chunks rather than idle: with the
    // fused path (fused_source.hpp) that is most of the work there is.
    while (m_loopRunsChunks && round.pending != 0 && !m_chunks.empty()) {
        sources::ChunkTask *chunk = m_chunks.front();
        m_chunks.pop_front();
        lock.unlock();
        chunk->run();
        lock.lock();
        chunk->finished = true; // no one to wake: the loop thread, the only waiter, ran it
    }
    awaitOnLoop(lock, &round, [&] { return round.pending == 0; });
}

void WorkerPool::submitChunk(sources::ChunkTask &task)
{
    {
        std::lock_guard lock(m_mutex);
        task.finished = false;
        m_chunks.push_back(&task);
    }
    m_wake.notify_all();
}

void WorkerPool::waitChunk(sources::ChunkTask &task)
{
    std::unique_lock lock(m_mutex);
    if (!m_loopRunsChunks) { // a worker takes it as soon as its own queue is empty
        awaitOnLoop(lock, &task, [&] { return task.finished; });
        return;
    }
    while (!task.finished) {
        // Not started by any worker: the caller runs it (no waiting on a worker's turn).
        if (auto it = std::find(m_chunks.begin(), m_chunks.end(), &task); it != m_chunks.end()) {
            m_chunks.erase(it);
            lock.unlock();
            task.run();
            lock.lock();
            task.finished = true;
            return;
        }
        if (m_chunks.empty()) {
            awaitOnLoop(lock, &task, [&] { return task.finished; });
            return;
        }
        // A worker runs it: the caller makes a later chunk meanwhile instead of idling (only
        // the loop thread submits chunks, so none comes while it is in here).
        sources::ChunkTask *other = m_chunks.front();
        m_chunks.pop_front();
        lock.unlock();
        other->run();
        lock.lock();
        other->finished = true; // no one to wake: the loop thread, the only waiter, ran it
    }
}

void WorkerPool::cancelChunk(sources::ChunkTask &task)
{
    std::unique_lock lock(m_mutex);
    if (auto it = std::find(m_chunks.begin(), m_chunks.end(), &task); it != m_chunks.end()) {
        m_chunks.erase(it);
        return; // never started
    }
    awaitOnLoop(lock, &task, [&] { return task.finished; });
}

void WorkerPool::work(int k)
{
    // Chunks make records here, and stage instances free them here (freeOnWorker), a round of
    // thousands at a time: room for a few rounds of spare buffers, so that a worker reuses what
    // it freed (record.cpp) instead of freeing most and allocating again.
    setRecordBufferPoolLimit(32768);
    auto &queue = m_queues[static_cast<std::size_t>(k)];
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || !queue.empty() || !m_chunks.empty(); });
        if (queue.empty() && !m_chunks.empty()) {
            sources::ChunkTask *chunk = m_chunks.front();
            m_chunks.pop_front();
            lock.unlock();
            chunk->run(); // noexcept: failures travel in the chunk
            lock.lock();
            chunk->finished = true;
            if (m_awaited == chunk)
                m_done.notify_all();
            continue;
        }
        if (queue.empty())
            return; // stopping, nothing left
        Task task = queue.front();
        queue.pop_front();
        lock.unlock();
        task.stage->runInstance(k, *task.round); // noexcept: failures travel in the round
        lock.lock();
        if (--task.round->pending == 0 && m_awaited == task.round)
            m_done.notify_all();
    }
}

} // namespace tideline::parallel
