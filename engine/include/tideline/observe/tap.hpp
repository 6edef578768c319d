#pragma once
// Record taps: let an observer (the designer's live views) see individual records at a node
// without slowing nodes nobody watches. Plain structs, standard library only (like metrics.hpp).
//
// [Threading] Tap callbacks run on the pipeline loop thread, between two steps of the loop,
// synchronously: they must copy what they need and return quickly (no blocking, no UI calls).
// Install taps with Job::setTap()/setWatermarkTap() before run()/runFor() or from the loop
// thread between two runFor() calls. [Cost] An untapped node pays one null-pointer check per
// record; a tapped node pays one JSON serialisation per record it sees.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tideline::observe {

enum class TapDirection : std::uint8_t {
    In, ///< a record arrived at one of the node's inputs
    Out ///< the node sent a record on one of its output ports (data, late or errors)
};

enum class TapPortRole : std::uint8_t { Data, Late, Errors };

struct TapEvent
{
    std::string node; ///< node id
    std::string port; ///< output port name (Out) or input port name (In)
    std::string from; ///< In only: id of the node the record came from
    TapDirection direction = TapDirection::In;
    TapPortRole role = TapPortRole::Data;
    std::optional<std::int64_t> eventTime; ///< nullopt: no event time assigned yet
    /// The node's watermark at that moment: for In and data Out, the node's combined input
    /// watermark (the W before the record is processed); for sources and the watermark node,
    /// their own output watermark; for late/errors, the watermark the node reported with the
    /// record. nullopt = -inf.
    std::optional<std::int64_t> watermark;
    /// In only: the largest event time the job's watermark nodes have let through so far
    /// (how far event time has got when the record arrives). nullopt = none yet.
    std::optional<std::int64_t> maxEventTime;
    std::string recordJson;       ///< the record as JSON (unwrapped for late/errors)
    std::string reason;           ///< late/errors only: "window_closed", "missing time field", ...
    std::string raw;              ///< errors only: the offending text when there was no record
    std::int64_t recordsRead = 0; ///< source records read so far in the run (orders events)
    std::int64_t processingTimeMs = 0; ///< loop clock at the last tick
};

/// A node's watermark advanced.
struct WatermarkTapEvent
{
    std::string node;
    /// Input: the combined input watermark (what windows, joins and sinks act on).
    /// Output: what the node forwards downstream.
    enum class Which : std::uint8_t { Input, Output } which = Which::Output;
    std::int64_t watermark = 0; ///< INT64_MAX = ended
    std::int64_t recordsRead = 0;
    std::int64_t processingTimeMs = 0;
};

/// What a node's tap wants to see. Checked before anything is serialised, so a tap that only
/// watches late/errors costs a function call per data record, not a JSON copy.
struct TapFilter
{
    bool in = true;            ///< records arriving at the node's inputs
    bool dataOut = true;       ///< records sent on data ports
    bool lateAndErrors = true; ///< records sent to (or dropped at) `late` / `errors`
    bool recordJson = true;    ///< false: TapEvent::recordJson stays empty (times only, cheap)
};

using TapCallback = std::function<void(const TapEvent &)>;
using WatermarkTapCallback = std::function<void(const WatermarkTapEvent &)>;

} // namespace tideline::observe
