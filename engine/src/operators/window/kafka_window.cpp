// The window node under settings.semantics "kafka-streams": Kafka Streams' windowed
// aggregations (KStreamWindowAggregate, KStreamSessionWindowAggregate,
// KStreamSlidingWindowAggregate) as a TopologyTestDriver runs them with caching off.
//
// - No watermarks: each task (here: each source partition the records came from) keeps its
//   stream time, the largest record timestamp it has seen, the current record included.
//   Grace = allowed_lateness_ms + the upstream watermark node's max_out_of_orderness_ms.
// - Time windows (tumbling; hopping = "sliding" with slide_ms): a window accepts a record while
//   its end > stream time - grace; hopping windows never start before 0 (TimeWindows'
//   windowsFor). A record no window accepts goes to `late`.
// - Sessions are closed intervals [first, last], written with window_end = last. A record
//   merges every session of its key with end >= t - gap and start <= t + gap; it is dropped when
//   the merged session's end < stream time - gap - grace. Merged-away sessions are not written
//   (Kafka Streams forwards a tombstone for each; docs/reference/semantics.md).
// - SlidingWindows ("sliding" without slide_ms, size_ms = the time difference): windows are
//   aligned to records, both ends inclusive: [t - size, t] for each record time t, and
//   [t + 1, t + 1 + size] for a record time t when some record falls into it. A record updates
//   every such window that contains it; a window accepts while its end + grace > stream time.
// - emit "updates": every change of a window is written at once ("emit": "update"), a
//   changelog. emit "on_close": a window is written once ("final") when stream time - grace
//   reaches its end (sessions: when end < stream time - gap - grace), as
//   EmitStrategy.onWindowClose does (without its wall-clock throttle). At the end of a bounded
//   input every window left is written.

#include "operators/window/mode_window.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>
#include <set>

namespace tideline::window {

namespace {

constexpr const char *kDropped = "Kafka Streams drops this record (stream time passed the end "
                                 "+ grace of every window it belongs to)";

class KafkaWindow final : public ModeWindowBase
{
public:
    KafkaWindow(const OperatorContext &ctx, WindowConfig cfg, bool recordAligned)
        : ModeWindowBase(ctx, std::move(cfg))
        , m_recordAligned(recordAligned)
    {
        m_onClose = ctx.semantics && ctx.semantics->kafka.onClose;
        m_grace = satAdd(m_cfg.lateness, m_delay);
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        const Timestamp t = rec.time;
        const std::uint32_t part = rec.partition;
        Timestamp &st = m_streamTime.try_emplace(part, kMinTime).first->second;
        st = std::max(st, t);
        m_codec.encode(rec, m_keyBuf);
        bool accepted = false;
        if (m_cfg.type == WindowType::Session)
            accepted = addToSession(part, t, st, rec, out);
        else if (m_recordAligned)
            accepted = addSliding(part, t, st, rec, out);
        else
            accepted = addAligned(part, t, st, rec, out);
        if (!accepted) {
            // The wrapper's "watermark" is the close time the record was measured against.
            const Timestamp close = m_cfg.type == WindowType::Session
                                        ? satSub(satSub(st, m_cfg.gap), m_grace)
                                        : satSub(st, m_grace);
            out.emitLate(kDropped, std::move(rec), close);
        }
        if (m_onClose)
            emitClosed(part, st, false, out);
        else
            expire(part, st);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w == kMaxTime) { // the input ended: everything left closes
            for (const auto &task : m_streamTime)
                if (m_onClose)
                    emitClosed(task.first, kMaxTime, true, out);
            m_windows.clear();
            m_sessions.clear();
            m_records.clear();
        }
        out.emitWatermark(w);
    }

private:
    bool addAligned(std::uint32_t part, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp slide = m_cfg.type == WindowType::Tumbling ? m_cfg.size : m_cfg.slide;
        const Timestamp closeTime = satSub(st, m_grace);
        bool any = false;
        for (const auto &[start, end] : alignedWindowsOf(t, m_cfg.size, slide)) {
            if (start < 0 || end <= closeTime)
                continue;
            if (!any)
                out.account(observe::Fate::Windowed);
            any = true;
            ModeWindowId id{end, start, part};
            auto &table = m_windows[id];
            auto &cell = table[m_keyBuf];
            fold(cell, rec);
            if (!m_onClose)
                emitOne(start, end, table.find(m_keyBuf)->first, cell, out);
        }
        return any;
    }

