#pragma once
// The capture of a parallel stage's instance (parallel_stage.cpp, parallel_fused.cpp): what
// instance k emits on its worker is appended to its InstanceIO, tagged with the step being run,
// and the merge order of window results across instances.

#include "operators/keys/group_key_codec.hpp"
#include "runtime/output_pool.hpp"
#include "runtime/parallel.hpp"
#include "runtime/parallel_round.hpp"

namespace tideline::parallel {

inline int
compareSortKeys(const SortKey &a, const Value *va, const SortKey &b, const Value *vb, int k)
{
    if (a.end != b.end)
        return a.end < b.end ? -1 : 1;
    if (a.start != b.start)
        return a.start < b.start ? -1 : 1;
    for (int j = 0; j < k; ++j)
        if (const int c = compareValues(va[j], vb[j]); c != 0)
            return c;
    return a.bytes < b.bytes ? -1 : (a.bytes > b.bytes ? 1 : 0);
}

/// Replays one watermark (or finish) step of a round: every instance's window results merged
/// in the contract's order (each instance's run is already in it; results without a merge key
/// keep instance order), then each instance's other items of the step in instance order.
/// `cur[k]` is instance k's next item and is left past the step.
template<class StageOutput>
void replayMergedStep(StageOutput &out,
                      std::vector<InstanceIO> &io,
                      std::vector<std::size_t> &cur,
                      decltype(OutItem::step) step,
                      int keyCount)
{
    const std::size_t n = io.size();
    auto inStep = [&](std::size_t k) {
        return cur[k] < io[k].out.size() && io[k].out[cur[k]].step == step;
    };
    for (;;) {
        int best = -1;
        for (std::size_t k = 0; k < n; ++k) {
            if (!inStep(k) || io[k].out[cur[k]].kind != OutKind::Data)
                continue;
            if (best < 0) {
                best = static_cast<int>(k);
                continue;
            }
            const auto bk = static_cast<std::size_t>(best);
            const OutItem &a = io[k].out[cur[k]];
            const OutItem &b = io[bk].out[cur[bk]];
            if (a.aux < 0 || b.aux < 0)
                continue; // unordered results (not a window's): instance order
            const SortKey &sa = io[k].sortKeys[static_cast<std::size_t>(a.aux)];
            const SortKey &sb = io[bk].sortKeys[static_cast<std::size_t>(b.aux)];
            if (compareSortKeys(sa, io[k].values.data() + sa.values, sb,
                                io[bk].values.data() + sb.values, keyCount)
                < 0)
                best = static_cast<int>(k);
        }
        if (best < 0)
            break;
        const auto b = static_cast<std::size_t>(best);
        replayItem(out, io[b], io[b].out[cur[b]++]);
    }
    for (std::size_t k = 0; k < n; ++k)
        for (; inStep(k); ++cur[k])
            replayItem(out, io[k], io[k].out[cur[k]]);
}

/// What instance k emits through, on its worker: everything is appended to the round's
/// InstanceIO, tagged with the step being run. A window's results on a watermark step also get
/// their merge key, computed here so that the loop thread's merge only compares.
class Capture final : public OutputTarget
{
public:
    Capture(const StageConfig &cfg, OutputTarget &runtime, OutputPool &pool)
        : m_cfg(cfg)
        , m_runtime(runtime)
        , m_pool(pool)
        , m_codec(cfg.keys)
        , m_rows(static_cast<std::size_t>(cfg.node) + 1)
    {
        fateRows = m_rows.data();
    }

