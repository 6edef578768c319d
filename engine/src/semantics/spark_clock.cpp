#include "semantics/spark_clock.hpp"

#include <algorithm>
#include <cstring>

namespace tideline::semantics {

namespace {
// The field's value as comparable text: type tag + bytes (a missing field is its own value,
// so records without the field form batches of their own).
void valueKey(const Record &r, const std::string &field, std::string &out)
{
    out.clear();
    const int idx = r.indexOf(field);
    if (idx < 0) {
        out = r.hasObject(field) ? "o" : "-";
        return;
    }
    const Value v = r.valueAt(static_cast<std::size_t>(idx));
    switch (v.type) {
    case ValueType::Null:
        out = "n";
        break;
    case ValueType::Bool:
        out = v.b ? "t" : "f";
        break;
    case ValueType::Int:
        out = "i" + std::to_string(v.i);
        break;
    case ValueType::Double: {
        char b[sizeof(double)];
        std::memcpy(b, &v.d, sizeof b);
        out = "d";
        out.append(b, sizeof b);
        break;
    }
    case ValueType::String:
    case ValueType::Raw:
        out = v.type == ValueType::String ? "s" : "r";
        out.append(v.s);
        break;
    }
}
} // namespace

SparkClock::SparkClock(std::int64_t triggerRecords, std::string batchField, bool maxPolicy)
    : m_trigger(std::max<std::int64_t>(1, triggerRecords))
    , m_batchField(std::move(batchField))
    , m_maxPolicy(maxPolicy)
{
}

int SparkClock::addInput(std::int64_t delayMs)
{
    Input in;
    in.delay = delayMs;
    m_inputs.push_back(in);
    return static_cast<int>(m_inputs.size()) - 1;
}

void SparkClock::observe(int input, Timestamp t)
{
    Input &in = m_inputs[static_cast<std::size_t>(input)];
    if (in.maxTs == kMinTime || t > in.maxTs)
        in.maxTs = t;
}

bool SparkClock::startsNewBatch(const Record &r)
{
    if (m_batchField.empty())
        return false;
    std::string key;
    valueKey(r, m_batchField, key);
    const bool changed = m_haveLast && key != m_lastValue;
    m_lastValue = std::move(key);
    m_haveLast = true;
    return changed && m_inBatch > 0;
}

bool SparkClock::countRecord()
{
    ++m_inBatch;
    return m_inBatch >= m_trigger;
}

Timestamp SparkClock::endBatch()
{
    m_inBatch = 0;
    ++m_batches;
    // Each input's watermark moves only forward (EventTimeWatermarkExec's max - delay).
    for (Input &in : m_inputs)
        if (in.maxTs != kMinTime)
            in.w = std::max(in.w, satSub(in.maxTs, in.delay));
    bool any = false;
    Timestamp chosen = m_maxPolicy ? kMinTime : kMaxTime;
    for (const Input &in : m_inputs) {
        if (m_maxPolicy) {
            if (in.maxTs == kMinTime)
                continue; // max: an input without data does not hold the others back
            chosen = std::max(chosen, in.w);
        } else {
            chosen = std::min(chosen, in.maxTs == kMinTime ? Timestamp(0) : in.w);
        }
        any = true;
    }
    if (any && chosen > m_global)
        m_global = chosen;
    return m_global;
}

void SparkClock::save(StateWriter &w) const
{
    w.u64(m_inputs.size());
    for (const Input &in : m_inputs) {
        w.i64(in.delay);
        w.i64(in.maxTs);
        w.i64(in.w);
    }
    w.i64(m_global);
    w.i64(m_inBatch);
    w.i64(m_batches);
    w.u8(m_haveLast ? 1 : 0);
    w.str(m_lastValue);
}

bool SparkClock::restore(StateReader &r)
{
    if (r.u64() != m_inputs.size())
        return false;
    std::vector<Input> inputs(m_inputs.size());
    for (Input &in : inputs) {
        in.delay = r.i64();
        in.maxTs = r.i64();
        in.w = r.i64();
    }
    const Timestamp global = r.i64();
    const std::int64_t inBatch = r.i64();
    const std::int64_t batches = r.i64();
    const bool haveLast = r.u8() != 0;
    std::string last = r.str();
    if (r.failed())
        return false;
    m_inputs = std::move(inputs);
    m_global = global;
    m_inBatch = inBatch;
    m_batches = batches;
    m_haveLast = haveLast;
    m_lastValue = std::move(last);
    return true;
}

} // namespace tideline::semantics
