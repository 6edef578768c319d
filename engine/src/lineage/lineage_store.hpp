#pragma once
// The lineage store (tideline/engine/lineage.hpp): rows and what happened to them, fed by the
// runtime's hooks (runtime/lineage_hooks.cpp) on the loop thread while lineage is on.
//
// A *row* is a record as it travels: an input row is made when a source emits a record; a
// node that sends on what it received (filter, dedup, the watermark node) keeps the row, a
// node that changes it (map, enrich) makes a new row from it, and a node that makes rows out
// of several records (window, join) makes a row whose inputs are resolved here, not in the
// operators: a window row's members are the rows the window counted with the same key and an
// event time in [window_start, window_end) (so merged sessions and late updates need no
// bookkeeping in the window), a join pair's partner is the n-th row of the other side with the
// same key within the bounds (the join visits partners in arrival order), an unmatched left row
// of a left_outer join is the earliest unpaired left row of its key; a top row is made of every
// row its group (pane) counted, a window_join row of its left and right records
// (lineage_panes.cpp). Keys are encoded with the operators' own key encoder and the node's key
// params.
//
// Nodes are the runtime's: with partition tasks a node of the pipeline runs as one instance per
// partition ("w#p3"), each keeping its own panes here (two partitions' windows of one key are
// two panes), and every answer names the pipeline's node.
//
// Budget: rows are kept oldest first in a deque; past maxRecords input rows or maxBytes the
// oldest rows go (indexes skip ids below the first kept one and are pruned now and then). A
// long live run keeps its newest records: tracedFromMs() says since when (wall clock).

#include "operators/keys/key_encoder.hpp"

#include <tideline/engine/lineage.hpp>
#include <tideline/engine/record.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/observe/accounting.hpp>

#include <deque>
#include <unordered_map>

namespace tideline::lineage {

enum class What : std::uint8_t {
    Read,      ///< made by a source (a = source sequence)
    Reached,   ///< arrived at `node` on input `input`
    Passed,    ///< sent on unchanged (a = event time when it was assigned here)
    Mapped,    ///< `other` = the row it became
    Fate,      ///< fate (observe::Fate) at `node`; Duplicate: `other` = the first seen
    Late,      ///< a = watermark, b = ms behind it; text = reason
    Error,     ///< text = reason
    InWindow,  ///< a = start, b = end, `other` = the window's row; text = key
    Joined,    ///< `other` = the pair row, `partner` = the partner row
    Unmatched, ///< emitted without a partner (left_outer): `other` = the row
    Written,   ///< a sink received it: `other` = the output index
};

struct Event
{
    What what;
    int node = -1;
    int input = -1;
    observe::Fate fate = observe::Fate::Count;
    std::int64_t a = 0, b = 0;
    std::uint64_t other = 0, partner = 0;
    std::string text;
};

struct Row
{
    std::uint64_t id = 0;
    int node = -1;                     ///< the node that made it
    std::vector<std::uint64_t> from;   ///< rows it was made from (input rows: none)
    std::vector<std::uint64_t> inputs; ///< input rows behind it (input rows: itself)
    std::string json;
    Timestamp time = kMinTime;
    std::int64_t seq = 0;      ///< input rows: the source's n-th record
    std::int64_t readAtMs = 0; ///< input rows: when it was read (wall clock, epoch ms)
    std::string note;          ///< how it was made ("window `w`: [s, e) of key …")
    std::vector<Event> events;
};

struct Output
{
    std::uint64_t id = 0;
    int sink = -1;
    std::uint64_t row = 0;
    std::string json;
};

class Store
{
public:
    /// `specOf[n]`: the pipeline node that runtime node n runs (partition-task instances
    /// follow the pipeline's nodes); empty: runtime node n is pipeline node n.
    Store(const PipelineSpec &spec, Options options, std::vector<int> specOf = {});

    // --- fed by the runtime (loop thread) ---
    /// A node emits `record` on a data port; returns the row it travels as.
    std::uint64_t onEmit(int node, const Record &record);
    /// A node sends `record` to late / errors; returns the row the wrapped record travels as.
    std::uint64_t onWrapped(int node,
                            bool late,
                            std::string_view reason,
                            const Record &record,
                            Timestamp watermark,
                            std::string_view raw,
                            std::string_view where);
    /// Row `row` arrives at `node` (input `input`): starts a frame until delivered().
    void onDeliver(int node, int input, std::uint64_t row, const Record &record);
    void delivered();
    void onFate(int node, observe::Fate fate);
    void pushRouting(std::uint64_t row) { m_routing.push_back(row); }
    void popRouting() { m_routing.pop_back(); }
    std::uint64_t routing() const { return m_routing.empty() ? 0 : m_routing.back(); }

