#pragma once
// Operator: the runtime form of one node (Kafka Streams' Processor, Arroyo's operator).
//
// [Threading] An operator is driven by exactly one pipeline loop thread and never blocks; it
// owns no threads (connectors that need I/O threads hide them inside). [Reentrancy] An
// operator emits through its Output only from inside a callback the loop made.
//
// Time flows as watermarks: the runtime keeps each input's watermark, combines them (minimum
// over non-idle inputs) and calls processWatermark() when the combination advances. The
// default forwards it unchanged; the `watermark` node ignores input watermarks (except the
// final +inf) and generates its own from event times.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/record.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/time.hpp>
#include <tideline/observe/accounting.hpp>
#include <tideline/observe/metrics.hpp>

#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

namespace recording {
class Capture;
class Feed;
} // namespace recording

/// What an Output forwards to: the runtime's router, or testing::OperatorHarness (which records
/// everything instead of routing it). `node` is the index the Output was made for.
class OutputTarget
{
public:
    virtual void emit(int node, int port, Record &&record) = 0;
    /// A record for the node's `late` or `errors` port, before it is wrapped.
    virtual void emitWrapped(int node,
                             PortRole role,
                             std::string_view reason,
                             Record &&record,
                             Timestamp watermark,
                             std::string_view raw,
                             std::string_view where)
        = 0;
    virtual void emitWatermark(int node, Timestamp w) = 0;
    virtual void emitIdle(int node, bool idle) = 0;
    virtual bool connected(int node, int port) const = 0;
    /// Lineage is being recorded (tracing): Output::account also reports which record. Called
    /// only when `tracing` is true, so the untraced cost of account() is one test.
    virtual void traceFate(int node, observe::Fate fate) { (void)node, (void)fate; }

    /// One row of fate counters per node (observe/accounting.hpp), owned by the target and
    /// valid while its operators run: Output::account is a plain increment.
    observe::FateCounts *fateRows = nullptr;
    bool tracing = false;

protected:
    ~OutputTarget() = default;
};

/// Where an operator sends what it produces. Port indexes follow the NodeKind's `outputs`.
class Output
{
public:
    Output(OutputTarget &to, int node)
        : m_to(&to)
        , m_node(node)
    {
    }
    /// Sends a record on a data port (counted as records_out).
    void emit(int port, Record &&record) { m_to->emit(m_node, port, std::move(record)); }
    void emit(Record &&record) { emit(0, std::move(record)); }
    /// Sends a record to the node's `late` port wrapped as {reason, node, watermark, record}.
    /// Counted as `late` even when the port is unconnected (then the record is dropped).
    void emitLate(std::string_view reason, Record &&record, Timestamp watermark)
    {
        m_to->emitWrapped(m_node, PortRole::Late, reason, std::move(record), watermark, {}, {});
    }
    /// Sends a malformed input to the node's `errors` port. `record` may be empty, then
    /// `raw` (the offending text, cut to 4 KiB) and `where` (file:line, topic/partition/offset)
    /// describe it.
    void emitError(std::string_view reason,
                   Record &&record,
                   Timestamp watermark,
                   std::string_view raw = {},
                   std::string_view where = {})
    {
        m_to->emitWrapped(m_node, PortRole::Errors, reason, std::move(record), watermark, raw,
                          where);
    }
    /// Advances this node's output watermark (monotonic; lower values are ignored).
    void emitWatermark(Timestamp w) { m_to->emitWatermark(m_node, w); }
    /// Marks this node's output idle (excluded from downstream minimums) or active again.
    void emitIdle(bool idle) { m_to->emitIdle(m_node, idle); }
    /// Accounts for a record this node consumed, dropped or holds instead of sending it on, or
    /// says what an output row is (observe/accounting.hpp: the fates and the balance they
    /// keep). One line at the place the operator decides, e.g. `out.account(Fate::Duplicate)`
    /// just before dropping a repeat; records sent to `late` or `errors` need none. Costs an
    /// increment and one test (lineage, when tracing, learns which record it was).
    void account(observe::Fate fate)
    {
        ++m_to->fateRows[m_node][static_cast<std::size_t>(fate)];
        if (m_to->tracing) [[unlikely]]
            m_to->traceFate(m_node, fate);
    }
    /// Is anything connected to this output port? (skip building records nobody reads)
    bool connected(int port) const { return m_to->connected(m_node, port); }

private:
    OutputTarget *m_to;
    int m_node;
};

/// What an operator sees of the pipeline when it is created.
class SourceOperator;
namespace semantics {
struct JobSemantics;
}

struct OperatorContext
{
    const NodeSpec &spec;
    const NodeKind &kind;
    std::string baseDir; ///< folder of the pipeline file (for relative paths)
    Clock &clock;
    int upstreamPartitions = 1;      ///< partitions of the nearest upstream source (watermark node)
    std::ostream *console = nullptr; ///< where sink.console prints (default std::cout)
    /// The nearest upstream source when all inputs lead to one (the watermark node asks it
    /// whether a quiet partition still has records: hasRecordsLeft). Null otherwise.
    const SourceOperator *upstreamSource = nullptr;
    /// Periodic checkpoints are on: a sink may hold output back until a checkpoint commits it
    /// (sink.file stages it and publishes it in notifyCheckpointComplete).
    bool checkpointing = false;
    /// --record: sources hand their raw input to it (record_replay.hpp). Null otherwise.
    recording::Capture *capture = nullptr;
    /// --replay: sources read their input from it instead (record_replay.hpp). Null otherwise.
    recording::Feed *feed = nullptr;
    /// settings.semantics and the mode's settings (semantics/semantics.hpp). Set by the
    /// runtime; null in tests that build an operator by hand, which then runs Flink's rules.
    const semantics::JobSemantics *semantics = nullptr;
    /// `value` with its ${env:NAME} / ${file:/path} references resolved (any string param may
    /// hold them: shared/pipeline-format.md; validation warns outside connection settings,
    /// secrets and paths). Throws ConfigError when a variable is unset or a file unreadable.
    /// (runtime/references.cpp)
    std::string resolve(const std::string &value) const;
    /// resolve(), then made absolute against baseDir: for path params.
    std::string path(const std::string &value) const;
};