    bool addToSession(std::uint32_t part, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp closeTime = satSub(satSub(st, m_cfg.gap), m_grace);
        auto &list = m_sessions[{part, m_keyBuf}];
        Timestamp start = t, end = t;
        for (const auto &s : list)
            if (s.end >= satSub(t, m_cfg.gap) && s.start <= satAdd(t, m_cfg.gap)) {
                start = std::min(start, s.start);
                end = std::max(end, s.end);
            }
        if (end < closeTime)
            return false;
        ModeSession merged;
        merged.start = start;
        merged.end = end;
        merged.cell.acc.resize(m_aggs.size());
        for (auto it = list.begin(); it != list.end();) {
            if (it->end >= satSub(t, m_cfg.gap) && it->start <= satAdd(t, m_cfg.gap)) {
                m_aggs.merge(merged.cell.acc.data(), it->cell.acc.data());
                it = list.erase(it);
            } else {
                ++it;
            }
        }
        out.account(observe::Fate::Windowed);
        fold(merged.cell, rec);
        auto pos = std::lower_bound(list.begin(), list.end(), start,
                                    [](const ModeSession &s, Timestamp v) { return s.start < v; });
        pos = list.insert(pos, std::move(merged));
        if (!m_onClose)
            emitOne(pos->start, pos->end, m_keyBuf, pos->cell, out);
        return true;
    }

    // SlidingWindows: the windows are derived from the record times of the key, so the records
    // themselves are kept (until every window they are in has closed) and a changed window's
    // aggregate is folded again from them.
    bool addSliding(std::uint32_t part, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp d = m_cfg.size;
        const Timestamp closeTime = satSub(st, m_grace);
        auto &recs = m_records[{part, m_keyBuf}];
        // Windows that would contain t: [s, s + d] with s in [t - d, t].
        std::set<Timestamp> starts;
        starts.insert(satSub(t, d)); // its own left window
        for (const auto &[rt, r] : recs) {
            if (rt < t && satAdd(rt, 1) >= satSub(t, d)) // right window of an earlier record
                starts.insert(satAdd(rt, 1));
            if (rt > t && satSub(rt, d) <= t) // left window of a later record
                starts.insert(satSub(rt, d));
        }
        std::vector<Timestamp> open;
        for (Timestamp s : starts)
            if (satAdd(s, d) > closeTime)
                open.push_back(s);
        if (open.empty())
            return false;
        out.account(observe::Fate::Windowed);
        recs.emplace(t, rec);
        // Its own right window [t + 1, t + 1 + size] is created (it does not contain t) when a
        // later record already falls into it and it does not exist yet.
        const Timestamp rightStart = satAdd(t, 1), rightEnd = satAdd(rightStart, d);
        const bool rightExists = [&] {
            auto w = m_windows.find(ModeWindowId{rightEnd, rightStart, part});
            return w != m_windows.end() && w->second.count(m_keyBuf) != 0;
        }();
        if (!rightExists && rightEnd > closeTime
            && std::any_of(recs.begin(), recs.end(),
                           [&](const auto &p) { return p.first > t && p.first <= rightEnd; }))
            open.push_back(rightStart);
        std::sort(open.begin(), open.end());
        for (Timestamp s : open) {
            const Timestamp e = satAdd(s, d);
            ModeCell cell;
            cell.acc.resize(m_aggs.size());
            for (const auto &[rt, r] : recs)
                if (rt >= s && rt <= e)
                    m_ignoredValues += m_aggs.add(r, cell.acc.data());
            cell.dirty = true;
            auto &table = m_windows[ModeWindowId{e, s, part}];
            auto &slot = table[m_keyBuf];
            slot = std::move(cell);
            if (!m_onClose)
                emitOne(s, e, m_keyBuf, slot, out);
        }
        return true;
    }

