#pragma once
// One round of a parallel stage (parallel.hpp): the steps the loop thread appended (a record
// for one instance, or a watermark for all), each instance's input, and what each instance
// emitted, tagged with the step that caused it. Owned by the stage; a worker touches only its
// instance's InstanceIO, between submit and the round's pending count reaching zero.

#include <tideline/engine/operator.hpp>
#include <tideline/observe/accounting.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace tideline::parallel {

struct InItem
{
    Record record;
    Timestamp w = kMinTime;
    std::uint32_t step = 0;
    /// A watermark item stands for the round's watermark steps marks[markFrom, markTo): those
    /// the stage got since this instance's previous record (an instance needs only the latest
    /// before each of its records; its results are then told apart by end, see Capture).
    std::uint32_t markFrom = 0, markTo = 0;
    bool watermark = false;
};

enum class OutKind : std::uint8_t { Data, Late, Error, Watermark, Idle };

/// What a late/errors output carries besides the record.
struct Wrapped
{
    std::string reason, raw, where;
};

/// A window result emitted on a watermark step: what the merge across instances orders by,
/// the contract's (window_end, window_start, key), the key compared as the window compares it
/// (its fields' values, ties by the encoded bytes).
struct SortKey
{
    Timestamp end = 0, start = 0;
    std::string bytes;
    std::uint32_t values = 0; ///< offset into InstanceIO::values (key.size() of them)
};

struct OutItem
{
    OutKind kind = OutKind::Data;
    int port = 0;
    std::uint32_t step = 0;
    std::int32_t aux = -1;  ///< Wrapped or SortKey index, -1 none
    Timestamp w = kMinTime; ///< late/errors: the watermark in the wrapper; Watermark: its value
    bool idle = false;
    Record record;
};

struct InstanceIO
{
    std::vector<InItem> in;
    std::vector<OutItem> out;
    std::vector<Wrapped> wrapped;
    std::vector<SortKey> sortKeys;
    std::vector<Value> values; ///< decoded key values of sortKeys (views into their bytes)
    observe::FateCounts fates{};
    observe::NodeMetrics metrics;
    std::exception_ptr error;

    void clear()
    {
        in.clear();
        out.clear();
        wrapped.clear();
        sortKeys.clear();
        values.clear();
        fates = {};
        error = nullptr;
    }
};

inline constexpr int kWatermarkStep = -1; ///< a watermark advance, for every instance
inline constexpr int kPassStep = -2;      ///< a record passed through to a sink
inline constexpr int kFinishStep = -3;    ///< the instances' finish()

struct Step
{
    /// The one instance a record went to, or one of the k*Step kinds.
    int instance;
    std::uint32_t pass = 0; ///< kPassStep: index into Round::passthrough
    Timestamp w = kMinTime; ///< kWatermarkStep: the watermark
};

/// A watermark step of the round: its index and value.
struct Mark
{
    std::uint32_t step;
    Timestamp w;
};

struct Passthrough
{
    int entry; ///< StageConfig::deliverDeferred's entry (which sink input)
    Record record;
};

struct Round
{
    explicit Round(int n)
        : io(static_cast<std::size_t>(n))
    {
    }
    std::vector<Step> steps;
    std::vector<InstanceIO> io;
    std::vector<Passthrough> passthrough;
    std::vector<Mark> marks;
    int pending = 0; ///< instances still running it (WorkerPool's mutex)
};

} // namespace tideline::parallel