/// Thrown by factories and open() for problems that stop a run before it starts
/// ("node `out`: params.path: cannot open ...: Permission denied"). Never thrown per record.
struct ConfigError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// Thrown by restoreState() when the system a sink writes to committed only the output of an
/// earlier checkpoint (exactly_once into Kafka after the latest transaction was aborted): the
/// restore starts over from the checkpoint before this one, whose output is what was
/// committed. Any other failure of restoreState() refuses the restore.
struct EarlierCheckpointNeeded : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

class Operator
{
public:
    virtual ~Operator() = default;

    /// Called once before the first record (open files, load tables). May throw ConfigError.
    virtual void open() {}
    /// A record arrived on input `input` (index in the NodeKind's `inputs`).
    virtual void processRecord(int input, Record &&record, Output &out) = 0;
    /// The combined input watermark advanced to `w` (kMaxTime: all inputs ended).
    virtual void processWatermark(Timestamp w, Output &out) { out.emitWatermark(w); }
    /// Periodic processing-time tick from the loop (idleness, flushing). now = clock time.
    virtual void onTick(std::int64_t nowMs, Output &out)
    {
        (void)nowMs;
        (void)out;
    }
    /// All inputs ended and the final watermark was processed: flush and close files.
    virtual void finish(Output &out) { (void)out; }
    /// settings.semantics "spark" only: the micro-batch just ended, before the global watermark
    /// it computed is handed on (update output mode emits the rows the batch changed here).
    virtual void onMicroBatchEnd(Output &out) { (void)out; }

    /// Current state figures (called between records when a snapshot is published).
    virtual void reportMetrics(observe::NodeMetrics &m) const { (void)m; }

    /// Checkpoints: write everything needed to resume; restore it. A fingerprint of the params
    /// that shape the state (window size, key) lets a savepoint restore refuse incompatible state.
    virtual void snapshotState(StateWriter &w) const { (void)w; }
    virtual void restoreState(StateReader &r) { (void)r; }
    virtual std::string stateFingerprint() const { return {}; }
    /// A checkpoint containing this operator's state is durable (commit sink output, offsets).
    virtual void notifyCheckpointComplete(std::int64_t checkpointId) { (void)checkpointId; }
    /// Sinks: what starting without restored state (--reset-state) would delete of output
    /// that earlier runs already committed, e.g. "out/w.jsonl holds 12060 bytes"; "" when
    /// nothing would be lost. Called after open(), before any record.
    virtual std::string outputLostWithoutState() const { return {}; }
};

/// Partition tasks (Kafka Streams' tasks): the runtime's side of a source whose partitions
/// are processed by operator instances of their own, so that a partition's keyed state can
/// move to another process with the partition. The source calls it from its rebalance
/// handling, on the loop thread, between two batches (no record in flight).
class PartitionTaskHost
{
public:
    virtual ~PartitionTaskHost() = default;
    /// These partitions are now this process's: their task state is restored (from the
    /// newest handover or checkpoint of any member). Returns the offset to resume each at,
    /// where saved task state names one (the others use the source's own start rules).
    /// `incremental` (cooperative rebalancing): the assignment adds to what is owned; else it
    /// replaces it, and state kept for partitions not assigned again is dropped.
    virtual std::map<int, std::int64_t> partitionsAssigned(const std::vector<int> &partitions,
                                                           bool incremental)
        = 0;
    /// These partitions are leaving this process: their state is handed over (a checkpoint
    /// that includes them, when checkpoints are on) and dropped here. `incremental`
    /// (cooperative rebalancing): they are leaving for good; else (eager) every partition is
    /// revoked and some may come straight back, so their state is kept until the assignment.
    virtual void partitionsRevoked(const std::vector<int> &partitions, bool incremental) = 0;
};

/// A source: the loop pulls from it.
class SourceOperator : public Operator
{
public:
    enum class Poll {
        Produced, ///< emitted at least one record
        Waiting,  ///< nothing now (paced, or waiting for Kafka); try again later
        Finished  ///< bounded input fully read
    };
    /// Emit at most maxRecords records.
    virtual Poll poll(Output &out, int maxRecords) = 0;
    virtual int partitions() const { return 1; }
    /// True when partition `p` certainly has records this source has not emitted yet (a
    /// bounded Kafka read below the end offsets it saw at start). Such a partition is slow,
    /// not idle: the watermark node never marks it idle, or its records would turn late.
    virtual bool hasRecordsLeft(int partition) const
    {
        (void)partition;
        return false;
    }
    void processRecord(int, Record &&, Output &) override {}

    /// True when partitions come and go at run time (a Kafka consumer group): the runtime
    /// then runs the nodes after this source as one task per partition (PartitionTaskHost).
    virtual bool partitionTasks() const { return false; }
    /// Called once before the first poll when partitionTasks() is true.
    virtual void setTaskHost(PartitionTaskHost *host) { (void)host; }
    /// Next position (offset) of every partition this source owns now.
    virtual std::map<int, std::int64_t> taskPositions() const { return {}; }
};

} // namespace tideline
