// Session windows: per key, each record opens [t, t + gap); windows of one key that overlap or
// touch merge (a record exactly `gap` after the previous one joins its session), including a
// late record that bridges two sessions (all three become one).
//
// State per key is a short list of sessions that never overlap or touch each other, in a slot
// found through the toolkit's keys::KeyTable (the entry number of a key is its slot number).
// Firing order comes from the toolkit's timer queue, keys::ExpiryQueue (session, time to look
// at it again). A timer names a session by (key slot, slot generation, start); a session's
// start only moves earlier when it merges, and then a new timer is pushed, so stale timers are
// recognised and dropped when they come up. When a timer comes up and its session is not due
// yet (it grew since), the timer is pushed again for the session's current end: records that
// merely extend a session push nothing, so the queue stays about one timer per live session.
//
// Lateness is decided after merging (Flink's reading): a record is too late only when the
// merged window would already be past its allowed lateness, i.e. when it joins no live session
// and its own window [t, t + gap) is closed. Merging into sessions already emitted (possible
// with allowed lateness) emits the merged window as an "update" - right away when the merged
// window is still due, otherwise when the watermark reaches its new end.

#include "checkpoint/keyed_state.hpp"
#include "operators/keys/expiry_queue.hpp"
#include "operators/keys/key_table.hpp"
#include "operators/window/session_state.hpp"
#include "operators/window/window_base.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace tideline::window {

namespace {

class SessionWindow final : public WindowOperatorBase, public checkpoint::KeyedState
{
public:
    using WindowOperatorBase::WindowOperatorBase;

    void processRecord(int, Record &&rec, Output &out) override
    {
        // First, while no slot or session pointer is held: an eviction pass may move sessions.
        if (m_spill.tick())
            maybeEvict();
        const Timestamp t = rec.time;
        const Timestamp end = satAdd(t, m_cfg.gap);
        m_codec.encode(rec, m_keyBuf);
        const std::uint32_t foundSlot = m_index.find(m_keyBuf);
        KeySlot *slot = foundSlot == Index::kNone ? nullptr : &m_slots[foundSlot];
        if (slot != nullptr && m_state.store) {
            ensureLoaded(foundSlot);
            slot->touched = true;
        }

        // Which sessions does [t, end) overlap or touch, and what is the merged extent?
        Timestamp mStart = t;
        Timestamp mEnd = end;
        m_merging.clear();
        if (slot != nullptr) {
            for (std::uint32_t i = 0; i < slot->sessions.size(); ++i) {
                const Session &s = slot->sessions[i];
                if (s.start <= end && t <= s.end) {
                    m_merging.push_back(i);
                    mStart = std::min(mStart, s.start);
                    mEnd = std::max(mEnd, s.end);
                }
            }
        }
        if (cleanupTime(mEnd) <= m_wm) {
            out.emitLate("window_closed", std::move(rec), m_wm);
            return;
        }
        std::uint32_t slotIndex;
        if (slot == nullptr) {
            slotIndex = newSlot(m_keyBuf);
            slot = &m_slots[slotIndex];
        } else {
            slotIndex = foundSlot;
        }

        Session *target;
        bool emittedBefore = false;
        bool targetWasFired = false;
        Timestamp oldStart = 0;
        bool isNew = m_merging.empty();
        if (isNew) {
            slot->sessions.push_back(Session{});
            target = &slot->sessions.back();
            target->acc.resize(m_aggs.size());
            ++m_sessionCount;
        } else {
            // Merge every other touched session into the first one, then drop them (from the
            // back so indexes stay valid).
            target = &slot->sessions[m_merging[0]];
            oldStart = target->start;
            emittedBefore = target->emitted;
            targetWasFired = target->fired;
            for (std::size_t j = m_merging.size(); j-- > 1;) {
                Session &other = slot->sessions[m_merging[j]];
                m_aggs.merge(target->acc.data(), other.acc.data());
                emittedBefore = emittedBefore || other.emitted;
                slot->sessions.erase(slot->sessions.begin() + m_merging[j]);
                --m_sessionCount;
            }
            target = &slot->sessions[m_merging[0]];
        }
        target->start = mStart;
        target->end = mEnd;
        m_ignoredValues += m_aggs.add(rec, target->acc.data());
        out.account(targetWasFired || satSub(mEnd, 1) <= m_wm ? observe::Fate::LateAccepted
                                                              : observe::Fate::Windowed);

        if (satSub(mEnd, 1) <= m_wm) {
            // Due already (only reachable with allowed lateness): emit with this record.
            target->fired = true;
            const EmitKind kind = emittedBefore ? EmitKind::Update : EmitKind::Final;
            target->emitted = true;
            if (isNew || mStart != oldStart)
                pushTimer(cleanupTime(mEnd), slotIndex, mStart);
            emitResult(mStart, mEnd, slot->key, target->acc.data(), kind, out);
            return;
        }
        // Not due yet. A session that had fired and grew past the watermark waits again (and
        // will be emitted as an update); its pending timer is the later cleanup one, so it
        // needs a timer for its new end.
        target->fired = false;
        if (isNew || mStart != oldStart || targetWasFired)
            pushTimer(satSub(mEnd, 1), slotIndex, mStart);
    }

