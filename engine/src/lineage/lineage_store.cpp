// Recording lineage (lineage_store.hpp): what the runtime's hooks tell, turned into rows and
// events, and the resolution of a window's or a join's row into the rows it was made from.
// Only reached while lineage is on; nothing here is on the untraced path.

#include "lineage/lineage_store.hpp"

#include "operators/params.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/record_json.hpp>

#include <algorithm>
#include <chrono>

namespace tideline::lineage {

namespace {

constexpr std::size_t kRowOverhead = sizeof(Row) + 32;
constexpr std::size_t kEventOverhead = sizeof(Event) + 16;

Timestamp integerField(const Record &r, std::string_view name, Timestamp fallback)
{
    const Value v = r.get(name);
    return v.type == ValueType::Int ? v.i : fallback;
}

/// Wall-clock time for "traced from HH:MM:SS on" (only with lineage on).
std::int64_t wallMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

Store::Store(const PipelineSpec &spec, Options options, std::vector<int> specOf)
    : m_spec(spec)
    , m_options(options)
    , m_specOf(std::move(specOf))
{
    if (m_specOf.empty())
        for (std::size_t i = 0; i < m_spec.nodes.size(); ++i)
            m_specOf.push_back(static_cast<int>(i));
    m_nodes.resize(m_specOf.size());
    for (std::size_t i = 0; i < m_specOf.size(); ++i) {
        const NodeSpec &n = m_spec.nodes[static_cast<std::size_t>(m_specOf[i])];
        const NodeKind *kind = findNodeKind(n.kind);
        NodeInfo &info = m_nodes[i];
        if (!kind)
            continue;
        const NodeParams p(*kind, n.params);
        if (kind->isSource) {
            info.role = Role::Source;
        } else if (kind->isSink) {
            info.role = Role::Sink;
        } else if (n.kind == "dedup") {
            info.role = Role::Dedup;
            info.keys.emplace_back(p.fieldList("key"));
        } else if (n.kind == "join") {
            info.role = Role::Join;
            info.keys.emplace_back(p.fieldList("left_key"));
            info.keys.emplace_back(p.fieldList("right_key"));
            std::vector<std::string> left;
            for (const auto &k : p.fieldList("left_key"))
                left.push_back("left." + k);
            info.outKeys.emplace_back(std::move(left));
            info.lower = p.integer("lower_ms");
            info.upper = p.integer("upper_ms");
        } else if (n.kind == "window") {
            info.role = Role::Window;
            info.keys.emplace_back(p.fieldList("key"));
            info.outKeys.emplace_back(p.fieldList("key"));
        } else if (n.kind == "top") {
            info.role = Role::Top;
            info.size = p.integer("size_ms");
            std::vector<std::string> by; // as the operator groups (top.cpp)
            if (p.has("by"))
                by = p.fieldList("by");
            else if (info.size == 0)
                by = {"window_start", "window_end"};
            info.keys.emplace_back(std::move(by));
            info.ranks = std::string(p.string("order") == "min" ? "the smallest" : "the largest")
                         + " `" + p.string("field") + "`";
        } else if (n.kind == "window_join") {
            info.role = Role::WindowJoin;
            info.size = p.integer("size_ms");
            info.semi = p.string("output") == "left_semi";
            info.keys.emplace_back(p.fieldList("left_key"));
            info.keys.emplace_back(p.fieldList("right_key"));
            std::vector<std::string> left;
            for (const auto &k : p.fieldList("left_key"))
                left.push_back((info.semi ? "" : "left.") + k);
            info.outKeys.emplace_back(std::move(left));
        }
    }
}

const Row *Store::row(std::uint64_t id) const
{
    if (id < m_base || id - m_base >= m_rows.size())
        return nullptr;
    return &m_rows[static_cast<std::size_t>(id - m_base)];
}

Row *Store::live(std::uint64_t id)
{
    return const_cast<Row *>(static_cast<const Store *>(this)->row(id));
}

Store::Frame *Store::frameOf(int node)
{
    // An emit belongs to the record being processed only when this node is processing one:
    // emits from processWatermark, ticks and finish have no frame of their node on top.
    if (!m_frames.empty() && m_frames.back().node == node)
        return &m_frames.back();
    return nullptr;
}

void Store::add(std::uint64_t id, Event e)
{
    if (Row *r = live(id)) {
        m_bytes += kEventOverhead + e.text.size();
        r->events.push_back(std::move(e));
    }
}

Row &Store::newRow(int node, const Record &record, std::vector<std::uint64_t> from)
{
    Row r;
    r.id = m_base + m_rows.size();
    r.node = node;
    r.time = record.time;
    r.json = toJson(record);
    for (std::uint64_t f : from)
        if (const Row *src = row(f))
            r.inputs.insert(r.inputs.end(), src->inputs.begin(), src->inputs.end());
    std::sort(r.inputs.begin(), r.inputs.end());
    r.inputs.erase(std::unique(r.inputs.begin(), r.inputs.end()), r.inputs.end());
    r.from = std::move(from);
    m_bytes += kRowOverhead + r.json.size() + 8 * (r.inputs.size() + r.from.size());
    m_rows.push_back(std::move(r));
    enforceBudget();
    return m_rows.back();
}

std::uint64_t Store::onEmit(int node, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    Frame *f = frameOf(node);
    switch (info.role) {
    case Role::Source: {
        Row &r = newRow(node, record, {});
        r.inputs = {r.id};
        r.seq = ++info.seq;
        r.readAtMs = wallMs();
        ++m_inputRows;
        enforceBudget();
        add(r.id, {What::Read, node, -1, observe::Fate::Count, r.seq, 0, 0, 0, {}});
        return r.id;
    }
    case Role::Window:
        return emitWindowRow(node, record);
    case Role::Join:
        return emitJoinRow(node, f, record);
    case Role::Top:
        return emitTopRow(node, record);
    case Role::WindowJoin:
        return emitWindowJoinRow(node, record);
    default:
        break;
    }
    if (!f) {
        Row &r = newRow(node, record, {});
        r.note = "made by `" + nodeId(node) + "`";
        return r.id;
    }
    const Row *in = row(f->row);
    m_buf.clear();
    appendJson(record, m_buf);
    if (in && m_buf == in->json) {
        // Sent on as it came (filter, dedup, the watermark node: which may set event time).
        std::int64_t assigned = record.time != f->time ? record.time : kMinTime;
        add(f->row, {What::Passed, node, f->input, observe::Fate::Count, assigned, 0, 0, 0, {}});
        if (info.role == Role::Dedup) // (a missing key field keys as null, as in dedup)
            info.index[f->key] = {{record.time, f->row}}; // what later repeats duplicate
        if (Row *r = live(f->row))
            r->time = record.time;
        return f->row;
    }
    const std::uint64_t from = f->row;
    Row &r = newRow(node, record, {from});
    const std::uint64_t id = r.id;
    add(from, {What::Mapped, node, f->input, observe::Fate::Count, 0, 0, id, 0, {}});
    return id;
}

std::uint64_t Store::emitWindowRow(int node, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    const Timestamp start = integerField(record, "window_start", kMinTime);
    const Timestamp end = integerField(record, "window_end", kMaxTime);
    info.outKeys[0].encode(record, m_buf);
    std::vector<std::uint64_t> members;
    if (auto it = info.index.find(m_buf); it != info.index.end())
        for (const Entry &e : it->second)
            if (e.t >= start && e.t < end && e.row >= m_base)
                members.push_back(e.row);
    std::string keyText;
    for (const auto &k : info.outKeys[0].paths()) {
        keyText += keyText.empty() ? "" : ", ";
        keyText += k + " = ";
        appendJsonValue(record.get(k), keyText);
    }
    const bool update = record.get("emit").type == ValueType::String
                        && record.get("emit").s == std::string_view("update");
    Row &r = newRow(node, record, members);
    r.note = "window `" + nodeId(node) + "`: [" + timeText(start) + ", " + timeText(end) + ")"
             + (keyText.empty() ? std::string() : " of " + keyText) + (update ? ", an update" : "")
             + ", made of " + std::to_string(members.size())
             + (members.size() == 1 ? " record" : " records");
    const std::uint64_t id = r.id;
    for (std::uint64_t m : members)
        add(m, {What::InWindow, node, -1, observe::Fate::Count, start, end, id, 0, keyText});
    return id;
}

std::uint64_t Store::emitJoinRow(int node, Frame *f, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    const std::string &id = nodeId(node);
    const bool unmatched
        = record.indexOf("right") >= 0 && record.get("right").type == ValueType::Null;
    if (f && !unmatched) {
        // A pair: the current record and the n-th partner of its key within the bounds, in
        // the order the join visits them (arrival order).
        const int other = 1 - std::clamp(f->input, 0, 1);
        std::uint64_t partner = 0;
        if (auto it = info.index.find(std::string(1, static_cast<char>(other)) + f->key);
            it != info.index.end()) {
            int n = 0;
            for (const Entry &e : it->second) {
                const bool in = other == 1 ? e.t >= satAdd(f->time, info.lower)
                                                 && e.t <= satAdd(f->time, info.upper)
                                           : f->time >= satAdd(e.t, info.lower)
                                                 && f->time <= satAdd(e.t, info.upper);
                if (in && n++ == f->pairs) {
                    partner = e.row;
                    break;
                }
            }
        }
        ++f->pairs;
        std::vector<std::uint64_t> from{f->row};
        if (partner)
            from.push_back(partner);
        Row &r = newRow(node, record, from);
        r.note = "join `" + id + "`: a pair";
        const std::uint64_t rid = r.id;
        add(f->row, {What::Joined, node, f->input, observe::Fate::Count, 0, 0, rid, partner, {}});
        if (partner)
            add(partner, {What::Joined, node, other, observe::Fate::Count, 0, 0, rid, f->row, {}});
        return rid;
    }
    // {"left": …, "right": null}: the record being processed (a null key, or one whose bounds
    // already passed), else the earliest unpaired left row of its key (evicted in time order).
    std::uint64_t left = 0;
    if (f) {
        left = f->row;
    } else {
        info.outKeys[0].encode(record, m_buf);
        Timestamp best = kMaxTime;
        if (auto it = info.index.find(std::string(1, '\0') + m_buf); it != info.index.end())
            for (const Entry &e : it->second) {
                const Row *r = row(e.row);
                if (!r || e.t >= best)
                    continue;
                const bool taken
                    = std::any_of(r->events.begin(), r->events.end(), [&](const Event &ev) {
                          return ev.node == node
                                 && (ev.what == What::Joined || ev.what == What::Unmatched);
                      });
                if (!taken) {
                    best = e.t;
                    left = e.row;
                }
            }
    }
    Row &r = newRow(node, record,
                    left ? std::vector<std::uint64_t>{left} : std::vector<std::uint64_t>{});
    r.note = "join `" + id + "`: a left record without a partner (\"right\": null)";
    const std::uint64_t rid = r.id;
    if (left)
        add(left, {What::Unmatched, node, 0, observe::Fate::Count, 0, 0, rid, 0, {}});
    return rid;
}

std::uint64_t Store::onWrapped(int node,
                               bool late,
                               std::string_view reason,
                               const Record &record,
                               Timestamp watermark,
                               std::string_view raw,
                               std::string_view where)
{
    Frame *f = frameOf(node);
    std::uint64_t id = f ? f->row : 0;
    if (!id) {
        // A source's malformed input: an input record of its own (its text and place).
        Record r;
        if (!record.empty())
            r = record;
        else {
            r.append("raw", Value::string(raw.substr(0, 4096)));
            if (!where.empty())
                r.append("where", Value::string(where));
        }
        Row &row = newRow(node, r, {});
        row.inputs = {row.id};
        row.seq = ++m_nodes[static_cast<std::size_t>(node)].seq;
        row.readAtMs = wallMs();
        ++m_inputRows;
        enforceBudget();
        id = row.id;
        add(id, {What::Read, node, -1, observe::Fate::Count, row.seq, 0, 0, 0, {}});
    } else {
        f->excluded = true;
    }
    Event e{late ? What::Late : What::Error,
            node,
            f ? f->input : -1,
            observe::Fate::Count,
            watermark,
            0,
            0,
            0,
            std::string(reason)};
    if (late && record.time != kMinTime && watermark != kMinTime)
        e.b = watermark - record.time;
    add(id, std::move(e));
    return id;
}

void Store::onDeliver(int node, int input, std::uint64_t rowId, const Record &record)
{
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    Frame f{node, input, rowId, record.time, {}, false, false, 0};
    if (!info.keys.empty()) {
        keys::KeyEncoder &enc = info.keys[std::min<std::size_t>(
            static_cast<std::size_t>(std::max(input, 0)), info.keys.size() - 1)];
        f.keyComplete = enc.encode(record, f.key);
    }
    add(rowId, {What::Reached, node, input, observe::Fate::Count, record.time, 0, 0, 0, {}});
    if (info.role == Role::Sink) {
        Output o;
        o.id = m_outputBase + m_outputs.size();
        o.sink = node;
        o.row = rowId;
        o.json = toJson(record);
        m_bytes += sizeof(Output) + o.json.size();
        add(rowId, {What::Written, node, input, observe::Fate::Count, 0, 0, o.id, 0, {}});
        m_outputs.push_back(std::move(o));
    }
    m_frames.push_back(std::move(f));
}

void Store::delivered()
{
    Frame &f = m_frames.back();
    NodeInfo &info = m_nodes[static_cast<std::size_t>(f.node)];
    // A join partner is a row the join kept: not late, not dropped for its key.
    if (info.role == Role::Join && !f.excluded && f.keyComplete)
        info.index[std::string(1, static_cast<char>(std::clamp(f.input, 0, 1))) + f.key].push_back(
            {f.time, f.row});
    m_frames.pop_back();
}

void Store::onFate(int node, observe::Fate fate)
{
    Frame *f = frameOf(node);
    if (!f)
        return; // decided at a watermark (join eviction): explain derives it from the path
    NodeInfo &info = m_nodes[static_cast<std::size_t>(node)];
    Event e{What::Fate, node, f->input, fate, 0, 0, 0, 0, {}};
    switch (fate) {
    case observe::Fate::Duplicate:
        if (auto it = info.index.find(f->key); it != info.index.end() && !it->second.empty()) {
            e.other = it->second.front().row;
            e.a = it->second.front().t;
        }
        break;
    case observe::Fate::Windowed:
    case observe::Fate::LateAccepted: {
        std::string key = paneKey(info, *f);
        if (info.role == Role::Top) {
            // A group of top that fired: this record starts the key's next group.
            if (auto it = info.fired.find(key); it != info.fired.end()) {
                info.fired.erase(it);
                info.index.erase(key);
            }
        }
        info.index[key].push_back({f->time, f->row});
        break;
    }
    case observe::Fate::NullKey:
    case observe::Fate::JoinUnmatched:
        f->excluded = true;
        break;
    case observe::Fate::JoinPair:
    case observe::Fate::JoinUnmatchedRow:
    case observe::Fate::WindowFinal:
    case observe::Fate::WindowUpdate:
    case observe::Fate::JoinMatched:
        return; // said by the row the node emits next (or at the watermark)
    default:
        break;
    }
    add(f->row, std::move(e));
}

std::int64_t Store::tracedFromMs() const
{
    for (const Row &r : m_rows)
        if (r.from.empty() && r.seq > 0)
            return r.readAtMs;
    return 0;
}

void Store::enforceBudget()
{
    while (m_rows.size() > 1
           && (m_inputRows > m_options.maxRecords || m_bytes > m_options.maxBytes)) {
        Row &r = m_rows.front();
        m_bytes -= std::min(m_bytes,
                            kRowOverhead + r.json.size() + 8 * (r.inputs.size() + r.from.size()));
        for (const Event &e : r.events)
            m_bytes -= std::min(m_bytes, kEventOverhead + e.text.size());
        if (r.from.empty() && r.inputs.size() == 1 && r.inputs[0] == r.id) {
            --m_inputRows;
            ++m_forgottenInputs;
        }
        m_rows.pop_front();
        ++m_base;
        // Outputs made only of forgotten rows go too.
        while (!m_outputs.empty() && m_outputs.front().row < m_base) {
            m_bytes -= std::min(m_bytes, sizeof(Output) + m_outputs.front().json.size());
            m_outputs.pop_front();
            ++m_outputBase;
        }
    }
    if (m_base - m_prunedAt > std::max<std::uint64_t>(1024, m_rows.size() / 2))
        pruneIndexes();
}

void Store::pruneIndexes()
{
    m_prunedAt = m_base;
    for (NodeInfo &info : m_nodes)
        for (auto it = info.index.begin(); it != info.index.end();) {
            auto &v = it->second;
            v.erase(
                std::remove_if(v.begin(), v.end(), [&](const Entry &e) { return e.row < m_base; }),
                v.end());
            it = v.empty() ? info.index.erase(it) : std::next(it);
        }
}

} // namespace tideline::lineage
