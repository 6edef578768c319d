#include "operators/window/mode_window.hpp"

#include "semantics/semantics.hpp"

#include <algorithm>
#include <numeric>

namespace tideline::window {

ModeWindowBase::ModeWindowBase(const OperatorContext &ctx, WindowConfig cfg)
    : WindowOperatorBase(ctx, std::move(cfg))
{
    if (ctx.semantics) {
        m_delay = ctx.semantics->delayOf(ctx.spec.id);
        m_engine = semantics::engineName(ctx.semantics->engine);
    }
}

std::string ModeWindowBase::stateFingerprint() const
{
    return std::string("mode-") + m_engine + "-" + WindowOperatorBase::stateFingerprint();
}

void ModeWindowBase::reportMetrics(observe::NodeMetrics &m) const
{
    std::int64_t entries = 0, windows = 0, sessions = 0;
    for (const auto &[part, tk] : m_tasks) {
        windows += static_cast<std::int64_t>(tk.panes.size());
        for (const auto &[start, p] : tk.panes)
            entries += static_cast<std::int64_t>(p.table.size());
        tk.keys.forEach([&](std::uint32_t, const auto &e) {
            sessions += static_cast<std::int64_t>(e.value.sessions.size());
            entries += static_cast<std::int64_t>(e.value.windows.size());
            windows += static_cast<std::int64_t>(e.value.windows.size());
        });
    }
    m.stateEntries = entries + sessions;
    m.openWindows = windows + sessions;
    m.stateBytes = (entries + sessions) * static_cast<std::int64_t>(64 + 32 * m_aggs.size());
    m.errors += m_ignoredValues;
}

void ModeWindowBase::fold(ModeCell &c, const Record &rec)
{
    if (c.acc.empty())
        c.acc.resize(m_aggs.size());
    m_ignoredValues += m_aggs.add(rec, c.acc.data());
    c.dirty = true;
}

void ModeWindowBase::emitRetraction(Timestamp start,
                                    Timestamp end,
                                    std::string_view key,
                                    Output &out)
{
    Record r;
    r.reserve(m_cfg.key.size() + m_aggs.size() + 3, 48 + key.size());
    m_codec.writeTo(key, r);
    r.append(StaticPath(kWindowStart), Value::integer(start));
    r.append(StaticPath(kWindowEnd), Value::integer(end));
    for (const AggSpec &a : m_cfg.aggregates)
        r.set(std::string_view(a.as), Value::null());
    r.append(StaticPath(kEmit), Value::staticString("retract"));
    r.time = satSub(end, 1); // as the rows of the session it retracts
    // The ledger: a window's records_out are its final and update rows; a retraction is part
    // of the changelog of updates.
    out.account(observe::Fate::WindowUpdate);
    out.emit(0, std::move(r));
}

void ModeWindowBase::emitRows(std::vector<Row> &rows, Output &out)
{
    if (rows.empty())
        return;
    m_order.resize(rows.size());
    std::iota(m_order.begin(), m_order.end(), 0u);
    m_keys.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        m_keys[i] = rows[i].key;
    sortByKey(m_order, m_keys);
    std::stable_sort(m_order.begin(), m_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(rows[a].end, rows[a].start) < std::tie(rows[b].end, rows[b].start);
    });
    for (std::uint32_t i : m_order)
        emitResult(rows[i].start, rows[i].end, rows[i].key, rows[i].acc, rows[i].kind, out);
    rows.clear();
}

ModeTask &ModeWindowBase::task(std::uint32_t part)
{
    if (m_lastTask != nullptr && m_lastPart == part) [[likely]]
        return *m_lastTask;
    m_lastTask = &m_tasks[part]; // std::map: the reference stays valid
    m_lastPart = part;
    return *m_lastTask;
}

ModePane &ModeWindowBase::pane(ModeTask &tk, Timestamp start, Timestamp end)
{
    bool created = false;
    ModePane &p = tk.panes.get(start, created);
    if (created) {
        p.start = start;
        p.end = end;
        if (!m_pool.empty()) {
            p.table = std::move(m_pool.back());
            m_pool.pop_back();
        }
        p.table.reset(m_expected, m_aggs.size());
    }
    return p;
}

std::uint32_t ModeWindowBase::foldPane(ModePane &p, std::uint64_t h, const Record &rec)
{
    bool created = false;
    const std::uint32_t idx = p.table.findOrInsert(m_keyBuf, h, created);
    m_ignoredValues += m_aggs.add(rec, p.table.acc(idx));
    if (m_trackDirty) {
        if (p.dirty.size() <= idx)
            p.dirty.resize(std::max<std::size_t>(idx + 1, p.dirty.size() * 2));
        if (p.dirty[idx] == 0) {
            p.dirty[idx] = 1;
            p.changed.push_back(idx);
        }
    }
    return idx;
}

void ModeWindowBase::dropFirstPane(ModeTask &tk)
{
    ModePane &p = tk.panes.begin()->second;
    m_expected = std::max<std::size_t>(16, p.table.size());
    if (m_pool.size() < 4)
        m_pool.push_back(std::move(p.table));
    tk.panes.erase(tk.panes.begin()->first);
}

std::uint32_t ModeWindowBase::keyEntry(ModeTask &tk)
{
    const auto [e, inserted] = tk.keys.tryEmplace(m_keyBuf, ModeKeyState{});
    if (tk.gens.size() <= e)
        tk.gens.resize(std::max<std::size_t>(e + 1, tk.gens.size() * 2));
    return e;
}

void ModeWindowBase::dropKeyIfEmpty(ModeTask &tk, std::uint32_t e)
{
    const ModeKeyState &ks = tk.keys.entry(e).value;
    if (!ks.sessions.empty() || !ks.records.empty() || !ks.windows.empty())
        return;
    tk.keys.erase(e);
    ++tk.gens[e];
}

Json paramsForEngine(const Json &params, semantics::Engine engine, bool &recordAligned)
{
    recordAligned = engine == semantics::Engine::KafkaStreams
                    && semantics::stringAt(params, "type") == "sliding"
                    && !params.contains("slide_ms");
    if (!recordAligned)
        return params;
    Json p = params;
    p["slide_ms"] = params.contains("size_ms") ? params["size_ms"] : Json(1);
    return p;
}

void alignedWindowsOf(Timestamp t,
                      Timestamp size,
                      Timestamp slide,
                      std::vector<std::pair<Timestamp, Timestamp>> &w)
{
    w.clear();
    Timestamp r = t % slide;
    if (r < 0)
        r += slide;
    const Timestamp lastStart = satSub(t, r);
    for (Timestamp s = lastStart; satAdd(s, size) > t; s = satSub(s, slide)) {
        w.emplace_back(s, satAdd(s, size));
        if (s == kMinTime)
            break;
    }
    std::reverse(w.begin(), w.end());
}

} // namespace tideline::window
