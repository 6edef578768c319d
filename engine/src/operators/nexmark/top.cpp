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
//
// State is the keyed-state toolkit's: groups in a keys::KeyTable (encoded group key -> group),
// one timer per group in the keys::ExpiryQueue. A group whose completion time moves later keeps
// its timer; when that timer comes up early the group waits again (a new timer at its current
// time), so the queue holds one timer per group. settings.state "rocksdb" spills the rows of
// cold groups (top_spill.hpp); snapshots are the same bytes wherever the rows live.

#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/nexmark/top_spill.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <algorithm>

namespace tideline {

namespace {

using top::Group;
using top::Groups;
using top::Num;

class TopOperator final : public Operator, public state::StatefulOperator
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
        std::uint32_t gi = m_last;
        if (gi == Groups::kNone || m_lastKey != m_key) {
            auto [found, inserted] = m_groups.tryEmplace(m_key, Group{});
            gi = found;
            if (inserted) {
                Group &g = m_groups.entry(gi).value;
                g.fireAt = fireAt;
                g.start = start;
                m_timers.push(fireAt, gi);
            }
            m_last = gi;
            m_lastKey = m_key;
        }
        Group &g = m_groups.entry(gi).value;
        if (g.spilled)
            m_spill.readBack(m_groups, gi);
        g.touched = true;
        if (fireAt > g.fireAt) // only without size_ms: the group completes later (its timer
            g.fireAt = fireAt; // waits again when it comes up)
        int c = g.rows.empty() ? 1 : v.compare(g.best);
        if (m_min)
            c = -c;
        if (g.rows.empty() || c > 0) {
            m_rows -= static_cast<std::int64_t>(g.rows.size());
            m_spill.clearRows(g);
            g.best = v;
        } else if (c < 0) {
            return;
        }
        m_spill.addRow(g, std::move(rec));
        ++m_rows;
        if (m_spill.tick()) {
            m_spill.maybeSpill(m_groups);
            m_last = Groups::kNone;
        }
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        m_wm = w;
        m_due.clear();
        while (!m_timers.empty() && m_timers.top().at <= w) {
            const std::uint32_t gi = m_timers.top().payload;
            m_timers.pop();
            const Timestamp fireAt = m_groups.entry(gi).value.fireAt;
            if (fireAt > w)
                m_timers.push(fireAt, gi); // grew since: wait for its current completion time
            else
                m_due.push_back(gi);
        }
        if (!m_due.empty())
            fire(out);
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_rows; // memory and disk
        m.openWindows = static_cast<std::int64_t>(m_groups.size());
        std::int64_t bytes = 0; // memory only
        m_groups.forEach([&](std::uint32_t, const Groups::Entry &e) {
            for (const auto &r : e.value.rows)
                bytes += static_cast<std::int64_t>(r.byteSize());
        });
        m.stateBytes = bytes;
        m.stateSpilled = m_spill.policy().entriesSpilled();
    }

    void configureState(state::StateBackendConfig cfg) override
    {
        m_spill.configure(std::move(cfg), m_nodeId);
    }
    state::SpillStats spillStats() const override { return m_spill.stats(m_groups.size()); }

    void snapshotState(StateWriter &w) const override
    {
        // Groups in (completion time, key) order, as the firing order; the same bytes whether
        // or not some rows are on disk (top_spill.hpp merges those in on the writer thread).
        w.i64(m_wm);
        w.u64(m_groups.size());
        std::vector<std::uint32_t> order;
        order.reserve(m_groups.size());
        m_groups.forEach([&](std::uint32_t i, const Groups::Entry &) { order.push_back(i); });
        sortByFiring(order);
        m_spill.snapshot(w, m_groups, order);
    }

    void restoreState(StateReader &r) override
    {
        m_groups.clear();
        m_timers.clear();
        m_last = Groups::kNone;
        m_rows = 0;
        m_spill.reset();
        m_wm = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            std::string key = r.str();
            auto [gi, inserted] = m_groups.tryEmplace(key, Group{});
            // A key saved twice is corruption: merging the two would restore a group that
            // was never saved (and list it twice in the firing order).
            if (!r.failed() && !inserted)
                throw ConfigError("node `" + m_nodeId
                                  + "`: the checkpointed top state is corrupt (a group saved "
                                    "twice)");
            Group &g = m_groups.entry(gi).value;
            g.fireAt = r.i64();
            g.start = r.i64();
            std::uint64_t rows = r.u64();
            for (std::uint64_t j = 0; j < rows && !r.failed(); ++j) {
                Record rec;
                r.record(rec);
                m_spill.addRow(g, std::move(rec));
                ++m_rows;
            }
            if (!g.rows.empty())
                g.best = Num::of(g.rows.front().get(m_field));
            m_timers.push(g.fireAt, gi);
            if (m_spill.tick())
                m_spill.maybeSpill(m_groups); // a state larger than the budget spills as it loads
        }
        m_spill.maybeSpill(m_groups);
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
    void sortByFiring(std::vector<std::uint32_t> &order) const
    {
        std::sort(order.begin(), order.end(), [this](std::uint32_t a, std::uint32_t b) {
            const Groups::Entry &x = m_groups.entry(a);
            const Groups::Entry &y = m_groups.entry(b);
            return x.value.fireAt != y.value.fireAt ? x.value.fireAt < y.value.fireAt
                                                    : x.key < y.key;
        });
    }

    void fire(Output &out)
    {
        sortByFiring(m_due);
        for (const std::uint32_t gi : m_due) {
            Group &g = m_groups.entry(gi).value;
            if (g.spilled)
                m_spill.readBack(m_groups, gi);
            for (auto &r : g.rows) {
                if (m_size > 0) {
                    r.set("window_start", Value::integer(g.start));
                    r.set("window_end", Value::integer(g.start + m_size));
                    r.time = g.fireAt;
                }
                out.emit(0, std::move(r));
            }
            m_rows -= static_cast<std::int64_t>(g.rows.size());
            m_spill.clearRows(g);
            if (m_last == gi)
                m_last = Groups::kNone;
            m_groups.erase(gi);
        }
    }

    std::string m_nodeId;
    std::string m_field;
    bool m_min;
    std::int64_t m_size;
    keys::KeyEncoder m_by;
    int m_fieldHint = -1;
    Timestamp m_wm = kMinTime;
    std::string m_key, m_byBuf, m_lastKey;
    std::uint32_t m_last = Groups::kNone; ///< the group of the previous row (rows share it)
    Groups m_groups{1024};
    keys::ExpiryQueue<std::uint32_t> m_timers; ///< (completion time, group entry)
    std::vector<std::uint32_t> m_due;
    std::int64_t m_rows = 0;
    top::Spill m_spill;
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
