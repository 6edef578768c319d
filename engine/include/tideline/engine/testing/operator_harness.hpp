#pragma once
// OperatorHarness: ONE operator, built from a NodeSpec exactly as the runtime builds it (the
// kind's factory from the registry, an OperatorContext, open()), driven by hand: records and
// watermarks pushed into its inputs, processing-time ticks, polls for a source; what it emits
// (data records per port, late and errors records, watermarks, idleness) is recorded in order
// instead of routed. Its state can be snapshotted and restored into a fresh instance with the
// checks a checkpoint restore makes (kind, fingerprint, every byte read).
//
// In the spirit of Flink's OneInputStreamOperatorTestHarness / KeyedOneInputStreamOperator-
// TestHarness (an operator with a mock output, processElement/processWatermark,
// snapshot/initializeState) and Kafka Streams' TopologyTestDriver (no broker, no threads,
// wall-clock time only when the test moves it). For tests only; production code never uses it.
//
// What it mirrors of the runtime, so an operator behaves here as in a job:
// - each input keeps its watermark and idleness; the combined input watermark is the minimum
//   over non-idle inputs (an ended input, +inf, counts even when idle) and processWatermark()
//   is called only when that minimum advances;
// - emitted watermarks are monotonic (lower values are ignored, as downstream never sees them);
// - a source that returns Poll::Finished gets the final watermark (+inf) on its behalf;
// - finish() ends every input (+inf) and then calls Operator::finish;
// - records_in / records_out / late / errors are counted as the runtime counts them, and
//   metrics() adds the operator's own figures (reportMetrics).
// It does not wrap late/errors records ({reason, node, watermark, record} is the router's
// job, tested end to end by tests/golden): Emitted keeps the parts.
//
// [Threading] Like an operator: one thread drives a harness.

