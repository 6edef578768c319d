// A parallel stage's fused rounds (fused_source.hpp; ARCHITECTURE.md "One crossing per record").
// A fused round is one chunk of the source, built on whichever thread ran the chunk: its records
// made, stamped with their event time and put into their instance's input there, with the
// chunk's own watermark rises as marks. The loop thread only sets the watermark before the chunk
// (wStart: the prefix maximum of the chunks before, a tiny serial step) and hands it over; each
// instance then sees, before each of its records, max(wStart, the chunk's W before it): exactly
// the watermark the single-threaded node had at that record. The replay walks the outputs only
// (not every record, as a round's replay walks its steps), in the order of their positions.

#include "operators/fusable.hpp"
#include "runtime/made_again.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_capture.hpp"
#include "runtime/parallel_round.hpp"

#include <algorithm>
#include <stdexcept>

namespace tideline::parallel {

const std::vector<window::AggSpec> *ParallelStage::preAggregates() const
{
    const std::vector<window::AggSpec> *specs = nullptr;
    for (fusable::PreAggregated *p : m_preAggregated) {
        if (!p || !p->preAggregates())
            return nullptr;
        specs = p->preAggregates();
    }
    return specs;
}

std::unique_ptr<Round> ParallelStage::takeFusedRound()
{
    if (m_fusedSpare.empty()) {
        auto r = std::make_unique<Round>(static_cast<int>(m_instances.size()));
        r->fused = true;
        return r;
    }
    auto r = std::move(m_fusedSpare.back());
    m_fusedSpare.pop_back();
    return r;
}

void ParallelStage::submitFused(std::unique_ptr<Round> round, Output &out)
{
    submitOpen(); // what came before (a deferred record, a watermark) goes first
    m_maxTime = std::max(m_maxTime, round->maxTs); // of the records that reached the stage
    m_fusedW = std::max(m_fusedW, round->wEnd());
    m_pool.submit(*this, *round);
    m_inFlight.push_back(std::move(round));
    collect(false, out);
}

void ParallelStage::runFused(int k, Round &round) noexcept
{
    auto ku = static_cast<std::size_t>(k);
    InstanceIO &io = round.io[ku];
    Capture &c = *m_captures[ku];
    Operator &op = *m_instances[ku];
    Timestamp &seen = m_fusedSeen[ku];
    fusable::PreKeyed *keyed = m_preKeyed[ku];
    fusable::PreAggregated *inputs = m_preAggregated[ku];
    MadeAgain maker(round, m_lateParsers[ku]);
    c.begin(io);
    Output out(c, m_cfg.node);
    try {
        if (round.wStart > seen) { // not reached before (the first chunk after a restore)
            c.atMarks(round.marks, 0, 1);
            op.processWatermark(round.wStart, out);
            seen = round.wStart;
        }
        std::uint32_t marksFrom = 1; // the marks before the first record: marks[1, markTo)
        // The rows records fold into are random in a table of thousands of keys, usually out
        // of L2: the window is told of records kSlotAhead and kRowAhead items ahead, so their
        // slot and then their row are on their way while the records before them fold in.
        constexpr std::size_t kSlotAhead = 16, kRowAhead = 8;
        const bool hint = inputs != nullptr;
        const bool aggregated = round.aggregated();
        // The records handed over (none when the items carry aggregate inputs).
        Record *records = round.block ? round.block->records.data() : nullptr;
        for (std::size_t i = 0; i < io.used; ++i) {
            FusedItem &item = io.fused[i];
            if (hint && i + kSlotAhead < io.used) {
                const FusedItem &a = io.fused[i + kSlotAhead], &b = io.fused[i + kRowAhead];
                inputs->prefetchAhead(a.time, a.hash, b.time, b.hash);
            }
            const Timestamp w = std::max(round.wStart, item.w);
            if (w > seen && marksFrom < item.markTo) {
                c.atMarks(round.marks, marksFrom, item.markTo);
                op.processWatermark(w, out);
                seen = w;
            }
            marksFrom = item.markTo;
            const std::string_view key(io.keys.data() + item.key, item.keySize);
            c.atRecord(item.step);
            // The record stays in the block unless the operator keeps it (late, dedup's pass):
            // the next chunk built into this round reuses its buffers.
            if (aggregated) { // its aggregate inputs (fusable::PreAggregated)
                maker.item = &item;
                inputs->processInputs(item.time, key, item.hash, io.inputs.data() + item.inputs,
                                      maker, out);
            } else if (keyed)
                keyed->processKeyed(std::move(records[item.index]), item.time, key, item.hash, out);
            else
                op.processRecord(0, std::move(records[item.index]), out);
        }
        const auto marks = static_cast<std::uint32_t>(round.marks.size());
        if (round.wEnd() > seen && io.marksEnd < marks) {
            c.atMarks(round.marks, io.marksEnd, marks);
            op.processWatermark(round.wEnd(), out);
            seen = round.wEnd();
        }
    } catch (...) {
        io.error = std::current_exception();
    }
    c.end();
    io.metrics = {};
    op.reportMetrics(io.metrics);
}

void ParallelStage::replayFused(Round &round, Output &out)
{
    for (auto &io : round.io)
        if (io.error)
            std::rethrow_exception(io.error);
    const std::size_t n = round.io.size();
    const int nk = static_cast<int>(m_cfg.keys.size());
    std::vector<std::size_t> cur(n, 0);
    std::size_t side = 0;
    // The watermark after step s: the last mark at or before it.
    auto wAt = [&](std::uint32_t s) {
        auto it = std::upper_bound(round.marks.begin(), round.marks.end(), s,
                                   [](std::uint32_t v, const Mark &m) { return v < m.step; });
        return it == round.marks.begin() ? round.wStart : std::max(round.wStart, (it - 1)->w);
    };
    Output wmOut(m_runtime, round.wmNode);
    Output srcOut(m_runtime, round.srcNode);
    auto emitItem = [&](InstanceIO &io, OutItem &o) {
        replayItem(out, io, o);
    };
    m_inFusedReplay = true; // a side error's record reaching a deferred sink: in order now
    for (;;) {
        std::uint32_t s = UINT32_MAX;
        for (std::size_t k = 0; k < n; ++k)
            if (cur[k] < round.io[k].out.size())
                s = std::min(s, round.io[k].out[cur[k]].step);
        if (side < round.side.size())
            s = std::min(s, round.side[side].step);
        if (s == UINT32_MAX)
            break;
        // What came after the step before (nothing downstream can tell the difference
        // between the watermark rising record by record and rising here to the same value).
        if (s > 0)
            out.emitWatermark(wAt(s - 1));
        if (s % 2 == 1) {
            // A record's step: the watermark node's error for it, or its instance's outputs.
            for (; side < round.side.size() && round.side[side].step == s; ++side) {
                SideError &e = round.side[side];
                if (e.fromSource)
                    srcOut.emitError(e.reason, Record{}, kMinTime, e.raw, e.where);
                else
                    wmOut.emitError(e.reason, std::move(e.record),
                                    std::max(round.wStart, e.localW));
            }
            for (std::size_t k = 0; k < n; ++k)
                for (InstanceIO &io = round.io[k];
                     cur[k] < io.out.size() && io.out[cur[k]].step == s; ++cur[k])
                    emitItem(io, io.out[cur[k]]);
            continue;
        }
        // A watermark's step: results of every instance merged in the contract's order,
        // then anything else in instance order, then the watermark (as replay() does).
        replayMergedStep(out, round.io, cur, s, nk);
        out.emitWatermark(wAt(s));
    }
    m_inFusedReplay = false;
    out.emitWatermark(round.wEnd());
    observe::FateCounts &row = m_runtime.fateRows[m_cfg.node];
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t f = 0; f < row.size(); ++f)
            row[f] += round.io[k].fates[f];
        m_instanceMetrics[k] = round.io[k].metrics;
        round.io[k].clearReplayed();
    }
    round.side.clear();
    if (round.block) {
        BlockHome *home = round.block->home;
        home->give(std::move(round.block));
    }
}

} // namespace tideline::parallel
