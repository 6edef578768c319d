// Printing an explanation (tideline/engine/lineage.hpp): as text for people (--explain) and as
// JSON for tools (--explain-format json).

#include <tideline/engine/lineage.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace tideline::lineage {

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
                                {"made_at", o.madeAt.empty() ? Json(nullptr) : Json(o.madeAt)},
                                {"inputs", o.inputs}});
    j["forgotten"] = e.forgotten;
    if (!e.budgetNote.empty())
        j["note"] = e.budgetNote;
    out << j.dump() << "\n";
}

} // namespace tideline::lineage
