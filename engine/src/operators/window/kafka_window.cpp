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
//   the merged session's end < stream time - gap - grace. Under "updates" each session merged
//   away is retracted first ("emit": "retract", aggregates null), as Kafka Streams forwards a
//   tombstone for it (docs/reference/semantics.md).
// - SlidingWindows ("sliding" without slide_ms, size_ms = the time difference): windows are
//   aligned to records, both ends inclusive: [t - size, t] for each record time t, and
//   [t + 1, t + 1 + size] for a record time t when some record falls into it. A record updates
//   every such window that contains it; a window accepts while its end + grace > stream time.
// - emit "updates": every change of a window is written at once ("emit": "update"), a
//   changelog. emit "on_close": a window is written once ("final") when stream time - grace
//   reaches its end (sessions: when end < stream time - gap - grace), as
//   EmitStrategy.onWindowClose does (without its wall-clock throttle). At the end of a bounded
//   input every window left is written.
// - State (mode_window.hpp): a task per partition; its panes by start (closing pops them from
//   the front), sessions and SlidingWindows per key, and timers for what closes and expires by
//   stream time, so a record touches only its key and what came due.

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
        ModeTask &tk = task(rec.partition);
        tk.streamTime = std::max(tk.streamTime, t);
        const Timestamp st = tk.streamTime;
        m_codec.encode(rec, m_keyBuf);
        bool accepted = false;
        if (m_cfg.type == WindowType::Session)
            accepted = addToSession(tk, t, st, rec, out);
        else if (m_recordAligned)
            accepted = addSliding(tk, t, st, rec, out);
        else
            accepted = addAligned(tk, t, st, rec, out);
        if (!accepted) {
            // The wrapper's "watermark" is the close time the record was measured against.
            const Timestamp close = m_cfg.type == WindowType::Session
                                        ? satSub(satSub(st, m_cfg.gap), m_grace)
                                        : satSub(st, m_grace);
            out.emitLate(kDropped, std::move(rec), close);
        }
        if (m_onClose)
            emitClosed(tk, st, out);
        else
            expire(tk, st);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w == kMaxTime) { // the input ended: everything left closes
            if (m_onClose)
                for (auto &[part, tk] : m_tasks)
                    emitAll(tk, out);
            for (auto &[part, tk] : m_tasks) { // stream time stays
                tk.panes.clear();
                tk.keys.clear();
                tk.gens.clear();
                tk.close.clear();
                tk.gone.clear();
            }
        }
        out.emitWatermark(w);
    }

