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

#include "operators/keys/key_encoder.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <map>
#include <unordered_map>

namespace tideline {

namespace {

class WindowJoinOperator final : public Operator
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
            w = &m_windows[start];
            m_last = w;
            m_lastStart = start;
        }
        if (input == 0) {
            w->left.push_back({m_key, std::move(rec)});
            ++m_entries;
        } else if (m_semi) {
            if (w->rightKeys.tryEmplace(m_key, 0).second)
                ++m_entries;
        } else {
            w->right[m_key].push_back(std::move(rec));
            ++m_entries;
        }
    }

    void processWatermark(Timestamp wm, Output &out) override
    {
        m_wm = wm;
        while (!m_windows.empty()) {
            auto it = m_windows.begin();
            Timestamp start = it->first;
            if (satSub(satAdd(start, m_size), 1) > wm)
                break;
            fire(start, it->second, out);
            if (m_last == &it->second)
                m_last = nullptr;
            m_windows.erase(it);
        }
        out.emitWatermark(wm);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_entries;
        m.openWindows = static_cast<std::int64_t>(m_windows.size());
    }

    void snapshotState(StateWriter &w) const override
    {
        w.i64(m_wm);
        w.u64(m_windows.size());
        for (const auto &[start, win] : m_windows) {
            w.i64(start);
            w.u64(win.left.size());
            for (const auto &[k, r] : win.left) {
                w.str(k);
                w.record(r);
            }
            w.u64(win.rightKeys.size());
            win.rightKeys.forEach([&](std::uint32_t, const auto &e) { w.str(e.key); });
            w.u64(win.right.size());
            for (const auto &[k, rs] : win.right) {
                w.str(k);
                w.u64(rs.size());
                for (const auto &r : rs)
                    w.record(r);
            }
        }
    }
    void restoreState(StateReader &r) override
    {
        m_windows.clear();
        m_last = nullptr;
        m_entries = 0;
        m_wm = r.i64();
        std::uint64_t n = r.u64();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            Win &win = m_windows[r.i64()];
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                std::string k = r.str();
                Record rec;
                r.record(rec);
                win.left.push_back({std::move(k), std::move(rec)});
                ++m_entries;
            }
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                win.rightKeys.tryEmplace(r.str(), 0);
                ++m_entries;
            }
            for (std::uint64_t j = r.u64(); j > 0 && !r.failed(); --j) {
                auto &rs = win.right[r.str()];
                for (std::uint64_t q = r.u64(); q > 0 && !r.failed(); --q) {
                    Record rec;
                    r.record(rec);
                    rs.push_back(std::move(rec));
                    ++m_entries;
                }
            }
        }
    }
    std::string stateFingerprint() const override
    {
        return "window_join/" + std::to_string(m_size) + "/" + (m_semi ? "semi" : "pairs");
    }

private:
    struct Win
    {
        std::vector<std::pair<std::string, Record>> left; ///< arrival order
        /// left_semi: the right keys (open addressing, no node per key; q8 puts ~60,000
        /// auctions in a 10 s window)
        keys::KeyTable<char> rightKeys;
        std::unordered_map<std::string, std::vector<Record>> right; ///< pairs
    };

    void fire(Timestamp start, Win &win, Output &out)
    {
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
            auto it = win.right.find(key);
            if (it == win.right.end())
                continue;
            for (const auto &right : it->second) {
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
        for (const auto &[k, rs] : win.right)
            m_entries -= static_cast<std::int64_t>(rs.size());
    }

    std::int64_t m_size;
    bool m_semi;
    keys::KeyEncoder m_leftKey, m_rightKey;
    std::string m_key;
    Timestamp m_wm = kMinTime;
    std::map<Timestamp, Win> m_windows;
    Win *m_last = nullptr;
    Timestamp m_lastStart = 0;
    std::int64_t m_entries = 0;
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