#include <tideline/engine/operator.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>
#include <tideline/observe/metrics.hpp>

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::testing {

/// One thing the operator did through its Output, in the order it did it.
struct Emitted
{
    enum class Type : std::uint8_t { Record, Late, Error, Watermark, Idle };
    Type type = Type::Record;
    int port = -1;                  ///< output port index (-1: the kind has no such port)
    Record record;                  ///< Record, Late, Error (unwrapped; may be empty for Error)
    std::string reason;             ///< Late, Error
    Timestamp watermark = kMinTime; ///< Late/Error: the watermark reported; Watermark: the value
    std::string raw;                ///< Error: the offending text
    std::string where;              ///< Error: file:line, topic/partition/offset
    bool idle = false;              ///< Idle: idle (true) or active again

    /// One line for comparisons: a record's JSON; {"reason":..,"watermark":..,"record":..}
    /// (plus "raw"/"where" when set) for late/errors; {"watermark":W} / {"idle":B}.
    std::string line() const;
};

struct HarnessOptions
{
    std::string baseDir = ".";                ///< folder relative paths resolve against
    std::int64_t startMs = 1'700'000'000'000; ///< the harness's ManualClock starts here
    int upstreamPartitions = 1;               ///< OperatorContext::upstreamPartitions
    const SourceOperator *upstreamSource = nullptr;
    bool checkpointing = false; ///< OperatorContext::checkpointing (sinks stage output)
    std::ostream *console = nullptr;
    /// Output ports (by name) that count as unconnected (Output::connected() is false for
    /// them). What the operator still emits there is recorded all the same.
    std::vector<std::string> unconnected;
    /// settings.state "rocksdb": > 0 gives a StatefulOperator this many MB of keyed state in
    /// memory and a scratch SpillStore (in a temp folder of the harness) for the rest.
    double spillMemoryMb = 0;
};

/// The state of one operator as a checkpoint keeps it: the bytes plus what the runtime keeps
/// beside them (kind, fingerprint, watermarks, idleness).
struct OperatorSnapshot
{
    std::string kind;
    std::string fingerprint;
    std::string state;
    std::vector<Timestamp> inputWatermarks;
    std::vector<char> inputIdle;
    Timestamp combinedIn = kMinTime;
    Timestamp outputWatermark = kMinTime;
    bool outputIdle = false;
};

class OperatorHarness final : public OutputTarget
{
public:
    /// Builds and opens the operator of `spec` (spec.kind + spec.params; spec.id names it in
    /// messages). nullptr with `error` ("node `id`: ...") when the kind is unknown or has no
    /// implementation, or the factory or open() refused (ConfigError).
    [[nodiscard]] static std::unique_ptr<OperatorHarness>
    create(NodeSpec spec, HarnessOptions options, std::string &error);
    ~OperatorHarness();
    OperatorHarness(const OperatorHarness &) = delete;
    OperatorHarness &operator=(const OperatorHarness &) = delete;

    Operator &op() { return *m_op; }
    const Operator &op() const { return *m_op; }
    /// The operator as a source (nullptr when the kind is not one).
    SourceOperator *source() { return m_source; }
    const NodeSpec &spec() const { return m_spec; }
    const NodeKind &kind() const { return *m_kind; }
    ManualClock &clock() { return m_clock; }
    /// Index of the input or output port called `name`; -1 when there is none.
    int inputIndex(std::string_view name) const;
    int outputIndex(std::string_view name) const;

    // --- input ---
    /// A record from a JSON object text, with event time `time` (what a watermark node sets).
    /// Throws std::invalid_argument when `json` is not a valid event.
    static Record record(std::string_view json, Timestamp time = kMinTime);
    void processRecord(int input, Record &&record);
    void processRecord(Record &&record) { processRecord(0, std::move(record)); }
    void processRecord(std::string_view input, Record &&record);
    /// Advances input `input`'s watermark (lower values are ignored, as the runtime does).
    void processWatermark(int input, Timestamp w);
    /// Advances every input's watermark.
    void processWatermark(Timestamp w);
    /// Marks an input idle (left out of the minimum) or active again.
    void setInputIdle(int input, bool idle);
    /// Processing time: sets the clock to `nowMs` and calls onTick, as the loop's tick does.
    void tick(std::int64_t nowMs);
    void advanceProcessingTime(std::int64_t ms) { tick(m_clock.nowMs() + ms); }
    /// Sources: one poll for at most maxRecords records. Finished also emits the final
    /// watermark on the source's behalf (the runtime does).
    SourceOperator::Poll poll(int maxRecords = 256);
    /// Feeds what another harness emitted on `port` into input `input` of this one, in order:
    /// records, watermarks and idleness (late/errors and other ports are skipped).
    void replay(const std::vector<Emitted> &events, int input = 0, int port = 0);
    /// End of input: every input's watermark goes to +inf, then Operator::finish.
    void finish();
    void notifyCheckpointComplete(std::int64_t checkpointId);

    // --- output ---
    const std::vector<Emitted> &emitted() const { return m_emitted; }
    /// Returns what was emitted so far and forgets it.
    std::vector<Emitted> takeEmitted();
    /// Emitted::line() of every event of `type` (records: of data port `port` only).
    std::vector<std::string> lines(Emitted::Type type = Emitted::Type::Record, int port = 0) const;
    /// The watermarks the operator emitted (each one higher than the one before).
    std::vector<Timestamp> watermarks() const;
    Timestamp outputWatermark() const { return m_outW; }
    Timestamp combinedInputWatermark() const { return m_combinedIn; }
    bool outputIdle() const { return m_outIdle; }
    /// The runtime's counts plus the operator's reportMetrics().
    observe::NodeMetrics metrics() const;

    // --- state ---
    /// snapshotState() now, deferred parts run at once (a checkpoint writer would run them
    /// later: call op().snapshotState() directly to test that).
    OperatorSnapshot snapshot() const;
    /// A snapshot whose state is written into `writer` with its deferred parts left to run
    /// later (as the checkpoint writer thread runs them): set .state = writer.take() when done.
    OperatorSnapshot snapshotInto(StateWriter &writer) const;
    /// Restores a snapshot into this instance (create it fresh first), checking as a
    /// checkpoint restore does: same kind, same state fingerprint, and the operator read the
    /// state without running short; here also that it read every byte. "" or the reason.
    [[nodiscard]] std::string restore(const OperatorSnapshot &snapshot);
    /// A fresh instance of the same node and options with this one's snapshot() restored.
    [[nodiscard]] std::unique_ptr<OperatorHarness> restoredCopy(std::string &error) const;

    // --- OutputTarget (the operator's Output lands here) ---
    void emit(int node, int port, Record &&record) override;
    void emitWrapped(int node,
                     PortRole role,
                     std::string_view reason,
                     Record &&record,
                     Timestamp watermark,
                     std::string_view raw,
                     std::string_view where) override;
    void emitWatermark(int node, Timestamp w) override;
    void emitIdle(int node, bool idle) override;
    bool connected(int node, int port) const override;

private:
    OperatorHarness(NodeSpec spec, HarnessOptions options);
    [[nodiscard]] std::string build();
    void recomputeCombined();

    NodeSpec m_spec;
    HarnessOptions m_options;
    const NodeKind *m_kind = nullptr;
    ManualClock m_clock;
    std::filesystem::path m_scratch; ///< spill store folder (removed with the harness)
    std::unique_ptr<Operator> m_op;
    SourceOperator *m_source = nullptr;
    std::vector<Timestamp> m_inW;
    std::vector<char> m_inIdle;
    Timestamp m_combinedIn = kMinTime;
    Timestamp m_outW = kMinTime;
    bool m_outIdle = false;
    std::vector<Emitted> m_emitted;
    observe::NodeMetrics m_counts;
};

} // namespace tideline::testing
