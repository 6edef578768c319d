#pragma once
// What the two window operators share: params, key encoding, aggregates, building the result
// record, sorting results by key, and the counters behind the node's metrics.

#include "operators/window/aggregates.hpp"
#include "operators/window/key_codec.hpp"
#include "operators/window/window_config.hpp"

#include <tideline/engine/operator.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::window {

enum class EmitKind : std::uint8_t { Final, Update };

class WindowOperatorBase : public Operator
{
public:
    WindowOperatorBase(const OperatorContext &ctx, WindowConfig cfg);

    std::string stateFingerprint() const override;

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
    /// field. keys[i] are encoded keys.
    void sortByKey(std::vector<std::uint32_t> &order, const std::vector<std::string_view> &keys);

    /// end - 1 + L, saturated: the watermark at which a window's state is dropped.
    Timestamp cleanupTime(Timestamp end) const { return satAdd(satSub(end, 1), m_cfg.lateness); }

    void writeHeader(StateWriter &w) const;
    /// Reads what writeHeader wrote; false when the state is not this node's kind of state.
    bool readHeader(StateReader &r);

    WindowConfig m_cfg;
    std::string m_nodeId;
    KeyCodec m_codec;
    Aggregates m_aggs;
    std::string m_keyBuf; ///< the current record's encoded key (reused)
    Timestamp m_wm = kMinTime;
    std::int64_t m_ignoredValues = 0; ///< non-numeric inputs to sum/min/max/avg

private:
    std::vector<KeyCodec::Decoded> m_decoded;
    std::vector<Value> m_sortValues;
};

std::unique_ptr<Operator> makeAlignedWindow(const OperatorContext &ctx, WindowConfig cfg);
std::unique_ptr<Operator> makeSessionWindow(const OperatorContext &ctx, WindowConfig cfg);

} // namespace tideline::window
