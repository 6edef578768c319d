// The checkpoint of a Spark or Kafka Streams window (mode_window.hpp): its whole state, so that
// a run restored from a savepoint continues byte for byte as the uninterrupted run would.
//
// Layout after the window header (version, fingerprint, the watermark Spark's window holds):
//   u64 tasks; per task, by partition: u64 part, i64 stream time,
//     u64 panes; per pane, by start: i64 start, i64 end, u64 rows, rows in insertion order
//       (key, accumulators), then uvar changed, the changed rows' indexes in order (Spark's
//       update mode: what the open micro-batch changed);
//     u64 keys; per key, by key bytes: key, u64 sessions (start, end, u8 emitted,
//       accumulators), u64 windows (start, u8 dirty, accumulators), u64 records (each a
//       StateWriter::record).
// Canonical: the same state gives the same bytes whatever order it was built in (panes keep
// their rows' insertion order, which a restore reproduces). Timers are not written: a restore
// arms each key's again from its sessions, windows and records (armTimers).

#include "operators/window/mode_window.hpp"

#include <algorithm>

namespace tideline::window {

namespace {
constexpr std::uint8_t kModeLayout = 1;
} // namespace

void ModeWindowBase::snapshotState(StateWriter &w) const
{
    writeHeader(w);
    w.u8(kModeLayout);
    const std::vector<AggState> zeros(m_aggs.size());
    auto accs = [&](const std::vector<AggState> &acc) {
        writeAccs(w, acc.empty() ? zeros.data() : acc.data());
    };
    w.u64(m_tasks.size());
    for (const auto &task : m_tasks) {
        // Not a structured binding: Debian's clang 14 (the fuzz preset) cannot capture one in
        // the lambdas below.
        const ModeTask &tk = task.second;
        w.u64(task.first);
        w.i64(tk.streamTime);
        w.u64(tk.panes.size());
        for (const auto &[start, p] : tk.panes) {
            w.i64(p.start);
            w.i64(p.end);
            w.u64(p.table.size());
            {
                EntryBatch batch(*this, w);
                for (std::uint32_t i = 0; i < p.table.size(); ++i)
                    batch.entry(p.table.key(i), p.table.acc(i));
            }
            w.uvar(p.changed.size());
            for (std::uint32_t i : p.changed)
                w.uvar(i);
        }
        std::vector<std::uint32_t> order;
        order.reserve(tk.keys.size());
        tk.keys.forEach([&](std::uint32_t e, const auto &) { order.push_back(e); });
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return tk.keys.entry(a).key < tk.keys.entry(b).key;
        });
        w.u64(order.size());
        for (std::uint32_t e : order) {
            const auto &entry = tk.keys.entry(e);
            writeKey(w, entry.key);
            const ModeKeyState &ks = entry.value;
            w.u64(ks.sessions.size());
            for (const ModeSession &s : ks.sessions) {
                w.i64(s.start);
                w.i64(s.end);
                w.u8(s.emitted ? 1 : 0);
                accs(s.cell.acc);
            }
            w.u64(ks.windows.size());
            for (const auto &[start, cell] : ks.windows) {
                w.i64(start);
                w.u8(cell.dirty ? 1 : 0);
                accs(cell.acc);
            }
            w.u64(ks.records.size());
            for (const auto &[t, r] : ks.records)
                w.record(r);
        }
    }
}

void ModeWindowBase::restoreState(StateReader &r)
{
    m_tasks.clear();
    m_lastTask = nullptr;
    auto corrupt = [&](const char *what) {
        return ConfigError("node `" + m_nodeId + "`: the checkpointed window state " + what);
    };
    if (!readHeader(r) || r.u8() != kModeLayout)
        throw corrupt("does not match this window (semantics, type, size, key or aggregates "
                      "changed) or is corrupt");
    std::string scratch;
    const std::uint64_t tasks = r.u64();
    for (std::uint64_t n = 0; n < tasks && !r.failed(); ++n) {
        ModeTask &tk = m_tasks[static_cast<std::uint32_t>(r.u64())];
        tk.streamTime = r.i64();
        const std::uint64_t panes = r.u64();
        for (std::uint64_t pn = 0; pn < panes && !r.failed(); ++pn) {
            const Timestamp start = r.i64();
            const Timestamp end = r.i64();
            const std::uint64_t rows = r.u64();
            ModePane &p = pane(tk, start, end);
            // A corrupt count must not reserve gigabytes: a row takes at least a byte.
            p.table.reset(std::min<std::uint64_t>({rows, r.remaining(), 1u << 24}), m_aggs.size());
            for (std::uint64_t i = 0; i < rows && !r.failed(); ++i) {
                const std::string_view key = readKey(r, scratch);
                bool created = false;
                const std::uint32_t idx = p.table.findOrInsert(key, hashBytes(key), created);
                readAccs(r, p.table.acc(idx));
            }
            const std::uint64_t changed = r.uvar();
            for (std::uint64_t c = 0; c < changed && !r.failed(); ++c) {
                const std::uint64_t i = r.uvar();
                if (i >= p.table.size())
                    throw corrupt("is corrupt (a changed row that is not in its window)");
                const auto idx = static_cast<std::uint32_t>(i);
                if (p.dirty.size() <= idx)
                    p.dirty.resize(p.table.size());
                p.dirty[idx] = 1;
                p.changed.push_back(idx);
            }
        }
        const std::uint64_t keyCount = r.u64();
        for (std::uint64_t k = 0; k < keyCount && !r.failed(); ++k) {
            m_keyBuf = readKey(r, scratch);
            const std::uint32_t e = keyEntry(tk);
            ModeKeyState &ks = tk.keys.entry(e).value;
            const std::uint64_t sessions = r.u64();
            for (std::uint64_t i = 0; i < sessions && !r.failed(); ++i) {
                ModeSession s;
                s.start = r.i64();
                s.end = r.i64();
                s.emitted = r.u8() != 0;
                s.cell.acc.resize(m_aggs.size());
                readAccs(r, s.cell.acc.data());
                ks.sessions.push_back(std::move(s));
            }
            const std::uint64_t windows = r.u64();
            for (std::uint64_t i = 0; i < windows && !r.failed(); ++i) {
                ModeCell &c = ks.windows[r.i64()];
                c.dirty = r.u8() != 0;
                c.acc.resize(m_aggs.size());
                readAccs(r, c.acc.data());
            }
            const std::uint64_t records = r.u64();
            for (std::uint64_t i = 0; i < records && !r.failed(); ++i) {
                Record rec;
                r.record(rec);
                const Timestamp t = rec.time;
                ks.records.emplace(t, std::move(rec));
            }
            if (r.failed())
                break;
            armTimers(tk, e);
        }
    }
    if (r.failed())
        throw corrupt("is cut short");
}

} // namespace tideline::window