    /// Runs instance k's part of a round on its worker (or, at finish, on the loop thread).
    /// The round's output items from its last replay are destroyed here, on the thread
    /// that makes the next ones (InstanceIO::clearReplayed).
    void begin(InstanceIO &io)
    {
        io.out.clear();
        m_io = &io;
        m_rows[static_cast<std::size_t>(m_cfg.node)] = {};
    }
    /// Runs a record of step `step`.
    void atRecord(std::uint32_t step)
    {
        m_step = step;
        m_watermarkStep = false;
    }
    /// Runs a watermark item covering marks[from, to) of the round: a window result belongs
    /// to the first of them that fires it (W >= end - 1), as it would have fired there;
    /// anything else to the first.
    void atMarks(const std::vector<Mark> &marks, std::uint32_t from, std::uint32_t to)
    {
        m_marks = &marks;
        m_mark = from;
        m_markTo = to;
        m_step = marks[from].step;
        m_watermarkStep = true;
    }
    /// Runs finish() (a merge step of its own).
    void atFinish()
    {
        m_marks = nullptr;
        m_step = 0;
        m_watermarkStep = true;
    }
    /// After the instance ran the round: decode merge keys (their bytes no longer move) and
    /// hand over the fate counts.
    void end()
    {
        InstanceIO &io = *m_io;
        const std::size_t k = m_cfg.keys.size();
        m_pool.values.reserve(io.values, io.sortKeys.size() * k);
        io.values.resize(io.sortKeys.size() * k);
        for (std::size_t i = 0; i < io.sortKeys.size(); ++i) {
            SortKey &s = io.sortKeys[i];
            s.values = static_cast<std::uint32_t>(i * k);
            m_codec.decode(s.bytes, m_decoded);
            for (std::size_t j = 0; j < k && j < m_decoded.size(); ++j)
                io.values[i * k + j] = m_decoded[j].value;
        }
        io.fates = m_rows[static_cast<std::size_t>(m_cfg.node)];
        m_io = nullptr;
    }

    void emit(int, int port, Record &&record) override
    {
        OutItem &o = push(OutKind::Data);
        o.port = port;
        if (m_cfg.window && m_watermarkStep && port == 0) {
            m_pool.sortKeys.reserve(m_io->sortKeys, m_io->sortKeys.size() + 1);
            SortKey &s = m_io->sortKeys.emplace_back();
            s.end = record.get("window_end").i;
            s.start = record.get("window_start").i;
            m_codec.encode(record, s.bytes);
            o.aux = static_cast<std::int32_t>(m_io->sortKeys.size() - 1);
            if (m_marks) {
                // Results come in order of end: the marks they belong to only move forward.
                while (m_mark + 1 < m_markTo && (*m_marks)[m_mark].w < satSub(s.end, 1))
                    ++m_mark;
                o.step = (*m_marks)[m_mark].step;
            }
        }
        o.record = std::move(record);
    }
    void emitWrapped(int,
                     PortRole role,
                     std::string_view reason,
                     Record &&record,
                     Timestamp watermark,
                     std::string_view raw,
                     std::string_view where) override
    {
        OutItem &o = push(role == PortRole::Late ? OutKind::Late : OutKind::Error);
        o.w = watermark;
        o.aux = static_cast<std::int32_t>(m_io->wrapped.size());
        m_io->wrapped.push_back({std::string(reason), std::string(raw), std::string(where)});
        o.record = std::move(record);
    }
    // Window and dedup send on exactly the watermark they got: the replay sends each
    // watermark step's own value, so the instances' copies are not kept.
    void emitWatermark(int, Timestamp) override {}
    void emitIdle(int, bool idle) override { push(OutKind::Idle).idle = idle; }
    // Routes are fixed while the run goes (no partition tasks in a parallel run): reading
    // them from a worker is safe.
    bool connected(int node, int port) const override { return m_runtime.connected(node, port); }

private:
    OutItem &push(OutKind kind)
    {
        m_pool.out.reserve(m_io->out, m_io->out.size() + 1);
        OutItem &o = m_io->out.emplace_back();
        o.kind = kind;
        o.step = m_step;
        return o;
    }

    const StageConfig &m_cfg;
    OutputTarget &m_runtime;
    OutputPool &m_pool;
    keys::GroupKeyCodec m_codec;
    std::vector<keys::GroupKeyCodec::Decoded> m_decoded;
    std::vector<observe::FateCounts> m_rows;
    InstanceIO *m_io = nullptr;
    const std::vector<Mark> *m_marks = nullptr;
    std::uint32_t m_mark = 0, m_markTo = 0;
    std::uint32_t m_step = 0;
    bool m_watermarkStep = false;
};

} // namespace tideline::parallel
