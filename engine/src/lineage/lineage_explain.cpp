// Explaining lineage (tideline/engine/lineage.hpp): an input record's path, read off the rows
// and events the store recorded, following each row it became (mapped into, counted in a
// window, joined into a pair) depth-first; the input records behind an output row; both as
// text for people and as JSON for tools.

#include "expr/expr.hpp"
#include "lineage/lineage_store.hpp"

#include <tideline/engine/record_json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <ostream>
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

    const std::string &id(int node) const
    {
        return m_s.spec().nodes[static_cast<std::size_t>(node)].id;
    }

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
                    continue; // said with its window ("counted in window …") when it fires
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
    if (out.forgotten > 0)
        out.budgetNote = std::to_string(out.forgotten)
                         + " older input records are no longer traceable (lineage keeps the "
                           "newest "
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

void printText(const Explanation &e, std::ostream &out)
{
    if (!e.error.empty()) {
        out << e.error << "\n";
        return;
    }
    if (!e.budgetNote.empty())
        out << "note: " << e.budgetNote << "\n";
    out << e.inputs.size() << (e.inputs.size() == 1 ? " input record" : " input records") << ", "
        << e.outputs.size() << (e.outputs.size() == 1 ? " output row" : " output rows") << "\n";
    for (const TracedInput &t : e.inputs) {
        out << "\ninput `" << t.source << "` #" << t.seq << ": " << t.record << "\n";
        std::size_t width = 0;
        for (const Step &s : t.path)
            width = std::max(width, s.node.size());
        for (const Step &s : t.path)
            out << "  " << s.node << std::string(width - s.node.size() + 2, ' ') << s.what << "\n";
        if (t.outputs.empty())
            out << "  → reached no output\n";
        else {
            out << "  → output rows";
            for (std::uint64_t o : t.outputs)
                out << " #" << o;
            out << "\n";
        }
    }
    for (const TracedOutput &o : e.outputs) {
        out << "\noutput #" << o.id << " (sink `" << o.sink << "`): " << o.record << "\n";
        if (!o.madeBy.empty())
            out << "  made by " << o.madeBy << "\n";
        out << "  from " << o.inputs.size()
            << (o.inputs.size() == 1 ? " input record:" : " input records:");
        for (std::uint64_t i : o.inputs) {
            auto it = std::find_if(e.inputs.begin(), e.inputs.end(),
                                   [&](const TracedInput &t) { return t.id == i; });
            if (it != e.inputs.end())
                out << " `" << it->source << "` #" << it->seq;
            else
                out << " #" << i;
        }
        out << "\n";
    }
}

void printJson(const Explanation &e, std::ostream &out)
{
    using Json = nlohmann::ordered_json;
    Json j = Json::object();
    if (!e.error.empty()) {
        j["error"] = e.error;
        out << j.dump() << "\n";
        return;
    }
    auto parsed = [](const std::string &s) {
        Json v = Json::parse(s, nullptr, false);
        return v.is_discarded() ? Json(s) : v;
    };
    auto opt = [](const std::optional<std::int64_t> &v) {
        return v ? Json(*v) : Json(nullptr);
    };
    j["inputs"] = Json::array();
    for (const TracedInput &t : e.inputs) {
        Json p = Json::array();
        for (const Step &s : t.path) {
            Json step = {{"node", s.node}, {"kind", s.kind}, {"what", s.what}};
            if (s.windowStart)
                step["window"] = {{"start", *s.windowStart}, {"end", opt(s.windowEnd)}};
            if (s.watermark)
                step["watermark"] = *s.watermark;
            if (s.eventTime)
                step["event_time"] = *s.eventTime;
            if (!s.related.empty())
                step["related"] = s.related;
            p.push_back(std::move(step));
        }
        j["inputs"].push_back({{"id", t.id},
                               {"source", t.source},
                               {"seq", t.seq},
                               {"record", parsed(t.record)},
                               {"path", std::move(p)},
                               {"outputs", t.outputs}});
    }
    j["outputs"] = Json::array();
    for (const TracedOutput &o : e.outputs)
        j["outputs"].push_back({{"id", o.id},
                                {"sink", o.sink},
                                {"record", parsed(o.record)},
                                {"made_by", o.madeBy},
                                {"inputs", o.inputs}});
    j["forgotten"] = e.forgotten;
    if (!e.budgetNote.empty())
        j["note"] = e.budgetNote;
    out << j.dump() << "\n";
}

} // namespace tideline::lineage
