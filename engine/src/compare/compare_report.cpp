// Comparing the engines' runs and saying it: every pair of engines that both ran, per sink, is
// compared by expected::diffOutputs with the first engine of the pair read as the expected
// side — so its findings read "only in Flink" (Missing), "only in Spark" (Extra) and "values
// differ" (Different) — and printed as text for people or JSON for tools.

#include <tideline/engine/compare_engines.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <ostream>

namespace tideline::compare {

namespace {

const expected::SinkCapture *captureOf(const EngineRun &run, const std::string &sinkId)
{
    for (const auto &c : run.plan.captures)
        if (c.sinkId == sinkId)
            return &c;
    return nullptr;
}

std::string plural(std::int64_t n, const std::string &one, const std::string &many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "2 late (window_closed: 2), 41 duplicates" — what a node dropped, in words.
std::string describeDrops(const NodeDrops &d)
{
    std::string s;
    auto add = [&s](const std::string &part) {
        s += (s.empty() ? "" : ", ") + part;
    };
    auto causes = [](const observe::CauseCounts &c) {
        std::string t;
        for (const auto &[why, n] : c)
            t += (t.empty() ? " (" : "; ") + why + ": " + std::to_string(n);
        return t.empty() ? t : t + ")";
    };
    if (d.late)
        add(std::to_string(d.late) + " late" + causes(d.lateCauses));
    if (d.duplicates)
        add(plural(d.duplicates, "duplicate", "duplicates"));
    if (d.unmatched)
        add(std::to_string(d.unmatched) + " without a join partner");
    if (d.errors)
        add(plural(d.errors, "error", "errors") + causes(d.errorCauses));
    return s;
}

const char *kindWord(expected::Finding::Kind k)
{
    using K = expected::Finding::Kind;
    switch (k) {
    case K::Missing:
        return "only_a";
    case K::Extra:
        return "only_b";
    case K::Different:
        return "different";
    case K::Corrupt:
        return "corrupt";
    case K::Order:
        return "order";
    case K::More:
        return "more";
    }
    return "?";
}

void replaceAll(std::string &s, const std::string &from, const std::string &to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

void printFindings(const PairDiff &p, const expected::SinkDiff &diff, std::ostream &out)
{
    const std::string a = engineTitle(p.a);
    const std::string b = engineTitle(p.b);
    using K = expected::Finding::Kind;
    for (const auto &f : diff.findings) {
        switch (f.kind) {
        case K::Missing:
            out << "    only in " << a << ":  " << f.row;
            break;
        case K::Extra:
            out << "    only in " << b << ":  " << f.row;
            break;
        case K::Different:
            out << "    different:  " << f.row;
            break;
        default:
            out << "    " << f.text;
            break;
        }
        if (!f.detail.empty() && f.kind != K::More)
            out << ": " << describeDetail(p, f);
        out << "\n";
    }
}

} // namespace

std::string describeDetail(const PairDiff &pair, const expected::Finding &finding)
{
    std::string d = finding.detail;
    const std::string a = engineTitle(pair.a);
    const std::string b = engineTitle(pair.b);
    auto possessive = [](const std::string &name) {
        return name + (name.back() == 's' ? "'" : "'s");
    };
    if (d.rfind("expected line ", 0) == 0)
        return "line " + d.substr(14) + " of " + possessive(a) + " output";
    if (d.rfind("output line ", 0) == 0)
        return "line " + d.substr(12) + " of " + possessive(b) + " output";
    replaceAll(d, ": expected ", ": " + a + " ");
    replaceAll(d, ", got ", ", " + b + " ");
    return d;
}

std::vector<std::string> finalRows(const std::vector<std::string> &rows,
                                   const expected::RowIdentity &identity)
{
    if (identity.fields.empty())
        return rows;
    // One slot per window and key, in the order each first appeared; a retraction ("emit":
    // "retract", a Kafka Streams session merged away) empties its slot: that window is no
    // result any more (a later row of the same identity fills it again).
    std::vector<std::optional<std::string>> out;
    std::map<std::string, std::size_t> slot; // identity -> index in out
    for (const auto &line : rows) {
        auto j = nlohmann::ordered_json::parse(line, nullptr, false);
        if (!j.is_object()) {
            out.emplace_back(line);
            continue;
        }
        std::string id;
        for (const auto &f : identity.fields) {
            auto it = j.find(f);
            id += f + "=" + (it == j.end() ? std::string("<absent>") : it->dump()) + "\x1f";
        }
        const auto emit = j.find("emit");
        const bool retract = emit != j.end() && *emit == "retract";
        j.erase("emit");
        auto [it, fresh] = slot.emplace(id, out.size());
        if (fresh)
            out.emplace_back();
        if (retract)
            out[it->second].reset();
        else
            out[it->second] = j.dump(); // a later row of the window replaces the earlier one
    }
    std::vector<std::string> kept;
    kept.reserve(out.size());
    for (auto &row : out)
        if (row)
            kept.push_back(std::move(*row));
    return kept;
}

void comparePairs(Report &report)
{
    report.pairs.clear();
    for (std::size_t i = 0; i < report.runs.size(); ++i) {
        const EngineRun &a = report.runs[i];
        if (!a.ran())
            continue;
        for (std::size_t j = i + 1; j < report.runs.size(); ++j) {
            const EngineRun &b = report.runs[j];
            if (!b.ran())
                continue;
            for (const auto &capture : a.plan.captures) {
                const auto *rowsA = a.rowsOf(capture.sinkId);
                const auto *rowsB = b.rowsOf(capture.sinkId);
                if (rowsA == nullptr || rowsB == nullptr || captureOf(b, capture.sinkId) == nullptr)
                    continue;
                PairDiff p;
                p.sinkId = capture.sinkId;
                p.a = a.engine;
                p.b = b.engine;
                p.rowsA = rowsA->size();
                p.rowsB = rowsB->size();
                p.diff = expected::diffOutputs(*rowsA, *rowsB, capture.identity, capture.jsonLines);
                p.finalDiff = capture.jsonLines
                                  ? expected::diffOutputs(finalRows(*rowsA, capture.identity),
                                                          finalRows(*rowsB, capture.identity),
                                                          capture.identity, true)
                                  : p.diff;
                report.pairs.push_back(std::move(p));
            }
        }
    }
}

void printReport(const Report &report, std::ostream &out)
{
    for (const auto &r : report.runs) {
        const std::string title = engineTitle(r.engine);
        if (!r.ran()) {
            out << title << ": did not run: " << r.error << "\n";
            continue;
        }
        std::size_t rows = 0;
        for (const auto &o : r.outputs)
            rows += o.lines.size();
        out << title << ": " << r.recordsRead << " records read, " << rows << " output rows";
        if (r.drops.empty())
            out << ", nothing dropped";
        out << "\n";
        for (const auto &d : r.drops)
            out << "  `" << d.node << "` (" << d.kind << ") dropped " << describeDrops(d) << "\n";
        for (const auto &n : r.notes)
            out << "  note: " << n << "\n";
    }
    for (const auto &p : report.pairs) {
        const std::string a = engineTitle(p.a);
        const std::string b = engineTitle(p.b);
        out << "\nsink " << p.sinkId << ": " << a << " vs " << b << ": ";
        if (p.diff.equal) {
            out << "same " << p.rowsA << " rows\n";
            continue;
        }
        if (p.diff.orderOnly) {
            out << "same rows in another order\n";
            continue;
        }
        out << p.rowsA << " vs " << p.rowsB << " rows\n";
        if (p.finalDiff.equal || p.finalDiff.orderOnly) {
            out << "  final results: the same (they differ only in how they were emitted)\n";
        } else {
            out << "  final results: " << p.finalDiff.missing << " only in " << a << ", "
                << p.finalDiff.extra << " only in " << b << ", " << p.finalDiff.different
                << " with other values\n";
            printFindings(p, p.finalDiff, out);
        }
        out << "  rows as emitted: " << p.diff.missing << " only in " << a << ", " << p.diff.extra
            << " only in " << b << ", " << p.diff.different << " with other values\n";
        printFindings(p, p.diff, out);
    }
    for (const auto &u : report.unchecked)
        out << "\n" << u << "\n";
    out << "\n";
    std::size_t ran = 0;
    for (const auto &r : report.runs)
        ran += r.ran() ? 1 : 0;
    if (report.cancelled)
        out << "compare engines: cancelled\n";
    else if (ran < report.runs.size())
        out << "compare engines: " << ran << " of " << report.runs.size()
            << " engines ran; the others say why above\n";
    else if (report.allAgree())
        out << "compare engines: all " << report.runs.size() << " engines agree\n";
    else
        out << "compare engines: the engines differ\n";
}

void writeJson(const Report &report, std::ostream &out)
{
    nlohmann::ordered_json j;
    j["agree"] = report.allAgree();
    j["cancelled"] = report.cancelled;
    auto &runs = j["runs"] = nlohmann::ordered_json::array();
    for (const auto &r : report.runs) {
        nlohmann::ordered_json jr;
        jr["engine"] = r.engine;
        jr["ran"] = r.ran();
        if (!r.ran())
            jr["error"] = r.error;
        jr["records_read"] = r.recordsRead;
        jr["notes"] = r.notes;
        auto &sinks = jr["sinks"] = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i < r.plan.captures.size() && i < r.outputs.size(); ++i)
            sinks[r.plan.captures[i].sinkId] = r.outputs[i].lines.size();
        auto &drops = jr["drops"] = nlohmann::ordered_json::array();
        for (const auto &d : r.drops) {
            nlohmann::ordered_json jd{{"node", d.node},           {"kind", d.kind},
                                      {"late", d.late},           {"duplicates", d.duplicates},
                                      {"unmatched", d.unmatched}, {"errors", d.errors}};
            auto &lc = jd["late_causes"] = nlohmann::ordered_json::object();
            for (const auto &[why, n] : d.lateCauses)
                lc[why] = n;
            auto &ec = jd["error_causes"] = nlohmann::ordered_json::object();
            for (const auto &[why, n] : d.errorCauses)
                ec[why] = n;
            drops.push_back(std::move(jd));
        }
        runs.push_back(std::move(jr));
    }
    auto &pairs = j["pairs"] = nlohmann::ordered_json::array();
    for (const auto &p : report.pairs) {
        nlohmann::ordered_json jp{{"sink", p.sinkId},
                                  {"a", p.a},
                                  {"b", p.b},
                                  {"rows_a", p.rowsA},
                                  {"rows_b", p.rowsB},
                                  {"equal", p.diff.equal},
                                  {"order_only", p.diff.orderOnly},
                                  {"only_a", p.diff.missing},
                                  {"only_b", p.diff.extra},
                                  {"different", p.diff.different}};
        auto findings = [&p](const expected::SinkDiff &d) {
            auto fs = nlohmann::ordered_json::array();
            for (const auto &f : d.findings)
                fs.push_back(
                    {{"kind", kindWord(f.kind)}, {"row", f.row}, {"detail", describeDetail(p, f)}});
            return fs;
        };
        jp["findings"] = findings(p.diff);
        jp["final"] = {{"equal", p.finalDiff.equal || p.finalDiff.orderOnly},
                       {"only_a", p.finalDiff.missing},
                       {"only_b", p.finalDiff.extra},
                       {"different", p.finalDiff.different},
                       {"findings", findings(p.finalDiff)}};
        pairs.push_back(std::move(jp));
    }
    j["unchecked"] = report.unchecked;
    out << j.dump(2) << "\n";
}

} // namespace tideline::compare
