#pragma once
// The window node's aggregate functions: count, sum, min, max, avg.
//
// Each aggregate of a (window, key) keeps one fixed-size AggState, so a pane's accumulators are
// a flat array (no allocation per record, trivially copyable, mergeable for session merges).
// SQL rules: null or missing values are ignored; sum/min/max of no values is null and avg of no
// values is null. sum stays an integer while every input is an integer and becomes a double
// once one input is a double (or the integer sum would overflow); min/max return the winning
// input unchanged (an int stays an int). A non-numeric value given to sum/min/max/avg is
// ignored and counted as an error of the node.

#include <tideline/engine/record.hpp>
#include <tideline/engine/state_io.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::window {

enum class AggOp : std::uint8_t { Count, Sum, Min, Max, Avg };

const char *aggOpName(AggOp op);
bool parseAggOp(std::string_view s, AggOp &op);

struct AggSpec
{
    AggOp op = AggOp::Count;
    std::string field; ///< "" = count records
    std::string as;    ///< output name
};

/// Default output name: `op` without a field, `op_field` with one (dots become underscores
/// so that the default never creates a nested object by accident).
std::string defaultAggName(AggOp op, const std::string &field);

struct AggState
{
    // 24 bytes, so that a count and a sum by an integer key are one 64-byte row of a pane
    // (row_table.hpp): the flag shares n's word (no count comes near 2^62).
    std::int64_t n : 63 = 0; ///< values seen (records for count without field)
    /// sum: has a double part; min/max: the best value is the double.
    std::uint64_t dbl : 1 = 0;
    std::int64_t i = 0; ///< integer sum, or the int min/max
    double d = 0;       ///< double part of the sum, or the double min/max
};
static_assert(sizeof(AggState) == 24, "a pane row of count + sum is one cache line");

/// What one aggregate takes from a record, read on the thread that parsed it (the fused
/// parallel path, runtime/fused_source.hpp): the value of its field reduced to what folding it
/// needs, so that only these bytes cross to the window's thread, not the record.
struct AggInput
{
    enum class Kind : std::uint8_t {
        Skip,   ///< missing or null: ignored
        Other,  ///< present but not a number (a string, a bool, a nested object)
        Int,    ///< the integer `i`
        Double, ///< the double `d`
    };
    Kind kind = Kind::Skip;
    std::int64_t i = 0;
    double d = 0;
};

/// Reads the inputs of a list of aggregates from records (its own field lookup hints, so
/// each thread that reads records has one).
class AggInputReader
{
public:
    explicit AggInputReader(const std::vector<AggSpec> &specs);
    /// The input of aggregate `a` (an aggregate without a field: Skip, it counts records).
    AggInput read(const Record &r, std::size_t a)
    {
        AggInput in;
        readInto(r, a, in);
        return in;
    }
    /// read() into `in` in place. (The fused path's readAll copied each returned input out of
    /// a temporary: a 16-byte load of a 1-byte and an 8-byte store, which the store buffer
    /// cannot forward, stalled every record; docs/benchmarks.md.)
    void readInto(const Record &r, std::size_t a, AggInput &in);
    /// Every aggregate's input, into out[0, size()).
    void readAll(const Record &r, AggInput *out)
    {
        for (std::size_t a = 0; a < m_fields.size(); ++a)
            readInto(r, a, out[a]);
    }
    std::size_t size() const { return m_fields.size(); }

private:
    std::vector<std::string> m_fields;
    std::vector<int> m_hints;
};

class Aggregates
{
public:
    explicit Aggregates(std::vector<AggSpec> specs);

    std::size_t size() const { return m_specs.size(); }
    const std::vector<AggSpec> &specs() const { return m_specs; }

    /// Folds one record into `acc` (size() states). Returns 1 when some value of the record
    /// was ignored because it was not a number (for sum/min/max/avg), else 0: the node counts
    /// such records as errors.
    int add(const Record &r, AggState *acc);
    /// add() of a record whose inputs were read by an AggInputReader of the same specs.
    int fold(const AggInput *in, AggState *acc) const;
    /// acc += other (both size() states), for merging sessions.
    void merge(AggState *acc, const AggState *other) const;
    /// Writes every aggregate under its `as` name.
    void writeTo(const AggState *acc, Record &out) const;
    /// Lets writeTo append top-level names instead of set()ting them (no lookup, the name not
    /// copied): only when no other output field can have the same name or nest under it.
    void appendTopLevelFields(bool on) { m_append = on; }

    void save(StateWriter &w, const AggState *acc) const;
    void load(StateReader &r, AggState *acc) const;

    /// Compact form for checkpoints (state version 2): per aggregate a flags byte, then the
    /// count as a varint and only the non-zero parts (a count is 2 bytes instead of 25).
    /// Writes at most compactBound() bytes at `p`; returns the bytes written.
    std::size_t saveCompact(char *p, const AggState *acc) const;
    std::size_t compactBound() const { return m_specs.size() * (1 + 2 * kMaxVarint + 8); }
    void loadCompact(StateReader &r, AggState *acc) const;

private:
    /// One aggregate's fold of one input (add() and fold() both come here).
    static int foldOne(const AggSpec &spec, AggState &s, const AggInput &in);
    /// foldOne of every aggregate, inputOf(a) giving aggregate a's input.
    template<class InputOf>
    int foldEach(AggState *acc, InputOf inputOf) const;
    std::vector<AggSpec> m_specs;
    AggInputReader m_reader;
    bool m_onlyCount = false; ///< every aggregate is count without a field: no lookups at all
    std::vector<StaticPath> m_names; ///< interned `as` names
    std::vector<char> m_topLevel;    ///< `as` is one plain segment (no '.', no backtick)
    bool m_append = false;
    void put(std::size_t a, const Value &v, Record &out) const
    {
        if (m_append && m_topLevel[a])
            out.append(m_names[a], v);
        else
            out.set(m_names[a], v);
    }
};

} // namespace tideline::window
