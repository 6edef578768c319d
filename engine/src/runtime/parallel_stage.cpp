// A keyed node run as N instances (parallel.hpp says how; ARCHITECTURE.md "Parallel execution"
// says why the outputs stay byte-identical). This file: routing by key group, rounds and the
// replay that merges them back into the single-threaded order (the capture of an instance's
// outputs: parallel_capture.hpp; fused rounds: parallel_fused.cpp).

#include "operators/fusable.hpp"
#include "operators/keys/hash.hpp"
#include "record/buffer_pool.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_capture.hpp"
#include "runtime/parallel_round.hpp"

#include <algorithm>

namespace tideline::parallel {

namespace {

/// Steps per round before it goes to the workers without waiting for the tick: big enough that
/// a round's hand-over (a lock and a wake-up per worker) is noise, small enough to pipeline.
constexpr std::size_t kRoundSteps = 4096;
/// Rounds in flight before the loop thread waits for the oldest (bounds memory).
constexpr std::size_t kMaxInFlight = 4;

} // namespace

ParallelStage::ParallelStage(StageConfig cfg,
                             std::vector<std::unique_ptr<Operator>> instances,
                             WorkerPool &pool,
                             OutputTarget &runtime)
    : m_cfg(std::move(cfg))
    , m_instances(std::move(instances))
    , m_pool(pool)
    , m_runtime(runtime)
    , m_groupKey(m_cfg.keys)
    , m_dedupKey(m_cfg.keys)
    , m_marksGiven(m_instances.size(), 0)
    , m_instanceMetrics(m_instances.size())
    , m_outputs(std::make_unique<OutputPool>())
{
    for (std::size_t k = 0; k < m_instances.size(); ++k)
        m_captures.push_back(std::make_unique<Capture>(m_cfg, m_runtime, *m_outputs));
    m_fusedSeen.assign(m_instances.size(), kMinTime);
    for (auto &op : m_instances) {
        m_preKeyed.push_back(m_cfg.window ? dynamic_cast<fusable::PreKeyed *>(op.get()) : nullptr);
        m_preAggregated.push_back(m_cfg.window ? dynamic_cast<fusable::PreAggregated *>(op.get())
                                               : nullptr);
        m_lateParsers.push_back(nullptr);
    }
    m_open = std::make_unique<Round>(static_cast<int>(m_instances.size()));
}

ParallelStage::~ParallelStage()
{
    // A run abandoned mid-way (failure, destruction while running): let the workers finish
    // with what they hold before the instances go.
    for (auto &r : m_inFlight)
        m_pool.wait(*r);
}

std::uint32_t ParallelStage::nextStep()
{
    return static_cast<std::uint32_t>(m_open->steps.size());
}

void ParallelStage::processRecord(int input, Record &&record, Output &out)
{
    if (input > 0) [[unlikely]] {
        if (m_finished
            || m_inFusedReplay) { // a node finishing after this one: nothing left to order it among
            m_cfg.deliverDeferred(input - 1, std::move(record));
            return;
        }
        // For a sink downstream: it must come after whatever the steps so far make.
        m_open->steps.push_back(
            {kPassStep, static_cast<std::uint32_t>(m_open->passthrough.size()), kMinTime});
        m_open->passthrough.push_back({input - 1, std::move(record)});
        return;
    }
    if (record.time > m_maxTime)
        m_maxTime = record.time;
    if (!m_poolSized) [[unlikely]] {
        // This thread (the loop's) gets its records back a round at a time in the replay.
        setRecordBufferPoolLimit((kMaxInFlight + 2) * kRoundSteps);
        m_poolSized = true;
    }
    if (m_cfg.window)
        m_groupKey.encode(record, m_keyBuf);
    else
        m_dedupKey.encode(record, m_keyBuf);
    const int k = instanceOfKeyGroup(keyGroupOf(m_keyBuf), static_cast<int>(m_instances.size()));
    giveMarks(static_cast<std::size_t>(k)); // the watermark this record must see
    const std::uint32_t step = nextStep();
    m_open->steps.push_back({k, 0, kMinTime});
    InItem &item = m_open->io[static_cast<std::size_t>(k)].in.emplace_back();
    item.record = std::move(record);
    item.step = step;
    if (m_open->steps.size() >= kRoundSteps) {
        submitOpen();
        collect(false, out);
    }
}

void ParallelStage::giveMarks(std::size_t k)
{
    const auto have = static_cast<std::uint32_t>(m_open->marks.size());
    if (m_marksGiven[k] == have)
        return;
    InItem &item = m_open->io[k].in.emplace_back();
    item.w = m_open->marks.back().w;
    item.markFrom = m_marksGiven[k];
    item.markTo = have;
    item.watermark = true;
    m_marksGiven[k] = have;
}

void ParallelStage::processWatermark(Timestamp w, Output &out)
{
    if (m_fusedW != kMinTime && w <= m_fusedW)
        return; // the fused rounds carried it (parallel_fused.cpp)
    // O(1) here: each instance gets the latest watermark before its next record (giveMarks).
    const std::uint32_t step = nextStep();
    m_open->steps.push_back({kWatermarkStep, 0, w});
    m_open->marks.push_back({step, w});
    if (m_open->steps.size() >= kRoundSteps) {
        submitOpen();
        collect(false, out);
    }
}

void ParallelStage::onTick(std::int64_t, Output &out)
{
    submitOpen();
    collect(false, out);
}

void ParallelStage::finish(Output &out)
{
    submitOpen();
    collect(true, out);
    // Workers idle from here on: the instances are the loop thread's. Their finish emits
    // through the capture too, merged like a watermark step.
    Round &r = *m_open;
    r.steps.push_back({kFinishStep, 0, kMinTime});
    for (std::size_t k = 0; k < m_instances.size(); ++k) {
        Capture &c = *m_captures[k];
        c.begin(r.io[k]);
        c.atFinish();
        Output io(c, m_cfg.node);
        m_instances[k]->finish(io);
        c.end();
    }
    replay(r, out);
    m_finished = true;
}

void ParallelStage::runInstance(int k, Round &round) noexcept
{
    if (round.fused) {
        runFused(k, round);
        return;
    }
    auto ku = static_cast<std::size_t>(k);
    InstanceIO &io = round.io[ku];
    Capture &c = *m_captures[ku];
    Operator &op = *m_instances[ku];
    c.begin(io);
    Output out(c, m_cfg.node);
    try {
        for (InItem &item : io.in) {
            if (item.watermark) {
                c.atMarks(round.marks, item.markFrom, item.markTo);
                op.processWatermark(item.w, out);
            } else {
                c.atRecord(item.step);
                op.processRecord(0, std::move(item.record), out);
                if (m_cfg.freeOnWorker) {
                    Record done(std::move(item.record)); // its buffers: this thread's pool
                }
            }
        }
    } catch (...) {
        io.error = std::current_exception();
    }
    // Unless freeOnWorker, the records stay until the loop thread replays the round
    // (InstanceIO::clear): freed there, their buffers go back to the loop thread's pool
    // (record.cpp), where a source on the loop thread takes them again, instead of piling up
    // in the worker's. With sources parsing on the workers they were freed above, here.
    c.end();
    io.metrics = {};
    op.reportMetrics(io.metrics);
}

void ParallelStage::submitOpen()
{
    if (m_open->steps.empty())
        return;
    for (std::size_t k = 0; k < m_instances.size(); ++k) {
        giveMarks(k); // every instance ends the round at the round's last watermark
        m_marksGiven[k] = 0;
    }
    m_pool.submit(*this, *m_open);
    m_inFlight.push_back(std::move(m_open));
    if (!m_spare.empty()) {
        m_open = std::move(m_spare.back());
        m_spare.pop_back();
    } else
        m_open = std::make_unique<Round>(static_cast<int>(m_instances.size()));
}

void ParallelStage::collect(bool all, Output &out)
{
    while (!m_inFlight.empty()) {
        Round &r = *m_inFlight.front();
        if (all || m_inFlight.size() > kMaxInFlight)
            m_pool.wait(r);
        else if (!m_pool.done(r))
            return;
        std::unique_ptr<Round> done = std::move(m_inFlight.front());
        m_inFlight.pop_front();
        replay(*done, out);
        for (InstanceIO &io : done->io)
            m_outputs->put(io);
        (done->fused ? m_fusedSpare : m_spare).push_back(std::move(done));
    }
}

void ParallelStage::replay(Round &round, Output &out)
{
    if (round.fused) {
        replayFused(round, out);
        return;
    }
    for (auto &io : round.io)
        if (io.error)
            std::rethrow_exception(io.error);
    const std::size_t n = round.io.size();
    const int nk = static_cast<int>(m_cfg.keys.size());
    std::vector<std::size_t> cur(n, 0);
    auto emitItem = [&](InstanceIO &io, OutItem &o) {
        replayItem(out, io, o);
    };
    for (std::uint32_t s = 0; s < round.steps.size(); ++s) {
        const int target = round.steps[s].instance;
        if (target == kPassStep) {
            Passthrough &p = round.passthrough[round.steps[s].pass];
            m_cfg.deliverDeferred(p.entry, std::move(p.record));
            continue;
        }
        if (target >= 0) {
            // A record step: only its instance emitted, in its own order.
            InstanceIO &io = round.io[static_cast<std::size_t>(target)];
            std::size_t &c = cur[static_cast<std::size_t>(target)];
            while (c < io.out.size() && io.out[c].step == s)
                emitItem(io, io.out[c++]);
            continue;
        }
        // A watermark (or finish) step: results of every instance merged in the contract's
        // order, then anything else in instance order, then the watermark.
        replayMergedStep(out, round.io, cur, s, nk);
        if (target == kWatermarkStep)
            out.emitWatermark(round.steps[s].w);
    }
    observe::FateCounts &row = m_runtime.fateRows[m_cfg.node];
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t f = 0; f < row.size(); ++f)
            row[f] += round.io[k].fates[f];
        m_instanceMetrics[k] = round.io[k].metrics;
        round.io[k].in.clear();
        round.io[k].clearReplayed();
    }
    round.steps.clear();
    round.passthrough.clear();
    round.marks.clear();
}

void ParallelStage::reportMetrics(observe::NodeMetrics &m) const
{
    // State is split by key: entries, bytes and duplicates add up; the instances share the
    // same windows (one per time range), so open windows is the most any instance has open.
    std::int64_t entries = 0, bytes = 0, spilled = 0, dups = 0, errors = 0, windows = 0;
    for (const auto &im : m_instanceMetrics) {
        entries += im.stateEntries;
        bytes += im.stateBytes;
        spilled += im.stateSpilled;
        dups += im.duplicatesDropped;
        errors += im.errors;
        windows = std::max(windows, im.openWindows);
    }
    m.stateEntries = entries;
    m.stateBytes = bytes;
    m.stateSpilled = spilled;
    m.duplicatesDropped = dups;
    m.errors += errors;
    m.openWindows = windows;
}

std::string ParallelStage::stateFingerprint() const
{
    return m_instances.front()->stateFingerprint();
}

} // namespace tideline::parallel
