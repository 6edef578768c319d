// The rows top and window_join make when the watermark closes a pane (lineage_store.hpp): the
// inputs that made each one, resolved here from the rows each node counted, without bookkeeping
// in the operators.
// - top: a row of a group (its pane: a tumbling window [start, end) when the node assigns one,
//   plus the `by` fields) is made of every row the group counted: the maximum (or minimum) is
//   decided by all of them. Ties emit several rows from the same group.
// - window_join: a pair {left, right} is made of its left and its right record, found among the
//   rows of its window and key by their JSON (the operator copies both into the pair); a
//   left_semi row of its left record and the right records of its key in that window.

#include "lineage/lineage_store.hpp"

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/time.hpp>

#include <algorithm>

namespace tideline::lineage {

namespace {

Timestamp intField(const Record &r, std::string_view name, Timestamp fallback)
{
    const Value v = r.get(name);
    return v.type == ValueType::Int ? v.i : fallback;
}

/// The fields of `r` under `prefix` ("left." of a pair), as their own record's JSON; with an
/// empty prefix, every field but the ones `skip` names (window_start/window_end added by the
/// node).
std::string
subJson(const Record &r, std::string_view prefix, std::initializer_list<std::string_view> skip)
{
    Record sub;
    for (std::size_t i = 0; i < r.size(); ++i) {
        std::string_view name = r.nameAt(i);
        if (!prefix.empty()) {
            if (!name.starts_with(prefix))
                continue;
            name.remove_prefix(prefix.size());
        } else if (std::find(skip.begin(), skip.end(), name) != skip.end()) {
            continue;
        }
        sub.append(name, r.valueAt(i));
    }
    return toJson(sub);
}

std::string rangeText(Timestamp start, Timestamp end)
{
    return "[" + timeText(start) + ", " + timeText(end) + ")";
}

} // namespace

std::string Store::paneKey(const NodeInfo &info, const Frame &f) const
{
    switch (info.role) {
    case Role::Top: {
        std::string k;
        if (info.size > 0)
            keys::appendValue(Value::integer(floorDiv(f.time, info.size) * info.size), k);
        return k + f.key;
    }
    case Role::WindowJoin: {
        std::string k(1, static_cast<char>(std::clamp(f.input, 0, 1)));
        keys::appendValue(Value::integer(floorDiv(f.time, info.size) * info.size), k);
        return k + f.key;
    }
    default:
        return f.key;
    }
}

std::vector<std::uint64_t> Store::keptRows(const NodeInfo &info, const std::string &key) const
{
    std::vector<std::uint64_t> rows;
    if (auto it = info.index.find(key); it != info.index.end())
        for (const Entry &e : it->second)
            if (e.row >= m_base)
                rows.push_back(e.row);
    return rows;
}

std::uint64_t Store::emitTopRow(int node, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    // The group's key as paneKey() made it from the records it counted.
    std::string key;
    const Timestamp start = intField(record, "window_start", kMinTime);
    const Timestamp end = intField(record, "window_end", kMaxTime);
    if (info.size > 0)
        keys::appendValue(Value::integer(start), key);
    info.keys[0].encode(record, m_buf);
    key += m_buf;
    const std::vector<std::uint64_t> members = keptRows(info, key);
    info.fired[key] = true;
    std::string groupText;
    for (const auto &k : info.keys[0].paths()) {
        if (k == "window_start" || k == "window_end")
            continue; // said by the range
        groupText += groupText.empty() ? "" : ", ";
        groupText += k + " = ";
        appendJsonValue(record.get(k), groupText);
    }
    const bool windowed = start != kMinTime || end != kMaxTime;
    Row &r = newRow(node, record, members);
    r.note = "top `" + nodeId(node) + "`: a row with " + info.ranks + " of its group"
             + (windowed ? " " + rangeText(start, end) : std::string())
             + (groupText.empty() ? std::string() : " of " + groupText) + ", among "
             + std::to_string(members.size()) + (members.size() == 1 ? " record" : " records");
    const std::uint64_t id = r.id;
    for (std::uint64_t m : members)
        add(m, {What::InWindow, node, -1, observe::Fate::Count, start, end, id, 0, groupText});
    return id;
}

std::uint64_t Store::emitWindowJoinRow(int node, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    const Timestamp start = intField(record, "window_start", kMinTime);
    const Timestamp end = intField(record, "window_end", kMaxTime);
    std::string pane;
    keys::appendValue(Value::integer(start), pane);
    info.outKeys[0].encode(record, m_buf);
    pane += m_buf;
    const std::vector<std::uint64_t> lefts = keptRows(info, std::string(1, '\0') + pane);
    const std::vector<std::uint64_t> rights = keptRows(info, std::string(1, '\1') + pane);
    auto find = [this](const std::vector<std::uint64_t> &rows, const std::string &json) {
        for (std::uint64_t id : rows)
            if (const Row *r = row(id); r && r->json == json)
                return id;
        return std::uint64_t{0};
    };
    std::uint64_t left = 0;
    std::vector<std::uint64_t> partners;
    if (info.semi) {
        left = find(lefts, subJson(record, {}, {"window_start", "window_end"}));
        partners = rights; // every right record of its key made it pass
    } else {
        left = find(lefts, subJson(record, "left.", {}));
        if (std::uint64_t right = find(rights, subJson(record, "right.", {})))
            partners.push_back(right);
    }
    std::vector<std::uint64_t> from;
    if (left)
        from.push_back(left);
    from.insert(from.end(), partners.begin(), partners.end());
    Row &r = newRow(node, record, from);
    r.note = "window join `" + nodeId(node) + "`: "
             + (info.semi ? "a left record of window " + rangeText(start, end) + " that "
                                + std::to_string(partners.size())
                                + (partners.size() == 1 ? " right record" : " right records")
                                + " of its key matched (left_semi)"
                          : "a pair of window " + rangeText(start, end));
    const std::uint64_t id = r.id;
    if (left)
        add(left, {What::Joined,
                   node,
                   0,
                   observe::Fate::Count,
                   0,
                   0,
                   id,
                   partners.empty() ? 0 : partners.front(),
                   {}});
    for (std::uint64_t p : partners)
        add(p, {What::Joined, node, 1, observe::Fate::Count, 0, 0, id, left, {}});
    return id;
}

} // namespace tideline::lineage
