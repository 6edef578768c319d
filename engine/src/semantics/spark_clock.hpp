#pragma once
// Spark Structured Streaming's clock: micro-batches over the source records and one global
// watermark for the whole query.
//
// - A micro-batch ends after `trigger_records` source records (all sources together, in the
//   order they arrive) or, with `batch_field`, just before a record whose value of that field
//   differs from the previous record's, whichever comes first.
// - Each `watermark` node is one input (Spark's EventTimeWatermarkExec). At the end of a batch
//   an input's watermark is max(its previous one, largest event time seen - delay); inputs that
//   have seen nothing count as 0 under the "min" policy and are left out under "max". The global
//   watermark is the policy over the inputs, never below its previous value (initially 0), and
//   takes effect right after the batch (the runtime then runs the no-data batch: it hands the
//   new watermark to every watermark node, which fires what it closes).

#include <tideline/engine/record.hpp>
#include <tideline/engine/state_io.hpp>
#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::semantics {

class SparkClock
{
public:
    SparkClock(std::int64_t triggerRecords, std::string batchField, bool maxPolicy);

    /// A watermark node registers once; the index it gets is its input.
    int addInput(std::int64_t delayMs);
    /// Every record a watermark node assigns a time to (Spark's eventTimeStats).
    void observe(int input, Timestamp t);

    /// Before a source record is routed: true when it starts a new batch (batch_field changed)
    /// and the batch so far must end first.
    [[nodiscard]] bool startsNewBatch(const Record &r);
    /// After a source record was processed: true when the batch is full.
    [[nodiscard]] bool countRecord();
    /// Ends the batch: the watermark the next batch runs with (== before when unchanged).
    Timestamp endBatch();

    /// The clock in a checkpoint (written by each watermark node, mode_watermark.cpp): every
    /// input's largest time and watermark, the global watermark, the batches ended, the source
    /// records counted in the open batch and the batch_field value of the last one.
    void save(StateWriter &w) const;
    /// What save() wrote. False (nothing changed) when the saved clock had another number of
    /// inputs (watermark nodes) or is cut short.
    [[nodiscard]] bool restore(StateReader &r);

    Timestamp watermark() const { return m_global; }
    std::size_t inputCount() const { return m_inputs.size(); }
    std::int64_t batches() const { return m_batches; }
    bool batchHasRecords() const { return m_inBatch > 0; }

private:
    struct Input
    {
        std::int64_t delay = 0;
        Timestamp maxTs = kMinTime; ///< kMinTime = no data yet
        Timestamp w = 0;
    };
    std::int64_t m_trigger;
    std::string m_batchField;
    bool m_maxPolicy;
    std::vector<Input> m_inputs;
    Timestamp m_global = 0;
    std::int64_t m_inBatch = 0;
    std::int64_t m_batches = 0;
    bool m_haveLast = false;
    std::string m_lastValue; ///< batch_field of the previous source record, as JSON text
};

} // namespace tideline::semantics
