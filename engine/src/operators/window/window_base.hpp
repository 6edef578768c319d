#pragma once
// What the two window operators share: params, key encoding, aggregates, building the result
// record, sorting results by key, and the counters behind the node's metrics.

#include "operators/keys/spill_policy.hpp"
#include "operators/window/aggregates.hpp"
#include "operators/window/firing_order.hpp"
#include "operators/window/key_codec.hpp"
#include "operators/window/window_config.hpp"
#include "state/state_backend.hpp"

#include <tideline/engine/operator.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tideline::window {

enum class EmitKind : std::uint8_t { Final, Update };

class WindowOperatorBase : public Operator, public state::StatefulOperator
{
public:
    WindowOperatorBase(const OperatorContext &ctx, WindowConfig cfg);

    std::string stateFingerprint() const override;

    void configureState(state::StateBackendConfig cfg) override
    {
        m_state = std::move(cfg);
        m_spill.configure(m_state);
    }

protected:
    /// Builds and emits one result: key fields, window_start, window_end, aggregates, emit.
    /// Its event time is end - 1 (Flink's maxTimestamp), so windows can be chained.
    void emitResult(Timestamp start,
                    Timestamp end,
                    std::string_view key,
                    const AggState *acc,
                    EmitKind kind,
                    Output &out);

    /// Sorts `order` (indexes into `keys`) by key value, as compareValues orders them field by
    /// field (FiringOrder: a radix sort of normalized keys). keys[i] are encoded keys.
    void sortByKey(std::vector<std::uint32_t> &order, const std::vector<std::string_view> &keys);

    /// end - 1 + L, saturated: the watermark at which a window's state is dropped.
    Timestamp cleanupTime(Timestamp end) const { return satAdd(satSub(end, 1), m_cfg.lateness); }

    void writeHeader(StateWriter &w) const;
    /// Reads what writeHeader wrote; false when the state is not this node's kind of state.
    /// Accepts state version 1 (fixed-width entries, older checkpoints) and 2 (compact).
    bool readHeader(StateReader &r);

    // One key / one set of accumulators in the state: version 2 writes a varint-prefixed key
    // and compact accumulators with a single append each (the loop pays for snapshots).
    void writeKey(StateWriter &w, std::string_view key) const
    {
        char b[kMaxVarint];
        w.bytes(b, putUvar(b, key.size()));
        w.bytes(key.data(), key.size());
    }
    void writeAccs(StateWriter &w, const AggState *acc) const
    {
        w.bytes(m_accBuf.data(), m_aggs.saveCompact(m_accBuf.data(), acc));
    }
    /// Batches entries (key + accumulators) into one buffer and appends it to the writer
    /// every 64 KiB: per entry this is a few stores, not several string appends.
    class EntryBatch
    {
    public:
        EntryBatch(const WindowOperatorBase &op, StateWriter &w)
            : m_op(op)
            , m_w(w)
        {
            m_op.m_batch.resize(kBatchBytes);
            m_buf = m_op.m_batch.data();
        }
        ~EntryBatch() { flush(); }
        char *reserve(std::size_t keyLen)
        {
            if (m_used + m_op.entryBound(keyLen) > kBatchBytes)
                flush();
            return m_op.entryBound(keyLen) > kBatchBytes ? nullptr : m_buf + m_used;
        }
        void entry(std::string_view key, const AggState *acc)
        {
            char *p = reserve(key.size());
            if (p == nullptr) { // a huge key: straight to the writer
                m_op.writeKey(m_w, key);
                m_op.writeAccs(m_w, acc);
                return;
            }
            std::size_t n = putUvar(p, key.size());
            std::memcpy(p + n, key.data(), key.size());
            n += key.size();
            m_used += n + m_op.m_aggs.saveCompact(p + n, acc);
        }
        void accs(const AggState *acc)
        {
            const std::size_t bound = m_op.m_aggs.compactBound();
            if (m_used + bound > kBatchBytes)
                flush();
            if (bound > kBatchBytes) {
                m_op.writeAccs(m_w, acc);
                return;
            }
            m_used += m_op.m_aggs.saveCompact(m_buf + m_used, acc);
        }
        /// Raw bytes that fit in the batch (small headers between entries).
        void raw(const char *p, std::size_t n)
        {
            if (m_used + n > kBatchBytes)
                flush();
            std::memcpy(m_buf + m_used, p, n);
            m_used += n;
        }
        void flush()
        {
            m_w.bytes(m_buf, m_used);
            m_used = 0;
        }

    private:
        static constexpr std::size_t kBatchBytes = 64u << 10;
        const WindowOperatorBase &m_op;
        StateWriter &m_w;
        char *m_buf = nullptr;
        std::size_t m_used = 0;
    };

    /// The key just read: a view into the state (version 2) or into `scratch` (version 1).
    std::string_view readKey(StateReader &r, std::string &scratch) const;
    void readAccs(StateReader &r, AggState *acc) const;
    std::uint8_t stateVersion() const { return m_stateVersion; }
    /// Upper bound of the bytes writeKey + writeAccs add for a key of `keyLen` bytes.
    std::size_t entryBound(std::size_t keyLen) const
    {
        return kMaxVarint + keyLen + m_aggs.compactBound();
    }

    WindowConfig m_cfg;
    std::string m_nodeId;
    KeyCodec m_codec;
    Aggregates m_aggs;
    std::string m_keyBuf; ///< the current record's encoded key (reused)
    Timestamp m_wm = kMinTime;
    std::int64_t m_ignoredValues = 0; ///< non-numeric inputs to sum/min/max/avg

    /// settings.state: spill store and budget when "rocksdb" (m_state.store is null otherwise).
    state::StateBackendConfig m_state;
    keys::SpillPolicy m_spill; ///< when to spill, and the counters (SpillStats)
    std::string m_valueBuf;    ///< a value read back from the spill store (reused)

private:
    std::uint8_t m_stateVersion = 2; ///< of the state being restored
    mutable std::vector<char> m_accBuf;
    mutable std::vector<char> m_batch; ///< EntryBatch's buffer
    FiringOrder m_firingOrder;         ///< sortByKey's buffers
};

std::unique_ptr<Operator> makeAlignedWindow(const OperatorContext &ctx, WindowConfig cfg);
std::unique_ptr<Operator> makeSessionWindow(const OperatorContext &ctx, WindowConfig cfg);

} // namespace tideline::window
