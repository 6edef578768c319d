// top: per group, the rows with the largest (or smallest) value of one field, ties included,
// emitted once the watermark completes the group. This is Nexmark's "join against the
// per-window MAX" (q5, q7) done as one pass with O(1) work per row: a higher value clears the
// group's rows, an equal one appends, a lower one is dropped at once.
//
// Groups: with `size_ms` the node assigns tumbling windows itself ([floor(t/s)*s, +s), fires
// when W >= end - 1, output rows get window_start/window_end and event time end - 1), plus the
// optional `by` fields. Without `size_ms` the group is the `by` fields (default window_start and
// window_end, i.e. the results of an upstream window node) and it completes when W reaches the
// latest event time of its rows (window results carry end - 1). Groups fired by one watermark
// are emitted in order of (completion time, encoded group key); rows in arrival order.

#include "operators/keys/key_encoder.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <set>
#include <unordered_map>

namespace tideline {

namespace {

struct Num
{
    bool isInt = true;
    std::int64_t i = 0;
    double d = 0;
    static Num of(const Value &v)
    {
        Num n;
        n.isInt = v.type == ValueType::Int;
        n.i = v.i;
        n.d = v.asDouble();
        return n;
    }
    int compare(const Num &o) const
    {
        if (isInt && o.isInt)
            return i == o.i ? 0 : (i < o.i ? -1 : 1);
        return d == o.d ? 0 : (d < o.d ? -1 : 1);
    }
};

class TopOperator final : public Operator
{
public:
    explicit TopOperator(const OperatorContext &ctx)
        : m_nodeId(ctx.spec.id)
        , m_field(NodeParams(ctx).string("field"))
        , m_min(NodeParams(ctx).string("order") == "min")
        , m_size(NodeParams(ctx).integer("size_ms"))
    {
        const NodeParams p(ctx);
        std::vector<std::string> by;
        if (p.has("by"))
            by = p.fieldList("by"); // a string is a one-field list
        else if (m_size == 0)
            by = {"window_start", "window_end"};
        m_by = keys::KeyEncoder(std::move(by));
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        int idx = m_fieldHint >= 0 && static_cast<std::size_t>(m_fieldHint) < rec.size()
                          && rec.nameAt(static_cast<std::size_t>(m_fieldHint)) == m_field
                      ? m_fieldHint
                      : rec.indexOf(m_field);
        if (idx < 0 || !rec.valueAt(static_cast<std::size_t>(idx)).isNumber()) {
            out.emitError("field `" + m_field + "` is missing or not a number", std::move(rec),
                          m_wm);
            return;
        }
        m_fieldHint = idx;
        Num v = Num::of(rec.valueAt(static_cast<std::size_t>(idx)));
        Timestamp fireAt, start = 0;
        m_key.clear();
        if (m_size > 0) {
            start = floorDiv(rec.time, m_size) * m_size;
            fireAt = satSub(satAdd(start, m_size), 1);
            if (fireAt <= m_wm) {
                out.emitLate("window_closed", std::move(rec), m_wm);
                return;
            }
            keys::appendValue(Value::integer(start), m_key);
        } else {
            fireAt = rec.time;
            if (rec.time <= m_wm) {
                out.emitLate("behind_watermark", std::move(rec), m_wm);
                return;
            }
        }
        if (!m_by.paths().empty()) {
            m_byBuf.clear();
            m_by.encode(rec, m_byBuf);
            m_key += m_byBuf;
        }
        out.account(observe::Fate::Windowed);
        Group *g = m_last;
        if (!g || m_lastKey != m_key) {
            auto [it, inserted] = m_groups.try_emplace(m_key);
            g = &it->second;
            if (inserted) {
                g->fireAt = fireAt;
                g->start = start;
                m_order.insert({fireAt, m_key});
            }
            m_last = g;
            m_lastKey = m_key;
        }
        if (fireAt > g->fireAt) { // only without size_ms: the group completes later
            m_order.erase({g->fireAt, m_key});
            g->fireAt = fireAt;
            m_order.insert({fireAt, m_key});
        }
        int c = g->rows.empty() ? 1 : v.compare(g->best);
        if (m_min)
            c = -c;
        if (g->rows.empty() || c > 0) {
            m_rows -= static_cast<std::int64_t>(g->rows.size());
            g->rows.clear();
            g->best = v;
            g->rows.push_back(std::move(rec));
            ++m_rows;
        } else if (c == 0) {
            g->rows.push_back(std::move(rec));
            ++m_rows;
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        m_wm = w;
        while (!m_order.empty() && m_order.begin()->first <= w) {
            auto node = m_order.extract(m_order.begin());
            auto it = m_groups.find(node.value().second);
            if (it != m_groups.end()) {
                Group &g = it->second;
                for (auto &r : g.rows) {
                    if (m_size > 0) {
                        r.set("window_start", Value::integer(g.start));
                        r.set("window_end", Value::integer(g.start + m_size));
                        r.time = g.fireAt;
                    }
                    out.emit(0, std::move(r));
                }
                m_rows -= static_cast<std::int64_t>(g.rows.size());
                if (m_last == &g)
                    m_last = nullptr;
                m_groups.erase(it);
            }
        }
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_rows;
        m.openWindows = static_cast<std::int64_t>(m_groups.size());
        std::int64_t bytes = 0;
        for (const auto &[k, g] : m_groups)
            for (const auto &r : g.rows)
                bytes += static_cast<std::int64_t>(r.byteSize());
        m.stateBytes = bytes;
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_wm);
        w.u64(m_order.size());
        for (const auto &[fireAt, key] : m_order) {
            const Group &g = m_groups.at(key);
            w.str(key);
            w.i64(g.fireAt);
            w.i64(g.start);
            w.u64(g.rows.size());
            for (const auto &r : g.rows)
                w.record(r);
        }
    }
    void restoreState(StateReader &r) override
    {
        m_groups.clear();
        m_order.clear();
        m_last = nullptr;
        m_rows = 0;
        m_wm = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            std::string key = r.str();
            // A key saved twice is corruption: merging the two would restore a group that
            // was never saved (and list it twice in the firing order).
            if (!r.failed() && m_groups.count(key) != 0)
                throw ConfigError("node `" + m_nodeId
                                  + "`: the checkpointed top state is corrupt (a group saved "
                                    "twice)");
            Group &g = m_groups[key];
            g.fireAt = r.i64();
            g.start = r.i64();
            std::uint64_t rows = r.u64();
            for (std::uint64_t j = 0; j < rows && !r.failed(); ++j) {
                Record rec;
                r.record(rec);
                g.rows.push_back(std::move(rec));
                ++m_rows;
            }
            if (!g.rows.empty())
                g.best = Num::of(g.rows.front().get(m_field));
            m_order.insert({g.fireAt, key});
        }
    }
    std::string stateFingerprint() const override
    {
        std::string by;
        for (const auto &b : m_by.paths())
            by += b + ",";
        return "top/" + m_field + "/" + (m_min ? "min" : "max") + "/" + std::to_string(m_size) + "/"
               + by;
    }

private:
    struct Group
    {
        Timestamp fireAt = 0;
        Timestamp start = 0;
        Num best;
        std::vector<Record> rows;
    };

    std::string m_nodeId;
    std::string m_field;
    bool m_min;
    std::int64_t m_size;
    keys::KeyEncoder m_by;
    int m_fieldHint = -1;
    Timestamp m_wm = kMinTime;
    std::string m_key, m_byBuf, m_lastKey;
    Group *m_last = nullptr; ///< the group of the previous row (consecutive rows share it)
    std::unordered_map<std::string, Group> m_groups;
    std::set<std::pair<Timestamp, std::string>> m_order;
    std::int64_t m_rows = 0;
};

} // namespace

std::unique_ptr<Operator> makeTop(const OperatorContext &ctx)
{
    return std::make_unique<TopOperator>(ctx);
}

void validateTop(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    if (p.value("field", std::string()).empty())
        ctx.error("field", "must name the numeric field to rank by, e.g. \"bid.price\"");
    if (auto it = p.find("by");
        it != p.end() && it->is_array() && it->empty() && !p.contains("size_ms"))
        ctx.error("by", "without size_ms, `by` must name the group fields (e.g. "
                        "[\"window_start\", \"window_end\"]), or set size_ms");
}

} // namespace tideline