    // --- read by explain (lineage_explain.cpp) ---
    const PipelineSpec &spec() const { return m_spec; }
    /// The pipeline's id of runtime node `n` (an instance "w#p3" is `w`).
    const std::string &nodeId(int n) const
    {
        return m_spec.nodes[static_cast<std::size_t>(m_specOf[static_cast<std::size_t>(n)])].id;
    }
    /// The pipeline's kind of runtime node `n` ("window", "window_join", …).
    const std::string &nodeKind(int n) const
    {
        return m_spec.nodes[static_cast<std::size_t>(m_specOf[static_cast<std::size_t>(n)])].kind;
    }
    /// When the oldest input record still traceable was read (wall clock, epoch ms; 0: none).
    std::int64_t tracedFromMs() const;
    const Options &options() const { return m_options; }
    const Row *row(std::uint64_t id) const;
    const std::deque<Row> &rows() const { return m_rows; }
    const std::deque<Output> &outputs() const { return m_outputs; }
    std::uint64_t forgottenInputs() const { return m_forgottenInputs; }
    std::uint64_t firstOutput() const { return m_outputBase; }
    /// Join params of node `n` (lower, upper), for the "no partner" sentence.
    std::pair<std::int64_t, std::int64_t> joinBounds(int n) const
    {
        return {m_nodes[static_cast<std::size_t>(n)].lower,
                m_nodes[static_cast<std::size_t>(n)].upper};
    }
    bool isJoin(int n) const { return m_nodes[static_cast<std::size_t>(n)].role == Role::Join; }

private:
    enum class Role : std::uint8_t { Plain, Source, Sink, Dedup, Join, Window, Top, WindowJoin };
    struct Entry
    {
        Timestamp t;
        std::uint64_t row;
    };
    struct NodeInfo
    {
        Role role = Role::Plain;
        std::vector<keys::KeyEncoder> keys;    ///< [0] (join: left, [1] right)
        std::vector<keys::KeyEncoder> outKeys; ///< window: key in the row; join: "left.<k>"
        std::int64_t lower = 0, upper = 0;
        std::int64_t size = 0; ///< top, window_join: size_ms (top: 0 = grouped by `by` only)
        bool semi = false;     ///< window_join: output left_semi
        std::string ranks;     ///< top: "the largest `num`"
        std::int64_t seq = 0;  ///< sources: records read
        /// Window: key -> counted rows; join: side*"\x01" + key -> rows; dedup: key -> first;
        /// top: pane key (paneKey()) -> counted rows; window_join: side + pane key -> rows.
        std::unordered_map<std::string, std::vector<Entry>> index;
        /// top: panes that fired (a later record of the key starts a new pane).
        std::unordered_map<std::string, bool> fired;
    };
    struct Frame
    {
        int node, input;
        std::uint64_t row;
        Timestamp time;
        std::string key;
        bool keyComplete = false;
        bool excluded = false; ///< late / error / null key here: not a partner
        int pairs = 0;
    };

    Row &newRow(int node, const Record &record, std::vector<std::uint64_t> from);
    Row *live(std::uint64_t id);
    Frame *frameOf(int node);
    void add(std::uint64_t row, Event e);
    std::uint64_t emitWindowRow(int node, const Record &record);
    std::uint64_t emitJoinRow(int node, Frame *f, const Record &record);
    /// The key of the pane a record at `frame` is counted in (the index key).
    std::string paneKey(const NodeInfo &info, const Frame &frame) const;
    std::uint64_t emitTopRow(int node, const Record &record);
    std::uint64_t emitWindowJoinRow(int node, const Record &record);
    /// The index's rows that are still kept, of `key`, in arrival order.
    std::vector<std::uint64_t> keptRows(const NodeInfo &info, const std::string &key) const;
    void enforceBudget();
    void pruneIndexes();

    PipelineSpec m_spec;
    Options m_options;
    std::vector<int> m_specOf;
    std::vector<NodeInfo> m_nodes;
    std::deque<Row> m_rows;
    std::uint64_t m_base = 1; ///< id of m_rows.front()
    std::deque<Output> m_outputs;
    std::uint64_t m_outputBase = 1;
    std::vector<Frame> m_frames;
    std::vector<std::uint64_t> m_routing;
    std::size_t m_inputRows = 0;
    std::size_t m_bytes = 0;
    std::uint64_t m_forgottenInputs = 0;
    std::uint64_t m_prunedAt = 1;
    std::string m_buf;
};

} // namespace tideline::lineage