private:
    bool addAligned(ModeTask &tk, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp slide = m_cfg.type == WindowType::Tumbling ? m_cfg.size : m_cfg.slide;
        const Timestamp closeTime = satSub(st, m_grace);
        bool any = false;
        const std::uint64_t h = hashBytes(m_keyBuf);
        alignedWindowsOf(t, m_cfg.size, slide, m_spans);
        for (const auto &[start, end] : m_spans) {
            if (start < 0 || end <= closeTime)
                continue;
            if (!any)
                out.account(observe::Fate::Windowed);
            any = true;
            ModePane &p = pane(tk, start, end);
            const std::uint32_t i = foldPane(p, h, rec);
            if (!m_onClose)
                emitResult(start, end, p.table.key(i), p.table.acc(i), EmitKind::Update, out);
        }
        return any;
    }

    bool addToSession(ModeTask &tk, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp closeTime = satSub(satSub(st, m_cfg.gap), m_grace);
        const Timestamp lo = satSub(t, m_cfg.gap), hi = satAdd(t, m_cfg.gap);
        std::uint32_t e = tk.keys.find(m_keyBuf);
        Timestamp start = t, end = t;
        if (e != keys::KeyTable<ModeKeyState>::kNone)
            for (const auto &s : tk.keys.entry(e).value.sessions)
                if (s.end >= lo && s.start <= hi) {
                    start = std::min(start, s.start);
                    end = std::max(end, s.end);
                }
        if (end < closeTime)
            return false;
        if (e == keys::KeyTable<ModeKeyState>::kNone)
            e = keyEntry(tk);
        auto &list = tk.keys.entry(e).value.sessions;
        ModeSession merged;
        merged.start = start;
        merged.end = end;
        merged.cell.acc.resize(m_aggs.size());
        // KStreamSessionWindowAggregate removes every session it merged and forwards a
        // tombstone for each, unless the merged window is the record's own [t, t]; "updates"
        // writes those as retraction rows, before the merged session's row.
        const bool replaced = start != t || end != t;
        for (auto it = list.begin(); it != list.end();) {
            if (it->end >= lo && it->start <= hi) {
                m_aggs.merge(merged.cell.acc.data(), it->cell.acc.data());
                if (replaced && !m_onClose)
                    emitRetraction(it->start, it->end, m_keyBuf, out);
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
        armSession(tk, e, *pos);
        if (!m_onClose)
            emitUpdate(pos->start, pos->end, m_keyBuf, pos->cell, out);
        return true;
    }

    // SlidingWindows: the windows are derived from the record times of the key, so the records
    // themselves are kept (until every window they are in has closed) and a changed window's
    // aggregate is folded again from them.
    bool addSliding(ModeTask &tk, Timestamp t, Timestamp st, const Record &rec, Output &out)
    {
        const Timestamp d = m_cfg.size;
        const Timestamp closeTime = satSub(st, m_grace);
        std::uint32_t e = tk.keys.find(m_keyBuf);
        // Windows that would contain t: [s, s + d] with s in [t - d, t].
        std::set<Timestamp> starts;
        starts.insert(satSub(t, d)); // its own left window
        if (e != keys::KeyTable<ModeKeyState>::kNone) {
            const auto &recs = tk.keys.entry(e).value.records;
            // Only records within d (+1) of t can add a window start in [t - d, t].
            for (auto it = recs.lower_bound(satSub(satSub(t, d), 1));
                 it != recs.end() && it->first <= satAdd(t, d); ++it) {
                const Timestamp rt = it->first;
                if (rt < t && satAdd(rt, 1) >= satSub(t, d)) // right window of an earlier record
                    starts.insert(satAdd(rt, 1));
                if (rt > t && satSub(rt, d) <= t) // left window of a later record
                    starts.insert(satSub(rt, d));
            }
        }
        m_open.clear();
        for (Timestamp s : starts)
            if (satAdd(s, d) > closeTime)
                m_open.push_back(s);
        if (m_open.empty())
            return false;
        out.account(observe::Fate::Windowed);
        if (e == keys::KeyTable<ModeKeyState>::kNone)
            e = keyEntry(tk);
        ModeKeyState &ks = tk.keys.entry(e).value;
        auto &recs = ks.records;
        recs.emplace(t, rec);
        tk.gone.push(recordGone(t), ModeTimer{e, tk.gens[e], t, t});
        // Its own right window [t + 1, t + 1 + size] is created (it does not contain t) when a
        // later record already falls into it and it does not exist yet.
        const Timestamp rightStart = satAdd(t, 1), rightEnd = satAdd(rightStart, d);
        const bool rightExists = ks.windows.count(rightStart) != 0;
        if (!rightExists && rightEnd > closeTime) {
            auto later = recs.upper_bound(t);
            if (later != recs.end() && later->first <= rightEnd)
                m_open.push_back(rightStart);
        }
        std::sort(m_open.begin(), m_open.end());
        for (Timestamp s : m_open) {
            const Timestamp we = satAdd(s, d);
            ModeCell cell;
            cell.acc.resize(m_aggs.size());
            for (auto it = recs.lower_bound(s); it != recs.end() && it->first <= we; ++it)
                m_ignoredValues += m_aggs.add(it->second, cell.acc.data());
            cell.dirty = true;
            auto [slot, created] = ks.windows.try_emplace(s);
            slot->second = std::move(cell);
            if (created)
                tk.close.push(we, ModeTimer{e, tk.gens[e], s, we});
            if (!m_onClose)
                emitUpdate(s, we, m_keyBuf, slot->second, out);
        }
        return true;
    }

    void emitUpdate(Timestamp start, Timestamp end, std::string_view key, ModeCell &c, Output &out)
    {
        c.dirty = false;
        emitResult(start, end, key, c.acc.data(), EmitKind::Update, out);
    }

    /// A kept record is needed while a window it is in can still change: its latest window
    /// [t, t + size] (a right window starts later but needs a later record) ends >= close time.
    Timestamp recordGone(Timestamp t) const { return satAdd(satAdd(t, 1), 2 * m_cfg.size); }

    /// A session's timers: written (on_close) once end < stream time - gap - grace; gone once
    /// no record it could merge with can be accepted (end < that - gap).
    void armSession(ModeTask &tk, std::uint32_t e, const ModeSession &s)
    {
        const ModeTimer t{e, tk.gens[e], s.start, s.end};
        if (m_onClose && !s.emitted)
            tk.close.push(s.end, t);
        tk.gone.push(s.end, t);
    }

    void armTimers(ModeTask &tk, std::uint32_t e) override
    {
        const ModeKeyState &ks = tk.keys.entry(e).value;
        for (const ModeSession &s : ks.sessions)
            armSession(tk, e, s);
        for (const auto &[s, cell] : ks.windows)
            tk.close.push(satAdd(s, m_cfg.size),
                          ModeTimer{e, tk.gens[e], s, satAdd(s, m_cfg.size)});
        for (const auto &[rt, r] : ks.records)
            tk.gone.push(recordGone(rt), ModeTimer{e, tk.gens[e], rt, rt});
    }

    /// on_close, after each record: time and sliding windows close once end <= stream time -
    /// grace (the mirror of accepting while end > stream time - grace); sessions once end <
    /// stream time - gap - grace. Written ordered by (end, start, key), then expired.
    void emitClosed(ModeTask &tk, Timestamp st, Output &out)
    {
        const Timestamp closeTime = satSub(st, m_grace);
        std::size_t closed = 0;
        for (auto &[start, p] : tk.panes) {
            if (p.end > closeTime)
                break;
            ++closed;
            for (std::uint32_t i = 0; i < p.table.size(); ++i)
                m_rows.push_back(
                    Row{p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Final});
        }
        const bool session = m_cfg.type == WindowType::Session;
        const Timestamp sessionClose = satSub(satSub(st, m_cfg.gap), m_grace);
        while (!tk.close.empty()
               && (session ? tk.close.top().at < sessionClose : tk.close.top().at <= closeTime)) {
            const ModeTimer t = tk.close.top().payload;
            tk.close.pop();
            if (!live(tk, t))
                continue;
            auto &entry = tk.keys.entry(t.entry);
            if (session) {
                for (ModeSession &s : entry.value.sessions)
                    if (s.start == t.start && s.end == t.end && !s.emitted) {
                        s.emitted = true;
                        m_rows.push_back(
                            Row{s.start, s.end, entry.key, s.cell.acc.data(), EmitKind::Final});
                    }
            } else if (auto w = entry.value.windows.find(t.start); w != entry.value.windows.end()) {
                m_rows.push_back(
                    Row{t.start, t.end, entry.key, w->second.acc.data(), EmitKind::Final});
                m_closedWindows.push_back(t); // dropped once written
            }
        }
        emitRows(m_rows, out);
        for (; closed > 0; --closed)
            dropFirstPane(tk);
        for (const ModeTimer &t : m_closedWindows)
            if (tk.keys.entry(t.entry).used) { // a key listed twice may be freed already
                tk.keys.entry(t.entry).value.windows.erase(t.start);
                dropKeyIfEmpty(tk, t.entry);
            }
        m_closedWindows.clear();
        expire(tk, st);
    }

    /// The end of a bounded input: every window left is written.
    void emitAll(ModeTask &tk, Output &out)
    {
        for (auto &[start, p] : tk.panes)
            for (std::uint32_t i = 0; i < p.table.size(); ++i)
                m_rows.push_back(
                    Row{p.start, p.end, p.table.key(i), p.table.acc(i), EmitKind::Final});
        tk.keys.forEach([&](std::uint32_t, const auto &entry) {
            for (const ModeSession &s : entry.value.sessions)
                if (!s.emitted)
                    m_rows.push_back(
                        Row{s.start, s.end, entry.key, s.cell.acc.data(), EmitKind::Final});
            for (const auto &[s, cell] : entry.value.windows)
                m_rows.push_back(
                    Row{s, satAdd(s, m_cfg.size), entry.key, cell.acc.data(), EmitKind::Final});
        });
        emitRows(m_rows, out);
    }

    /// Closed windows leave the state (emit "updates": without output; their retention).
    void expire(ModeTask &tk, Timestamp st)
    {
        const Timestamp closeTime = satSub(st, m_grace);
        while (!tk.panes.empty() && tk.panes.begin()->second.end <= closeTime)
            dropFirstPane(tk);
        if (m_cfg.type == WindowType::Session) {
            // A closed session stays while a record it could merge with may still be accepted
            // (the session store keeps it as long): end >= t - gap for some t >= the close time.
            const Timestamp sessionGone = satSub(satSub(satSub(st, m_cfg.gap), m_grace), m_cfg.gap);
            while (!tk.gone.empty() && tk.gone.top().at < sessionGone) {
                const ModeTimer t = tk.gone.top().payload;
                tk.gone.pop();
                if (!live(tk, t))
                    continue;
                std::erase_if(tk.keys.entry(t.entry).value.sessions,
                              [&](const ModeSession &s) { return s.end < sessionGone; });
                dropKeyIfEmpty(tk, t.entry);
            }
            return;
        }
        if (!m_recordAligned)
            return;
        while (!tk.close.empty() && tk.close.top().at <= closeTime) {
            const ModeTimer t = tk.close.top().payload;
            tk.close.pop();
            if (!live(tk, t))
                continue;
            tk.keys.entry(t.entry).value.windows.erase(t.start);
            dropKeyIfEmpty(tk, t.entry);
        }
        while (!tk.gone.empty() && tk.gone.top().at < closeTime) {
            const ModeTimer t = tk.gone.top().payload;
            tk.gone.pop();
            if (!live(tk, t))
                continue;
            auto &recs = tk.keys.entry(t.entry).value.records;
            while (!recs.empty() && recordGone(recs.begin()->first) < closeTime)
                recs.erase(recs.begin());
            dropKeyIfEmpty(tk, t.entry);
        }
    }

    bool m_recordAligned;
    bool m_onClose = false;
    Timestamp m_grace = 0;
    std::vector<Timestamp> m_open;
    std::vector<ModeTimer> m_closedWindows;
};

} // namespace

std::unique_ptr<Operator>
makeKafkaWindow(const OperatorContext &ctx, WindowConfig cfg, bool recordAligned)
{
    return std::make_unique<KafkaWindow>(ctx, std::move(cfg), recordAligned);
}

} // namespace tideline::window
