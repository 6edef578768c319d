// window_join: equi-join of two streams within the same tumbling window (Flink's window join,
// Nexmark q8). A window [s, s + size) collects left and right records by key and fires when
// the join's watermark (min of both inputs) reaches s + size - 1:
//   output "pairs":     {left: {...}, right: {...}, window_start, window_end} for every pair
//                       with equal keys (left records in arrival order, then right ones);
//   output "left_semi": each left record once, with window_start/window_end added, when at
//                       least one right record of the window has its key (right records are
//                       then kept as a key set only).
// Results carry event time end - 1. A record whose window already fired goes to `late`
// ("window_closed"). Records with a null or missing key field never match.
//
// Windows are kept by start in a keys::WindowSet (few are open at once) and fire from the
// keyed-state toolkit's event-time timer queue (keys::ExpiryQueue), as the aligned window's
// panes do. Per window the buffered records and keys are in the toolkit's tables;
// settings.state "rocksdb" spills buffered records (window_join_state.hpp).

#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_encoder.hpp"
#include "operators/nexmark/window_join_state.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

namespace tideline {

namespace {

using window_join::RightRecords;
using window_join::Win;

class WindowJoinOperator final : public Operator, public state::StatefulOperator
{
public:
    explicit WindowJoinOperator(const OperatorContext &ctx)
        : m_size(NodeParams(ctx).integer("size_ms"))
        , m_semi(NodeParams(ctx).string("output") == "left_semi")
        , m_leftKey(NodeParams(ctx).fieldList("left_key"))
        , m_rightKey(NodeParams(ctx).fieldList("right_key"))
    {
        // size_ms is required (> 0): validation refuses a node without it.
        if (m_size <= 0)
            throw ConfigError("params.size_ms: must be > 0");
    }

    void processRecord(int input, Record &&rec, Output &out) override
    {
        Timestamp start = floorDiv(rec.time, m_size) * m_size;
        Timestamp fireAt = satSub(satAdd(start, m_size), 1);
        if (fireAt <= m_wm) {
            out.emitLate("window_closed", std::move(rec), m_wm);
            return;
        }
        bool ok = (input == 0 ? m_leftKey : m_rightKey).encode(rec, m_key);
        if (!ok) {
            out.account(observe::Fate::NullKey);
            return; // null key: matches nothing (SQL equality)
        }
        out.account(observe::Fate::Windowed);
        Win *w = m_last;
        if (!w || m_lastStart != start) {
            bool created = false;
            w = &m_windows.get(start, created);
            if (created)
                m_timers.push(fireAt, start);
            m_last = w;
            m_lastStart = start;
        }
        if (input == 0) {
            m_spill.added(*w, m_spill.entryBytes(m_key, rec));
            w->left.push_back({m_key, std::move(rec)});
            ++m_entries;
        } else if (m_semi) {
            if (!w->rightKeys.tryEmplace(m_key, 0).second)
                return;
            m_spill.addedKey(*w, m_key.size());
            ++m_entries;
        } else {
            m_spill.added(*w, m_spill.entryBytes(m_key, rec));
            w->right.entry(w->right.tryEmplace(m_key, {}).first).value.push_back(std::move(rec));
            ++m_entries;
        }
        w->touched = true;
        if (m_spill.tick())
            m_spill.maybeSpill(m_windows);
    }

    void processWatermark(Timestamp wm, Output &out) override
    {
        m_wm = wm;
        while (!m_timers.empty() && m_timers.top().at <= wm) {
            const Timestamp start = m_timers.top().payload;
            m_timers.pop();
            if (Win *w = m_windows.find(start)) {
                fire(start, *w, out);
                m_windows.erase(start);
                m_last = nullptr; // erasing moves the other windows
            }
        }
        out.emitWatermark(wm);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_entries; // memory and disk
        m.openWindows = static_cast<std::int64_t>(m_windows.size());
        m.stateBytes = static_cast<std::int64_t>(m_spill.bytes()); // memory only
        m.stateSpilled = m_spill.policy().entriesSpilled();
    }

