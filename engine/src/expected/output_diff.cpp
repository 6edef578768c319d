// Comparing one sink's output with what it should be, and saying the difference in stream
// terms (see expected_outputs.hpp): rows are paired by their identity (a window's key and
// bounds) so that one missing row does not make every later row "different".

#include <tideline/engine/expected_outputs.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>

namespace tideline::expected {

namespace {

constexpr std::size_t kMaxFindings = 20; ///< per sink: a diff nobody can read helps nobody

/// A canonical field path split into its keys: `a.b` is b inside a; a backticked segment
/// (`` `service.name` ``, doubled backticks inside) is one key that may contain dots.
std::vector<std::string> pathKeys(const std::string &path)
{
    std::vector<std::string> keys(1);
    for (std::size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '`') {
            for (++i; i < path.size(); ++i) {
                if (path[i] == '`') {
                    if (i + 1 < path.size() && path[i + 1] == '`') {
                        keys.back() += '`';
                        ++i;
                        continue;
                    }
                    break;
                }
                keys.back() += path[i];
            }
        } else if (c == '.') {
            keys.emplace_back();
        } else {
            keys.back() += c;
        }
    }
    return keys;
}

const Json *lookup(const Json &row, const std::string &path)
{
    const Json *at = &row;
    for (const auto &key : pathKeys(path)) {
        if (!at->is_object())
            return nullptr;
        auto it = at->find(key);
        if (it == at->end())
            return nullptr;
        at = &*it;
    }
    return at;
}

struct Row
{
    std::string text;
    Json json; ///< discarded (not an object) for CSV lines and unparsable lines
    std::string identity;
    bool used = false;
};

std::vector<Row>
readRows(const std::vector<std::string> &lines, const RowIdentity &identity, bool jsonLines)
{
    std::vector<Row> rows;
    rows.reserve(lines.size());
    for (const auto &line : lines) {
        Row r{line, Json(), line};
        if (jsonLines) {
            r.json = Json::parse(line, nullptr, false);
            if (r.json.is_object() && !identity.fields.empty()) {
                r.identity.clear();
                for (const auto &f : identity.fields) {
                    const Json *v = lookup(r.json, f);
                    r.identity += f + "=" + (v ? v->dump() : std::string("<absent>")) + "\x1f";
                }
            }
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

/// "window [10:00:00.000Z (…), 10:05:00.000Z (…)) user_id="u1"", "late record from `w` (…)".
std::string describeRow(const Row &row, const RowIdentity &identity)
{
    const Json &j = row.json;
    if (!j.is_object())
        return "line `" + row.text.substr(0, 160) + (row.text.size() > 160 ? "…`" : "`");
    if (j.contains("reason") && j.contains("record") && j.contains("node")) {
        const Json &node = j["node"];
        std::string s = "record sent aside by `"
                        + (node.is_string() ? node.get<std::string>() : node.dump()) + "` ("
                        + j["reason"].dump();
        if (j.contains("watermark") && j["watermark"].is_number_integer())
            s += ", watermark " + describeTime(j["watermark"].get<long long>());
        return s + "): " + j["record"].dump().substr(0, 160);
    }
    const Json *start = j.contains("window_start") ? &j["window_start"] : nullptr;
    const Json *end = j.contains("window_end") ? &j["window_end"] : nullptr;
    std::string s;
    if (start && end && start->is_number_integer() && end->is_number_integer())
        s = "window [" + describeTime(start->get<long long>()) + ", "
            + describeTime(end->get<long long>()) + ")";
    for (const auto &f : identity.fields) {
        if (f == "window_start" || f == "window_end")
            continue;
        const Json *v = lookup(j, f);
        s += (s.empty() ? "" : " ") + f + "=" + (v ? v->dump() : std::string("<absent>"));
    }
    if (j.contains("emit"))
        s += " (emit " + j["emit"].dump() + ")";
    if (s.empty() || identity.fields.empty())
        s = (s.empty() ? "" : s + ": ") + row.text.substr(0, 200);
    return s;
}

void flatten(const Json &j, const std::string &prefix, std::map<std::string, std::string> &out)
{
    if (j.is_object() && !j.empty()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    } else {
        out[prefix] = j.dump();
    }
}

/// "count: expected 5, got 4; sum: expected 10, got 7".
std::string fieldChanges(const Json &expected, const Json &actual)
{
    std::map<std::string, std::string> e, a;
    flatten(expected, "", e);
    flatten(actual, "", a);
    std::string s;
    auto add = [&](const std::string &field, const std::string &want, const std::string &got) {
        s += (s.empty() ? "" : "; ") + field + ": expected " + want + ", got " + got;
    };
    for (const auto &[field, value] : e) {
        auto it = a.find(field);
        if (it == a.end())
            add(field, value, "nothing");
        else if (it->second != value)
            add(field, value, it->second);
    }
    for (const auto &[field, value] : a)
        if (!e.count(field))
            add(field, "nothing", value);
    if (s.empty())
        s = "same fields and values, in another key order";
    return s;
}

} // namespace

std::string describeTime(long long epochMs)
{
    long long secs = epochMs >= 0 ? epochMs / 1000 : -((-epochMs + 999) / 1000);
    int ms = static_cast<int>(epochMs - secs * 1000);
    std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    if (!gmtime_r(&t, &tm))
        return std::to_string(epochMs);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "%s.%03dZ (%lld)", buf, ms, epochMs);
    return out;
}

SinkDiff diffOutputs(const std::vector<std::string> &expected,
                     const std::vector<std::string> &actual,
                     const RowIdentity &identity,
                     bool jsonLines)
{
    SinkDiff d;
    if (expected == actual)
        return d;
    d.equal = false;
    std::vector<Row> want = readRows(expected, identity, jsonLines);
    std::vector<Row> got = readRows(actual, identity, jsonLines);

    // Pair rows of the same identity in order (a window re-emitted as an update is its n-th
    // row of that identity); exact text matches first, so that a reordering is not reported as
    // rows that differ.
    std::multimap<std::string, std::size_t> gotByText, gotById;
    for (std::size_t i = 0; i < got.size(); ++i) {
        gotByText.emplace(got[i].text, i);
        gotById.emplace(got[i].identity, i);
    }
    std::vector<std::size_t> unmatchedWant;
    for (std::size_t i = 0; i < want.size(); ++i) {
        auto it = gotByText.find(want[i].text);
        if (it != gotByText.end()) {
            got[it->second].used = true;
            want[i].used = true;
            gotByText.erase(it);
        } else {
            unmatchedWant.push_back(i);
        }
    }
    std::vector<Finding> findings;
    using K = Finding::Kind;
    if (jsonLines)
        for (std::size_t i = 0; i < want.size(); ++i)
            if (!want[i].json.is_object()) {
                Finding f{K::Corrupt,
                          describeRow(want[i], identity),
                          "expected line " + std::to_string(i + 1)
                              + " is not a JSON object (a truncated or edited file?)",
                          {}};
                f.text = "corrupt    " + f.detail + ": " + f.row;
                findings.push_back(std::move(f));
            }
    for (std::size_t i : unmatchedWant) {
        auto [lo, hi] = gotById.equal_range(want[i].identity);
        auto partner = std::find_if(lo, hi, [&](const auto &p) { return !got[p.second].used; });
        if (!identity.fields.empty() && partner != hi && want[i].json.is_object()) {
            Row &g = got[partner->second];
            g.used = true;
            ++d.different;
            Finding f{K::Different,
                      describeRow(want[i], identity),
                      fieldChanges(want[i].json, g.json),
                      {}};
            f.text = "different  " + f.row + ": " + f.detail;
            findings.push_back(std::move(f));
        } else {
            ++d.missing;
            Finding f{K::Missing,
                      describeRow(want[i], identity),
                      "expected line " + std::to_string(i + 1),
                      {}};
            f.text = "missing    " + f.row + "  (" + f.detail + ")";
            findings.push_back(std::move(f));
        }
    }
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!got[i].used) {
            ++d.extra;
            Finding f{K::Extra,
                      describeRow(got[i], identity),
                      "output line " + std::to_string(i + 1),
                      {}};
            f.text = "extra      " + f.row + "  (" + f.detail + ")";
            findings.push_back(std::move(f));
        }
    if (findings.empty()) {
        d.orderOnly = true;
        std::size_t i = 0;
        while (i < expected.size() && i < actual.size() && expected[i] == actual[i])
            ++i;
        Finding f{K::Order,
                  describeRow(got[std::min(i, got.size() - 1)], identity),
                  "same rows in another order; the first out of place is output line "
                      + std::to_string(i + 1),
                  {}};
        f.text = f.detail + ": " + f.row
                 + (identity.fields.empty()
                        ? std::string()
                        : " (a window's results within one firing are ordered by key)");
        findings.push_back(std::move(f));
    }
    const std::size_t more = findings.size() > kMaxFindings ? findings.size() - kMaxFindings : 0;
    findings.resize(std::min(findings.size(), kMaxFindings));
    d.findings = std::move(findings);
    if (more > 0) {
        const std::string text = "… and " + std::to_string(more) + " more";
        d.findings.push_back(Finding{K::More, {}, text, text});
    }
    return d;
}

} // namespace tideline::expected
