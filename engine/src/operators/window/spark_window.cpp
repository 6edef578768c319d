// The window node under settings.semantics "spark": Spark Structured Streaming's windowed
// aggregation (window() / session_window() + groupBy + agg) with a watermark.
//
// - The watermark is the query's global one (semantics/spark_clock.hpp), 0 before the first
//   batch ends. It reaches this node through processWatermark right after each batch.
// - A row is dropped when its window's end is at or below the watermark (a session: t + gap,
//   the end of the row's own session before merging); a sliding row keeps the windows still
//   open. Spark drops silently and only counts; here the row goes to `late` with a reason that
//   says so, so that every record stays accounted. A row is late only when no window is left.
// - Append mode: a window is emitted once, "final", when the watermark reaches its end
//   (end <= W), in the no-data batch. Update mode: at the end of each batch every (window, key)
//   the batch changed is emitted as "update"; a window is dropped without output once
//   end <= W. At the end of a bounded input (W = +inf) both flush what is left.
// - Sessions: each row opens [t, t + gap); sessions of a key that overlap or touch merge (as
//   StreamingSessionWindowSuite shows: [30, 40) joins [40, 50)).
// - State (mode_window.hpp): one task; panes by start, sessions per key with a timer at their
//   end; a batch's changed rows are listed per pane (update mode), so neither a batch end nor a
//   watermark advance looks at rows or keys it does not emit or drop.

#include "operators/window/mode_window.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>

namespace tideline::window {

namespace {

constexpr const char *kDropped = "Spark drops this row silently (its window ends at or below "
                                 "the watermark)";

class SparkWindow final : public ModeWindowBase
{
public:
    SparkWindow(const OperatorContext &ctx, WindowConfig cfg)
        : ModeWindowBase(ctx, std::move(cfg))
    {
        m_update = ctx.semantics && ctx.semantics->spark.updateMode;
        m_trackDirty = m_update;
        m_wm = 0; // Spark's initial global watermark
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const Timestamp t = rec.time;
        ModeTask &tk = task(0);
        if (m_cfg.type == WindowType::Session) {
            const Timestamp end = satAdd(t, m_cfg.gap);
            if (end <= m_wm) {
                out.emitLate(kDropped, std::move(rec), m_wm);
                return;
            }
            m_codec.encode(rec, m_keyBuf);
            out.account(observe::Fate::Windowed);
            addToSession(tk, t, end, rec);
            return;
        }
        const Timestamp slide = m_cfg.type == WindowType::Tumbling ? m_cfg.size : m_cfg.slide;
        alignedWindowsOf(t, m_cfg.size, slide, m_spans);
        std::erase_if(m_spans, [&](const auto &w) { return w.second <= m_wm; });
        if (m_spans.empty()) {
            out.emitLate(kDropped, std::move(rec), m_wm);
            return;
        }
        m_codec.encode(rec, m_keyBuf);
        out.account(observe::Fate::Windowed);
        const std::uint64_t h = hashBytes(m_keyBuf);
        for (const auto &[start, end] : m_spans)
            foldPane(pane(tk, start, end), h, rec);
    }

    void onMicroBatchEnd(Output &out) override
    {
        if (m_update)
            emitChanged(out);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_wm)
            m_wm = w;
        if (m_update && m_wm == kMaxTime)
            emitChanged(out); // the last batch's changes, when the input ends inside it
        ModeTask &tk = task(0);
        // Panes: one size, so by start is by end and the closed ones are at the front.
        std::size_t closed = 0;
        for (auto &[start, p] : tk.panes) {
            if (p.end > m_wm)
                break;
            ++closed;
            if (!m_update)
                for (std::uint32_t i = 0; i < p.table.size(); ++i)
                    m_rows.push_back(
                        Row{p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Final});
        }
        // Sessions: their timers (at their end) that came due.
        while (!tk.close.empty() && tk.close.top().at <= m_wm) {
            const ModeTimer t = tk.close.top().payload;
            tk.close.pop();
            if (!live(tk, t))
                continue;
            auto &e = tk.keys.entry(t.entry);
            for (ModeSession &s : e.value.sessions)
                if (s.start == t.start && s.end == t.end && !s.emitted) {
                    s.emitted = true; // collected: a second timer for it is stale
                    m_closedKeys.push_back(t.entry);
                    if (!m_update)
                        m_rows.push_back(
                            Row{s.start, s.end, e.key, s.cell.acc.data(), EmitKind::Final});
                }
        }
        emitRows(m_rows, out);
        for (; closed > 0; --closed)
            dropFirstPane(tk);
        for (std::uint32_t k : m_closedKeys) {
            if (!tk.keys.entry(k).used)
                continue; // listed twice, already freed
            std::erase_if(tk.keys.entry(k).value.sessions,
                          [&](const ModeSession &s) { return s.end <= m_wm; });
            dropKeyIfEmpty(tk, k);
        }
        m_closedKeys.clear();
        out.emitWatermark(w);
    }

private:
    void addToSession(ModeTask &tk, Timestamp start, Timestamp end, const Record &rec)
    {
        const std::uint32_t e = keyEntry(tk);
        auto &list = tk.keys.entry(e).value.sessions;
        ModeSession merged;
        merged.start = start;
        merged.end = end;
        // Overlapping or touching sessions of the key merge with the new one.
        for (auto it = list.begin(); it != list.end();) {
            if (it->start <= merged.end && merged.start <= it->end) {
                merged.start = std::min(merged.start, it->start);
                merged.end = std::max(merged.end, it->end);
                if (merged.cell.acc.empty())
                    merged.cell.acc.resize(m_aggs.size());
                if (!it->cell.acc.empty())
                    m_aggs.merge(merged.cell.acc.data(), it->cell.acc.data());
                it = list.erase(it);
            } else {
                ++it;
            }
        }
        fold(merged.cell, rec);
        tk.close.push(merged.end, ModeTimer{e, tk.gens[e], merged.start, merged.end});
        auto pos = std::lower_bound(list.begin(), list.end(), merged.start,
                                    [](const ModeSession &s, Timestamp v) { return s.start < v; });
        list.insert(pos, std::move(merged));
    }

    void armTimers(ModeTask &tk, std::uint32_t e) override
    {
        for (const ModeSession &s : tk.keys.entry(e).value.sessions)
            tk.close.push(s.end, ModeTimer{e, tk.gens[e], s.start, s.end});
    }

    void emitChanged(Output &out)
    {
        for (auto &[start, p] : task(0).panes) {
            for (std::uint32_t i : p.changed) {
                p.dirty[i] = 0;
                m_rows.push_back(
                    Row{p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Update});
            }
            p.changed.clear();
        }
        emitRows(m_rows, out);
    }

    bool m_update = false;
    std::vector<std::uint32_t> m_closedKeys; ///< keys whose sessions the firing collected
};

} // namespace

std::unique_ptr<Operator> makeSparkWindow(const OperatorContext &ctx, WindowConfig cfg)
{
    return std::make_unique<SparkWindow>(ctx, std::move(cfg));
}

} // namespace tideline::window