    void configureState(state::StateBackendConfig cfg) override
    {
        m_spill.configure(std::move(cfg));
    }
    state::SpillStats spillStats() const override { return m_spill.stats(m_entries); }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_wm);
        w.u64(m_windows.size());
        for (const auto &[start, win] : m_windows)
            m_spill.writeWindow(w, start, win);
    }
    void restoreState(StateReader &r) override
    {
        m_windows.clear();
        m_timers.clear();
        m_last = nullptr;
        m_entries = 0;
        m_spill.reset();
        m_wm = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            const Timestamp start = r.i64();
            bool created = false;
            Win &win = m_windows.get(start, created);
            if (created)
                m_timers.push(satSub(satAdd(start, m_size), 1), start);
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                std::string k = r.str();
                Record rec;
                r.record(rec);
                m_spill.added(win, m_spill.entryBytes(k, rec));
                win.left.push_back({std::move(k), std::move(rec)});
                ++m_entries;
            }
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                const std::string k = r.str();
                win.rightKeys.tryEmplace(k, 0);
                m_spill.addedKey(win, k.size());
                ++m_entries;
            }
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                const std::string k = r.str();
                auto &rs = win.right.entry(win.right.tryEmplace(k, {}).first).value;
                for (std::uint64_t q = r.u64(); q > 0 && !r.failed(); --q) {
                    Record rec;
                    r.record(rec);
                    m_spill.added(win, m_spill.entryBytes(k, rec));
                    rs.push_back(std::move(rec));
                    ++m_entries;
                }
            }
            m_spill.maybeSpill(m_windows); // a state larger than the budget spills as it loads
        }
    }
    std::string stateFingerprint() const override
    {
        return "window_join/" + std::to_string(m_size) + "/" + (m_semi ? "semi" : "pairs");
    }

private:
    void fire(Timestamp start, Win &win, Output &out)
    {
        m_spill.readBack(start, win);
        Timestamp end = start + m_size;
        for (auto &[key, left] : win.left) {
            --m_entries;
            if (m_semi) {
                if (win.rightKeys.find(key) == keys::KeyTable<char>::kNone)
                    continue;
                left.set("window_start", Value::integer(start));
                left.set("window_end", Value::integer(end));
                left.time = end - 1;
                out.emit(0, std::move(left));
                continue;
            }
            const std::uint32_t it = win.right.find(key);
            if (it == RightRecords::kNone)
                continue;
            for (const auto &right : win.right.entry(it).value) {
                Record o;
                o.reserve(left.size() + right.size() + 2, 256);
                o.appendNested("left", left);
                o.appendNested("right", right);
                o.append("window_start", Value::integer(start));
                o.append("window_end", Value::integer(end));
                o.time = end - 1;
                out.emit(0, std::move(o));
            }
        }
        m_entries -= static_cast<std::int64_t>(win.rightKeys.size());
        win.right.forEach([&](std::uint32_t, const RightRecords::Entry &e) {
            m_entries -= static_cast<std::int64_t>(e.value.size());
        });
        m_spill.fired(win);
    }

    std::int64_t m_size;
    bool m_semi;
    keys::KeyEncoder m_leftKey, m_rightKey;
    std::string m_key;
    Timestamp m_wm = kMinTime;
    window_join::Windows m_windows;
    keys::ExpiryQueue<Timestamp> m_timers; ///< (firing time, window start)
    Win *m_last = nullptr;
    Timestamp m_lastStart = 0;
    std::int64_t m_entries = 0; ///< buffered records and keys, memory and disk
    window_join::Spill m_spill;
};

} // namespace

std::unique_ptr<Operator> makeWindowJoin(const OperatorContext &ctx)
{
    return std::make_unique<WindowJoinOperator>(ctx);
}

void validateWindowJoin(const NodeValidationContext &ctx)
{
    const Json &p = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)].params;
    // Read as the operator reads them (a string is a one-field list).
    const NodeParams read(ctx);
    const auto l = read.fieldList("left_key"), r = read.fieldList("right_key");
    if (p.contains("left_key") && p.contains("right_key")) {
        if (l.empty())
            ctx.error("left_key", "must name at least one key field");
        else if (l.size() != r.size())
            ctx.error("right_key",
                      "must have as many fields as left_key (" + std::to_string(l.size()) + ")");
    }
}

} // namespace tideline
