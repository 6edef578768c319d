// Explaining lineage (tideline/engine/lineage.hpp): an input record's path, read off the rows
// and events the store recorded, following each row it became (mapped into, counted in a
// window, joined into a pair) depth-first; the input records behind an output row; both as
// text for people and as JSON for tools.

#include "expr/expr.hpp"
#include "lineage/lineage_store.hpp"

#include <tideline/engine/record_json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

namespace tideline::lineage {

std::string timeText(std::int64_t ms)
{
    if (ms == kMinTime)
        return "−∞";
    if (ms == kMaxTime)
        return "+∞ (the end of the input)";
    const std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const int millis = static_cast<int>(ms - static_cast<std::int64_t>(secs) * 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    return std::string(buf) + " (" + std::to_string(ms) + ")";
}

namespace {

class Explainer
{
public:
    explicit Explainer(const Store &s)
        : m_s(s)
    {
    }

    const std::string &id(int node) const { return m_s.nodeId(node); }

    /// "`clicks` #84" for an input row; a derived row by its first input.
    std::string name(std::uint64_t rowId) const
    {
        const Row *r = m_s.row(rowId);
        if (!r)
            return "a record no longer traceable (#" + std::to_string(rowId) + ")";
        if (r->from.empty() && r->seq > 0)
            return "`" + id(r->node) + "` #" + std::to_string(r->seq) + " " + r->json;
        return r->json;
    }

    TracedInput input(const Row &r)
    {
        TracedInput t;
        t.id = r.id;
        t.source = id(r.node);
        t.seq = r.seq;
        t.record = r.json;
        std::set<std::uint64_t> seen;
        walk(r.id, t, seen);
        return t;
    }

    TracedOutput output(const Output &o) const
    {
        TracedOutput t;
        t.id = o.id;
        t.sink = id(o.sink);
        t.record = o.json;
        // How it was made: the nearest row on its way back that a node made (a window, a join).
        for (const Row *r = m_s.row(o.row); r; r = r->from.empty() ? nullptr : m_s.row(r->from[0]))
            if (!r->note.empty()) {
                t.madeBy = r->note;
                break;
            }
        if (const Row *r = m_s.row(o.row))
            t.inputs = r->inputs;
        return t;
    }

private:
    void walk(std::uint64_t rowId, TracedInput &t, std::set<std::uint64_t> &seen)
    {
        const Row *r = m_s.row(rowId);
        if (!r || !seen.insert(rowId).second)
            return;
        for (std::size_t i = 0; i < r->events.size(); ++i) {
            const Event &e = r->events[i];
            Step s;
            s.node = id(e.node);
            switch (e.what) {
            case What::Read:
                s.kind = "read";
                s.what = "read: record " + std::to_string(e.a) + " of source `" + s.node + "`";
                break;
            case What::Reached:
                if (!reachedOnly(*r, i))
                    continue;
                s.eventTime = e.a == kMinTime ? std::nullopt : std::optional(e.a);
                if (m_s.isJoin(e.node)) {
                    noPartner(e, s);
                } else {
                    s.kind = "held";
                    s.what = "reached `" + s.node + "`: held there (nothing came out of it)";
                }
                break;
            case What::Passed:
                s.kind = "passed";
                s.what = "passed";
                if (e.a != kMinTime) {
                    s.eventTime = e.a;
                    s.what = "passed, with event time " + timeText(e.a);
                }
                break;
            case What::Mapped:
                s.kind = "mapped";
                s.what = "mapped into " + shortJson(e.other);
                s.related = {e.other};
                break;
            case What::Fate:
                s.kind = std::string(observe::fateName(e.fate));
                if (e.fate == observe::Fate::Duplicate) {
                    s.what = "dropped as a duplicate of " + name(e.other) + ", first seen at "
                             + timeText(e.a);
                    s.related = {e.other};
                } else if (e.fate == observe::Fate::Windowed) {
                    // Said with its window ("counted in window …") when it fires; until then
                    // (a live run, a partition's pane not closed yet) it is held.
                    if (firedLater(*r, i))
                        continue;
                    if (m_s.nodeKind(e.node) == "window_join") {
                        s.kind = "windowed";
                        s.what = "in a window of `" + s.node
                                 + "`: no record of the other side with its key in that window "
                                   "(or the window has not closed yet)";
                    } else {
                        s.kind = "held";
                        s.what = "counted in a window of `" + s.node
                                 + "` that has not fired yet: held in its state";
                    }
                } else {
                    s.what = std::string(observe::fateWords(e.fate));
                }
                break;
            case What::Late: {
                s.kind = "late";
                s.watermark = e.a;
                s.what = "late";
                if (e.b > 0)
                    s.what += " by " + std::to_string(e.b) + " ms";
                s.what += " behind W = " + timeText(e.a) + " (" + e.text + ")";
                break;
            }
            case What::Error:
                s.kind = "error";
                s.what = "error: " + e.text;
                break;
            case What::InWindow:
                s.kind = "window";
                s.windowStart = e.a;
                s.windowEnd = e.b;
                s.what = "counted in window [" + timeText(e.a) + ", " + timeText(e.b) + ")"
                         + (e.text.empty() ? "" : " of " + e.text) + " → " + shortJson(e.other);
                s.related = {e.other};
                break;
            case What::Joined:
                s.kind = "joined";
                s.what = e.partner ? "joined with " + name(e.partner) + " → " + shortJson(e.other)
                                   : "joined (its partner is no longer traceable) → "
                                         + shortJson(e.other);
                s.related = {e.other};
                if (e.partner)
                    s.related.push_back(e.partner);
                break;
            case What::Unmatched:
                s.kind = "unmatched";
                s.what = "no partner: emitted with \"right\": null → " + shortJson(e.other);
                s.related = {e.other};
                break;
            case What::Written:
                s.kind = "written";
                s.what = "written by sink `" + s.node + "`";
                t.outputs.push_back(e.other);
                break;
            }
            t.path.push_back(std::move(s));
            if (e.what == What::Mapped || e.what == What::InWindow || e.what == What::Joined
                || e.what == What::Unmatched)
                walk(e.other, t, seen);
        }
    }

    /// Whether a window the record was counted in (event i) fired after.
    static bool firedLater(const Row &r, std::size_t i)
    {
        for (std::size_t j = i + 1; j < r.events.size(); ++j)
            if (r.events[j].node == r.events[i].node
                && (r.events[j].what == What::InWindow || r.events[j].what == What::Joined))
                return true;
        return false;
    }

    /// A Reached event says something only when nothing else happened at that node.
    static bool reachedOnly(const Row &r, std::size_t i)
    {
        const int node = r.events[i].node;
        for (std::size_t j = i + 1; j < r.events.size(); ++j) {
            if (r.events[j].what == What::Reached && r.events[j].node == node)
                break;
            if (r.events[j].node == node)
                return false;
        }
        return true;
    }

    void noPartner(const Event &e, Step &s) const
    {
        const auto [lower, upper] = m_s.joinBounds(e.node);
        s.kind = "join_unmatched";
        if (e.input == 0) {
            const Timestamp until = satAdd(e.a, upper);
            s.watermark = until;
            s.what = "no partner: no right record of its key with event time in ["
                     + timeText(satAdd(e.a, lower)) + ", " + timeText(until)
                     + "] before the watermark passed " + timeText(until);
        } else {
            const Timestamp until = satSub(e.a, lower);
            s.watermark = until;
            s.what = "no partner: no left record of its key with event time in ["
                     + timeText(satSub(e.a, upper)) + ", " + timeText(until)
                     + "] before the watermark passed " + timeText(until);
        }
    }

    std::string shortJson(std::uint64_t rowId) const
    {
        const Row *r = m_s.row(rowId);
        if (!r)
            return "a row no longer traceable";
        return r->json.size() > 300 ? r->json.substr(0, 300) + "…" : r->json;
    }

    const Store &m_s;
};

std::unique_ptr<expr::Expression> compile(std::string_view text, std::string &error)
{
    expr::CompileError err;
    auto e = expr::Expression::compile(text, err);
    if (!e) {
        error = "the expression `" + std::string(text) + "`: " + err.message;
        return e;
    }
    // A condition, as filter's (`imp-9999` compiles, as a subtraction, and matches nothing).
    if (e->type() != expr::Type::Bool && e->type() != expr::Type::Any) {
        error = "the expression `" + std::string(text) + "` gives a " + expr::typeName(e->type())
                + ", not true or false (write a condition, e.g. click_id == \"clk-0082\")";
        e.reset();
    }
    return e;
}

void budgetNote(const Store &s, Explanation &out)
{
    out.forgotten = s.forgottenInputs();
    if (out.forgotten == 0)
        return;
    out.tracedFromMs = s.tracedFromMs();
    std::string from;
    if (out.tracedFromMs > 0) {
        const std::time_t secs = static_cast<std::time_t>(out.tracedFromMs / 1000);
        std::tm tm{};
        gmtime_r(&secs, &tm);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%02d:%02d:%02d UTC", tm.tm_hour, tm.tm_min, tm.tm_sec);
        from = std::string("traced from ") + buf + " on; ";
    }
    out.budgetNote = from + std::to_string(out.forgotten)
                     + (out.forgotten == 1 ? " older input record" : " older input records")
                     + " evicted, no longer traceable (lineage keeps the newest "
                     + std::to_string(s.options().maxRecords) + " records / "
                     + std::to_string(s.options().maxBytes >> 20)
                     + " MiB; raise it with --lineage-budget RECORDS,MIB)";
}

bool isInput(const Row &r)
{
    return r.from.empty() && r.seq > 0;
}

} // namespace

Explanation explainInputs(const Store &store, std::string_view text)
{
    Explanation out;
    auto e = compile(text, out.error);
    if (!e)
        return out;
    Explainer x(store);
    RecordParser parser;
    Record rec;
    std::string err;
    std::set<std::uint64_t> outputs;
    for (const Row &r : store.rows())
        if (isInput(r) && parser.parse(r.json, rec, err) && e->test(rec)) {
            out.inputs.push_back(x.input(r));
            outputs.insert(out.inputs.back().outputs.begin(), out.inputs.back().outputs.end());
        }
    for (const Output &o : store.outputs())
        if (outputs.count(o.id))
            out.outputs.push_back(x.output(o));
    budgetNote(store, out);
    return out;
}

Explanation explainOutputs(const Store &store, std::string_view text)
{
    Explanation out;
    auto e = compile(text, out.error);
    if (!e)
        return out;
    Explainer x(store);
    RecordParser parser;
    Record rec;
    std::string err;
    std::set<std::uint64_t> inputs;
    for (const Output &o : store.outputs())
        if (parser.parse(o.json, rec, err) && e->test(rec)) {
            out.outputs.push_back(x.output(o));
            inputs.insert(out.outputs.back().inputs.begin(), out.outputs.back().inputs.end());
        }
    for (std::uint64_t id : inputs)
        if (const Row *r = store.row(id))
            out.inputs.push_back(x.input(*r));
    budgetNote(store, out);
    return out;
}

Explanation explainAll(const Store &store)
{
    Explanation out;
    Explainer x(store);
    for (const Row &r : store.rows())
        if (isInput(r))
            out.inputs.push_back(x.input(r));
    for (const Output &o : store.outputs())
        out.outputs.push_back(x.output(o));
    budgetNote(store, out);
    return out;
}

namespace {

/// `row` has what `query` has (every field of an object query, recursively; else equal).
bool containsJson(const nlohmann::json &row, const nlohmann::json &query)
{
    if (!query.is_object())
        return row == query;
    if (!row.is_object())
        return false;
    for (auto it = query.begin(); it != query.end(); ++it) {
        auto f = row.find(it.key());
        if (f == row.end() || !containsJson(*f, it.value()))
            return false;
    }
    return true;
}

/// A JSON object (records that contain it) or an expression; false and `error` when neither.
class Matcher
{
public:
    explicit Matcher(std::string_view text, std::string &error)
    {
        if (text.starts_with('{')) {
            m_json = nlohmann::json::parse(text, nullptr, false);
            if (m_json.is_object())
                return;
        }
        m_json = nlohmann::json();
        m_expr = compile(text, error);
    }
    bool ok() const { return m_json.is_object() || m_expr; }
    bool operator()(const std::string &json)
    {
        if (m_json.is_object())
            return containsJson(nlohmann::json::parse(json, nullptr, false), m_json);
        return m_parser.parse(json, m_rec, m_err) && m_expr->test(m_rec);
    }

private:
    nlohmann::json m_json;
    std::unique_ptr<expr::Expression> m_expr;
    RecordParser m_parser;
    Record m_rec;
    std::string m_err;
};

void addInputs(const Store &store,
               Explainer &x,
               const std::set<std::uint64_t> &ids,
               Explanation &out)
{
    for (std::uint64_t id : ids)
        if (const Row *r = store.row(id))
            out.inputs.push_back(x.input(*r));
}

} // namespace

Explanation explainReached(const Store &store, std::string_view node, std::string_view match)
{
    Explanation out;
    Matcher m(match, out.error);
    if (!m.ok())
        return out;
    Explainer x(store);
    std::set<std::uint64_t> inputs;
    for (const Row &r : store.rows()) {
        const bool reached = std::any_of(r.events.begin(), r.events.end(), [&](const Event &e) {
            return e.what == What::Reached && store.nodeId(e.node) == node;
        });
        if (reached && m(r.json))
            inputs.insert(r.inputs.begin(), r.inputs.end());
    }
    addInputs(store, x, inputs, out);
    std::set<std::uint64_t> outputs;
    for (const TracedInput &t : out.inputs)
        outputs.insert(t.outputs.begin(), t.outputs.end());
    for (const Output &o : store.outputs())
        if (outputs.count(o.id))
            out.outputs.push_back(x.output(o));
    budgetNote(store, out);
    return out;
}

Explanation explainMade(const Store &store, std::string_view node, std::string_view match)
{
    Explanation out;
    Matcher m(match, out.error);
    if (!m.ok())
        return out;
    Explainer x(store);
    std::set<std::uint64_t> inputs;
    for (const Row &r : store.rows()) {
        // A row the node made (a window's, a join's), not one it sent on.
        if (r.note.empty() || store.nodeId(r.node) != node || !m(r.json))
            continue;
        TracedOutput t;
        t.id = r.id;
        t.madeAt = std::string(node);
        t.record = r.json;
        t.madeBy = r.note;
        t.inputs = r.inputs;
        inputs.insert(r.inputs.begin(), r.inputs.end());
        out.outputs.push_back(std::move(t));
    }
    addInputs(store, x, inputs, out);
    budgetNote(store, out);
    return out;
}
} // namespace tideline::lineage