    void processWatermark(Timestamp w, Output &out) override
    {
        if (w > m_wm)
            m_wm = w;
        m_due.clear();
        m_purge.clear();
        while (!m_timers.empty() && m_timers.top().at <= m_wm) {
            const SessionRef tm = m_timers.top().payload;
            m_timers.pop();
            Session *s = find(tm);
            if (s == nullptr)
                continue;
            if (!s->fired) {
                if (satSub(s->end, 1) <= m_wm) {
                    s->fired = true;
                    m_due.push_back({s->end, s->start, tm.slot,
                                     s->emitted ? EmitKind::Update : EmitKind::Final});
                    s->emitted = true;
                    pushTimer(cleanupTime(s->end), tm.slot, s->start);
                } else {
                    pushTimer(satSub(s->end, 1), tm.slot, s->start);
                }
            } else if (cleanupTime(s->end) <= m_wm) {
                m_purge.push_back({s->end, s->start, tm.slot, EmitKind::Final});
            } else {
                pushTimer(cleanupTime(s->end), tm.slot, s->start);
            }
        }
        if (!m_due.empty())
            emitDue(out);
        for (const Due &d : m_purge)
            erase(d.slot, d.start);
        out.emitWatermark(w);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.stateEntries = m_sessionCount;
        m.openWindows = m_sessionCount;
        std::size_t bytes = m_slots.capacity() * sizeof(KeySlot)
                            + m_timers.size() * sizeof(Timers::Item)
                            + m_index.size() * (sizeof(std::string) + 32);
        for (const KeySlot &k : m_slots)
            if (k.used)
                bytes += k.key.capacity() * 2 + k.sessions.size() * sessionBytes();
        m.stateBytes = static_cast<std::int64_t>(bytes); // memory only (spilled: on disk)
        m.stateSpilled = m_spill.entriesSpilled();
        m.errors += m_ignoredValues;
    }

    void snapshotState(StateWriter &w) const override
    {
        writeHeader(w);
        std::uint64_t used = 0;
        std::size_t bound = 16;
        for (const KeySlot &k : m_slots) {
            if (!k.used || k.spilled)
                continue;
            ++used;
            bound
                += kMaxVarint + k.sessions.size() * (2 * kMaxVarint + 1) + entryBound(k.key.size());
        }
        w.reserve(bound);
        w.u64(used);
        EntryBatch batch(*this, w);
        writeSlots(batch, w);
        batch.flush();
        // Then the spilled keys: (1, key, sessions as above)... 0.
        keys::deferSpilledEntries(w, m_state.store, m_spill.entriesSpilled() != 0,
                                  [](StateWriter &out, std::string_view k, std::string_view v) {
                                      out.u8(1);
                                      char len[kMaxVarint];
                                      out.bytes(len, putUvar(len, k.size()));
                                      out.bytes(k.data(), k.size());
                                      out.bytes(v.data(), v.size());
                                  });
    }