    void emitOne(Timestamp start, Timestamp end, std::string_view key, ModeCell &c, Output &out)
    {
        c.dirty = false;
        emitResult(start, end, key, c.acc.data(), EmitKind::Update, out);
    }

    /// Time and sliding windows: closed once end <= stream time - grace (the mirror of
    /// accepting while end > stream time - grace); sessions once end < stream time - gap - grace.
    bool windowClosed(const ModeWindowId &id, Timestamp st) const
    {
        return id.end <= satSub(st, m_grace);
    }

    void emitClosed(std::uint32_t part, Timestamp st, bool all, Output &out)
    {
        for (auto it = m_windows.begin(); it != m_windows.end();) {
            if (it->first.part != part || !(all || windowClosed(it->first, st))) {
                ++it;
                continue;
            }
            for (auto &[key, cell] : it->second)
                m_rows.push_back(
                    Row{it->first.start, it->first.end, key, cell.acc.data(), EmitKind::Final});
            m_done.push_back(std::move(it->second));
            it = m_windows.erase(it);
        }
        const Timestamp sessionClose = satSub(satSub(st, m_cfg.gap), m_grace);
        for (auto &[k, list] : m_sessions) {
            if (k.first != part)
                continue;
            for (auto &s : list)
                if (!s.emitted && (all || s.end < sessionClose)) {
                    s.emitted = true;
                    m_rows.push_back(
                        Row{s.start, s.end, k.second, s.cell.acc.data(), EmitKind::Final});
                }
        }
        emitRows(m_rows, out);
        m_done.clear();
        expire(part, st);
    }

    /// Closed windows leave the state (emit "updates": without output; their retention).
    void expire(std::uint32_t part, Timestamp st)
    {
        for (auto it = m_windows.begin(); it != m_windows.end();)
            it = it->first.part == part && windowClosed(it->first, st) ? m_windows.erase(it)
                                                                       : std::next(it);
        // A closed session stays while a record it could merge with may still be accepted (the
        // session store keeps it as long): end >= t - gap for some t >= the close time.
        const Timestamp sessionGone = satSub(satSub(satSub(st, m_cfg.gap), m_grace), m_cfg.gap);
        for (auto it = m_sessions.begin(); it != m_sessions.end();) {
            if (it->first.first == part)
                std::erase_if(it->second,
                              [&](const ModeSession &s) { return s.end < sessionGone; });
            it = it->second.empty() ? m_sessions.erase(it) : std::next(it);
        }
        dropOldRecords(part, st);
    }

    /// A kept record is needed while a window it is in can still change: its latest window
    /// [t, t + size] (a right window starts later but needs a later record) ends >= close time.
    void dropOldRecords(std::uint32_t part, Timestamp st)
    {
        if (!m_recordAligned)
            return;
        const Timestamp closeTime = satSub(st, m_grace);
        for (auto it = m_records.begin(); it != m_records.end();) {
            if (it->first.first == part) {
                auto &recs = it->second;
                while (!recs.empty()
                       && satAdd(satAdd(recs.begin()->first, 1), 2 * m_cfg.size) < closeTime)
                    recs.erase(recs.begin());
            }
            it = it->second.empty() ? m_records.erase(it) : std::next(it);
        }
    }

    bool m_recordAligned;
    bool m_onClose = false;
    Timestamp m_grace = 0;
    std::map<std::uint32_t, Timestamp> m_streamTime;
    std::map<std::pair<std::uint32_t, std::string>, std::multimap<Timestamp, Record>> m_records;
    std::vector<Row> m_rows;
    std::vector<Table> m_done;
};

} // namespace

std::unique_ptr<Operator>
makeKafkaWindow(const OperatorContext &ctx, WindowConfig cfg, bool recordAligned)
{
    return std::make_unique<KafkaWindow>(ctx, std::move(cfg), recordAligned);
}

} // namespace tideline::window
