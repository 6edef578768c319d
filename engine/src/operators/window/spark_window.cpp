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
        m_wm = 0; // Spark's initial global watermark
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const Timestamp t = rec.time;
        if (m_cfg.type == WindowType::Session) {
            const Timestamp end = satAdd(t, m_cfg.gap);
            if (end <= m_wm) {
                out.emitLate(kDropped, std::move(rec), m_wm);
                return;
            }
            m_codec.encode(rec, m_keyBuf);
            out.account(observe::Fate::Windowed);
            addToSession(t, end, rec);
            return;
        }
        const Timestamp slide = m_cfg.type == WindowType::Tumbling ? m_cfg.size : m_cfg.slide;
        auto windows = alignedWindowsOf(t, m_cfg.size, slide);
        std::erase_if(windows, [&](const auto &w) { return w.second <= m_wm; });
        if (windows.empty()) {
            out.emitLate(kDropped, std::move(rec), m_wm);
            return;
        }
        m_codec.encode(rec, m_keyBuf);
        out.account(observe::Fate::Windowed);
        for (const auto &[start, end] : windows)
            fold(m_windows[ModeWindowId{end, start, 0}][m_keyBuf], rec);
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
        // Windows: the map is ordered by end, so closed ones are at the front.
        while (!m_windows.empty() && m_windows.begin()->first.end <= m_wm) {
            auto it = m_windows.begin();
            if (!m_update)
                for (auto &[key, cell] : it->second)
                    m_rows.push_back(
                        Row{it->first.start, it->first.end, key, cell.acc.data(), EmitKind::Final});
            m_done.push_back(std::move(it->second));
            m_windows.erase(it);
        }
        for (auto &[k, list] : m_sessions) {
            for (auto &s : list)
                if (s.end <= m_wm && !m_update)
                    m_rows.push_back(
                        Row{s.start, s.end, k.second, s.cell.acc.data(), EmitKind::Final});
        }
        emitRows(m_rows, out);
        m_done.clear();
        for (auto it = m_sessions.begin(); it != m_sessions.end();) {
            std::erase_if(it->second, [&](const ModeSession &s) { return s.end <= m_wm; });
            it = it->second.empty() ? m_sessions.erase(it) : std::next(it);
        }
        out.emitWatermark(w);
    }

private:
    void addToSession(Timestamp start, Timestamp end, const Record &rec)
    {
        auto &list = m_sessions[{0, m_keyBuf}];
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
        auto pos = std::lower_bound(list.begin(), list.end(), merged.start,
                                    [](const ModeSession &s, Timestamp v) { return s.start < v; });
        list.insert(pos, std::move(merged));
    }

    void emitChanged(Output &out)
    {
        for (auto &[id, table] : m_windows)
            for (auto &[key, cell] : table)
                if (cell.dirty) {
                    cell.dirty = false;
                    m_rows.push_back(Row{id.start, id.end, key, cell.acc.data(), EmitKind::Update});
                }
        emitRows(m_rows, out);
    }

    bool m_update = false;
    std::vector<Row> m_rows;
    std::vector<Table> m_done; ///< windows being emitted (rows point into them)
};

} // namespace

std::unique_ptr<Operator> makeSparkWindow(const OperatorContext &ctx, WindowConfig cfg)
{
    return std::make_unique<SparkWindow>(ctx, std::move(cfg));
}

} // namespace tideline::window