    void snapshotMerged(const std::vector<const Operator *> &instances,
                        StateWriter &w) const override
    {
        // snapshotState()'s format for one instance holding every key: the keys of every
        // instance, instance after instance. Only the order of keys differs from a single
        // instance's (its slot order), and the window never looks at that order: a restore
        // schedules every session anew and a firing sorts by (end, start, key).
        std::vector<const SessionWindow *> parts;
        std::uint64_t used = 0;
        for (const Operator *op : instances) {
            const auto *sw = dynamic_cast<const SessionWindow *>(op);
            if (sw == nullptr)
                throw std::logic_error("window: asked to merge another operator's state");
            // (settings.state "rocksdb" runs with parallelism 1: instances never spill.)
            if (sw->m_spill.entriesSpilled() != 0)
                throw std::runtime_error("sessions spilled to RocksDB cannot be merged across "
                                         "parallel instances");
            for (const KeySlot &k : sw->m_slots)
                used += k.used && !k.spilled ? 1 : 0;
            parts.push_back(sw);
        }
        writeHeader(w);
        w.u64(used);
        EntryBatch batch(*this, w);
        for (const SessionWindow *sw : parts)
            sw->writeSlots(batch, w);
        batch.flush();
        w.u8(0); // no spilled keys
    }

    state::SpillStats spillStats() const override
    {
        return m_spill.stats(m_sessionCount - m_spilledSessions);
    }

    void restoreState(StateReader &r) override { restoreKeyed(r, {}, true); }

    void restoreKeyed(StateReader &r, const checkpoint::KeepKey &keep, bool) override
    {
        m_slots.clear();
        m_index.clear();
        m_timers.clear();
        m_sessionCount = 0;
        m_spilledSessions = 0;
        m_spill.reset();
        if (!readHeader(r))
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state does not match this window "
                                "(type, gap, key or aggregates changed) or is corrupt");
        const bool v1 = stateVersion() == 1;
        const std::uint64_t keys = r.u64();
        std::string scratch;
        for (std::uint64_t k = 0; k < keys && !r.failed(); ++k) {
            const std::string_view key = readKey(r, scratch);
            if (keep && !keep(key)) {
                skipSessions(r, v1); // another instance's key group
                continue;
            }
            readSessions(r, restoredSlot(key), v1, true);
            if (m_spill.tick())
                maybeEvict(); // a state larger than the budget goes to disk as it loads
        }
        // Spilled keys of the saved run (absent from states written before that existed).
        while (!v1 && !r.failed() && !r.atEnd()) {
            if (r.u8() == 0)
                break;
            const std::string_view key = readKey(r, scratch);
            if (keep && !keep(key)) {
                skipSessions(r, false);
                continue;
            }
            readSessions(r, restoredSlot(key), false, true);
            if (m_spill.tick())
                maybeEvict();
        }
        if (r.failed())
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state is cut short");
        if (m_state.store)
            maybeEvict();
    }

private:
    struct Due
    {
        Timestamp end;
        Timestamp start;
        std::uint32_t slot;
        EmitKind kind;
    };

    std::size_t sessionBytes() const
    {
        return sizeof(Session) + 16 + m_aggs.size() * sizeof(AggState);
    }

    /// A key's sessions as stored: count; per session start, length, flags, accumulators.
    void writeSessions(std::string &out, const KeySlot &k)
    {
        char b[3 * kMaxVarint + 1];
        out.append(b, putUvar(b, k.sessions.size()));
        m_accScratch.resize(m_aggs.compactBound() + 1);
        for (const Session &s : k.sessions) {
            out.append(b, putSessionHead(b, s));
            out.append(m_accScratch.data(), m_aggs.saveCompact(m_accScratch.data(), s.acc.data()));
        }
    }

    /// This instance's keys as snapshotState() writes them (memory only; spilled keys
    /// follow separately): key, number of sessions; per session start, length (wrapping
    /// arithmetic: never overflows), flags, accumulators (an "entry" with an empty key).
    /// `batch` may be another instance's (snapshotMerged).
    void writeSlots(EntryBatch &batch, StateWriter &w) const
    {
        char b[3 * kMaxVarint + 1];
        for (const KeySlot &k : m_slots) {
            if (!k.used || k.spilled)
                continue;
            const std::size_t keyBytes = putUvar(b, k.key.size());
            batch.raw(b, keyBytes);
            if (k.key.size() <= (16u << 10)) {
                batch.raw(k.key.data(), k.key.size());
            } else {
                batch.flush();
                w.bytes(k.key.data(), k.key.size());
            }
            batch.raw(b, putUvar(b, k.sessions.size()));
            for (const Session &s : k.sessions) {
                batch.raw(b, putSessionHead(b, s));
                batch.accs(s.acc.data());
            }
        }
    }

    /// Reads past a key's sessions (restoreKeyed: a key of another instance).
    void skipSessions(StateReader &r, bool v1)
    {
        std::vector<AggState> acc(m_aggs.size());
        const std::uint64_t n = v1 ? r.u64() : r.uvar();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            if (v1) {
                (void)r.i64();
                (void)r.i64();
            } else {
                (void)r.svar();
                (void)r.uvar();
            }
            (void)r.u8();
            readAccs(r, acc.data());
        }
    }

    /// Reads a key's sessions into its slot; `timers`: also schedule them (restore).
    void readSessions(StateReader &r, std::uint32_t slotIndex, bool v1, bool timers)
    {
        const std::uint64_t n = v1 ? r.u64() : r.uvar();
        for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
            Session s;
            std::uint8_t flags = 0;
            if (v1) {
                s.start = r.i64();
                s.end = r.i64();
                flags = r.u8();
            } else {
                s.start = r.svar();
                s.end = static_cast<Timestamp>(static_cast<std::uint64_t>(s.start) + r.uvar());
                flags = r.u8();
            }
            s.fired = (flags & 1) != 0;
            s.emitted = (flags & 2) != 0;
            s.acc.resize(m_aggs.size());
            readAccs(r, s.acc.data());
            if (timers) {
                pushTimer(s.fired ? cleanupTime(s.end) : satSub(s.end, 1), slotIndex, s.start);
                ++m_sessionCount;
            }
            m_slots[slotIndex].sessions.push_back(std::move(s));
        }
    }

    // --- settings.state "rocksdb" ---
    // A cold key's sessions move to the spill store (RocksDB key = the encoded key); its slot,
    // index entry and timers stay in memory, so timers still find it and read it back.

    void ensureLoaded(std::uint32_t slotIndex)
    {
        KeySlot &k = m_slots[slotIndex];
        if (!k.spilled)
            return;
        if (!m_state.store->get(k.key, m_valueBuf))
            throw std::runtime_error("node `" + m_nodeId + "`: spilled state of a key is missing");
        StateReader r(m_valueBuf);
        k.sessions.clear();
        readSessions(r, slotIndex, false, false);
        m_state.store->erase(k.key);
        k.spilled = false;
        m_spilledSessions -= static_cast<std::int64_t>(k.sessions.size());
        m_spill.readBack(static_cast<std::int64_t>(k.sessions.size()));
    }

    /// Over budget (sessions in memory, keys::SpillPolicy): spill keys not touched since the
    /// last pass, then, if that is not enough, any loaded key in slot order.
    void maybeEvict()
    {
        const std::size_t per = sessionBytes();
        auto inMemory = [&] {
            return static_cast<std::size_t>(m_sessionCount - m_spilledSessions) * per;
        };
        std::optional<state::SpillStore::Batch> batch;
        auto spill = [&](KeySlot &k) {
            m_value.clear();
            writeSessions(m_value, k);
            batch->put(k.key, m_value);
            const auto n = static_cast<std::int64_t>(k.sessions.size());
            m_spilledSessions += n;
            m_spill.spilled(n);
            k.sessions.clear();
            k.sessions.shrink_to_fit();
            k.spilled = true;
        };
        auto spillCold = [&] {
            batch.emplace(*m_state.store);
            for (KeySlot &k : m_slots) {
                if (!k.used || k.spilled)
                    continue;
                if (k.touched)
                    k.touched = false;
                else
                    spill(k);
            }
        };
        auto spillMore = [&](auto overTarget) {
            for (KeySlot &k : m_slots) {
                if (!overTarget())
                    break;
                if (k.used && !k.spilled)
                    spill(k);
            }
        };
        if (m_spill.maybeSpill(inMemory, spillCold, spillMore))
            batch->commit();
    }

    std::uint32_t newSlot(std::string_view key)
    {
        // The index reuses freed entries last-in first-out and never moves one, so its entry
        // numbers serve as slot numbers (a freed slot keeps its generation and buffers).
        const std::uint32_t index = m_index.tryEmplace(key, 0).first;
        if (index >= m_slots.size())
            m_slots.resize(index + 1);
        KeySlot &s = m_slots[index];
        s.key.assign(key);
        s.used = true;
        s.spilled = false;
        s.touched = true;
        s.sessions.clear();
        return index;
    }

    /// A key's slot on restore: a key saved twice is corruption (its sessions would be lost).
    std::uint32_t restoredSlot(std::string_view key)
    {
        if (m_index.find(key) != Index::kNone)
            throw ConfigError("node `" + m_nodeId
                              + "`: the checkpointed window state is corrupt (a key saved twice)");
        return newSlot(key);
    }

    void pushTimer(Timestamp at, std::uint32_t slot, Timestamp start)
    {
        m_timers.push(at, SessionRef{slot, m_slots[slot].gen, start});
    }

    Session *find(const SessionRef &tm)
    {
        KeySlot &k = m_slots[tm.slot];
        if (!k.used || k.gen != tm.gen)
            return nullptr;
        ensureLoaded(tm.slot);
        for (Session &s : k.sessions)
            if (s.start == tm.start)
                return &s;
        return nullptr;
    }

    void erase(std::uint32_t slotIndex, Timestamp start)
    {
        KeySlot &k = m_slots[slotIndex];
        if (!k.used)
            return;
        for (std::size_t i = 0; i < k.sessions.size(); ++i) {
            if (k.sessions[i].start == start) {
                if (!k.sessions[i].fired || cleanupTime(k.sessions[i].end) > m_wm)
                    return;
                k.sessions.erase(k.sessions.begin() + static_cast<std::ptrdiff_t>(i));
                --m_sessionCount;
                break;
            }
        }
        if (k.sessions.empty()) {
            m_index.erase(slotIndex);
            k.used = false;
            ++k.gen;
            k.key.clear();
        }
    }

    void emitDue(Output &out)
    {
        // (window_end, window_start, key), as the contract orders one advance's results.
        m_order.resize(m_due.size());
        m_sortKeys.resize(m_due.size());
        for (std::uint32_t i = 0; i < m_due.size(); ++i) {
            m_order[i] = i;
            m_sortKeys[i] = m_slots[m_due[i].slot].key;
        }
        sortByKey(m_order, m_sortKeys);
        std::stable_sort(m_order.begin(), m_order.end(), [this](std::uint32_t a, std::uint32_t b) {
            const Due &x = m_due[a];
            const Due &y = m_due[b];
            return x.end != y.end ? x.end < y.end : x.start < y.start;
        });
        for (std::uint32_t i : m_order) {
            const Due &d = m_due[i];
            KeySlot &k = m_slots[d.slot];
            for (const Session &s : k.sessions) {
                if (s.start == d.start) {
                    emitResult(s.start, s.end, k.key, s.acc.data(), d.kind, out);
                    break;
                }
            }
        }
    }

    std::vector<KeySlot> m_slots;       ///< by entry number of m_index
    using Index = keys::KeyTable<char>; ///< encoded key -> its entry number, the slot number
    Index m_index{1024};
    using Timers = keys::ExpiryQueue<SessionRef>;
    Timers m_timers;
    std::int64_t m_sessionCount = 0;
    std::vector<std::uint32_t> m_merging;
    std::vector<Due> m_due;
    std::vector<Due> m_purge;
    std::vector<std::uint32_t> m_order;
    std::vector<std::string_view> m_sortKeys;
    std::int64_t m_spilledSessions = 0;
    std::string m_value;
    std::vector<char> m_accScratch;
};

} // namespace

std::unique_ptr<Operator> makeSessionWindow(const OperatorContext &ctx, WindowConfig cfg)
{
    return std::make_unique<SessionWindow>(ctx, std::move(cfg));
}

} // namespace tideline::window
