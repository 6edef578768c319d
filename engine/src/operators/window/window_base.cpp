#include "operators/window/window_base.hpp"

#include "operators/operators.hpp"
#include "operators/window/mode_window.hpp"
#include "semantics/semantics.hpp"

#include <algorithm>

namespace tideline {
namespace window {

namespace {
// 1: fixed-width keys and accumulators. 2: varint key lengths and compact accumulators.
constexpr std::uint8_t kStateVersion = 2;

// compareValues with the common cases (ints, strings) inline: sorting thousands of fired keys
// per window must stay cheap.
inline int fastCompare(const Value &a, const Value &b)
{
    if (a.type == ValueType::Int && b.type == ValueType::Int)
        return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    if (a.type == ValueType::String && b.type == ValueType::String) {
        const int c = a.s.compare(b.s);
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    return compareValues(a, b);
}
} // namespace

WindowOperatorBase::WindowOperatorBase(const OperatorContext &ctx, WindowConfig cfg)
    : m_cfg(std::move(cfg))
    , m_nodeId(ctx.spec.id)
    , m_codec(m_cfg.key)
    , m_aggs(m_cfg.aggregates)
{
    m_keyBuf.reserve(64);
    m_accBuf.resize(m_aggs.compactBound() + 1);
}

std::string WindowOperatorBase::stateFingerprint() const
{
    // Everything that gives the state its shape; lateness and output names do not.
    std::string f = "window/1;type=";
    f += windowTypeName(m_cfg.type);
    switch (m_cfg.type) {
    case WindowType::Tumbling:
        f += ";size=" + std::to_string(m_cfg.size);
        break;
    case WindowType::Sliding:
        f += ";size=" + std::to_string(m_cfg.size) + ";slide=" + std::to_string(m_cfg.slide);
        break;
    case WindowType::Session:
        f += ";gap=" + std::to_string(m_cfg.gap);
        break;
    }
    f += ";key=";
    for (std::size_t i = 0; i < m_cfg.key.size(); ++i)
        f += (i ? "," : "") + m_cfg.key[i];
    f += ";aggregates=";
    for (std::size_t i = 0; i < m_cfg.aggregates.size(); ++i) {
        const auto &a = m_cfg.aggregates[i];
        f += std::string(i ? "," : "") + aggOpName(a.op) + "(" + a.field + ")";
    }
    return f;
}

void WindowOperatorBase::emitResult(Timestamp start,
                                    Timestamp end,
                                    std::string_view key,
                                    const AggState *acc,
                                    EmitKind kind,
                                    Output &out)
{
    Record r;
    r.reserve(m_cfg.key.size() + m_aggs.size() + 3, 48 + key.size());
    m_codec.writeTo(key, r);
    // The three fixed names never clash with keys or aggregates (validation), so they can be
    // appended without the lookup set() does.
    r.append(kWindowStart, Value::integer(start));
    r.append(kWindowEnd, Value::integer(end));
    m_aggs.writeTo(acc, r);
    r.append(kEmit, Value::string(kind == EmitKind::Final ? "final" : "update"));
    r.time = satSub(end, 1);
    out.account(kind == EmitKind::Final ? observe::Fate::WindowFinal : observe::Fate::WindowUpdate);
    out.emit(0, std::move(r));
}

void WindowOperatorBase::sortByKey(std::vector<std::uint32_t> &order,
                                   const std::vector<std::string_view> &keys)
{
    const std::size_t k = m_cfg.key.size();
    if (k == 0 || order.size() < 2)
        return;
    m_sortValues.resize(keys.size() * k);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        m_codec.decode(keys[i], m_decoded);
        for (std::size_t j = 0; j < k; ++j)
            m_sortValues[i * k + j] = m_decoded[j].value;
    }
    const Value *vals = m_sortValues.data();
    // Ties (distinct encodings that compare equal) are broken by the encoded bytes, not by
    // position, so the order does not depend on where a key sat (memory, or read back from
    // the spill store).
    std::sort(order.begin(), order.end(), [vals, k, &keys](std::uint32_t a, std::uint32_t b) {
        const Value *va = vals + a * k;
        const Value *vb = vals + b * k;
        for (std::size_t j = 0; j < k; ++j) {
            const int c = fastCompare(va[j], vb[j]);
            if (c != 0)
                return c < 0;
        }
        if (keys[a] != keys[b])
            return keys[a] < keys[b];
        return a < b;
    });
}

void WindowOperatorBase::writeHeader(StateWriter &w) const
{
    w.u8(kStateVersion);
    w.str(stateFingerprint());
    w.i64(m_wm);
}

bool WindowOperatorBase::readHeader(StateReader &r)
{
    m_stateVersion = r.u8();
    if (m_stateVersion != 1 && m_stateVersion != kStateVersion)
        return false;
    if (r.str() != stateFingerprint())
        return false;
    m_wm = r.i64();
    return !r.failed();
}

std::string_view WindowOperatorBase::readKey(StateReader &r, std::string &scratch) const
{
    if (m_stateVersion == 1) {
        scratch = r.str();
        return scratch;
    }
    return r.view(static_cast<std::size_t>(r.uvar()));
}

void WindowOperatorBase::readAccs(StateReader &r, AggState *acc) const
{
    if (m_stateVersion == 1)
        m_aggs.load(r, acc);
    else
        m_aggs.loadCompact(r, acc);
}

} // namespace window

std::unique_ptr<Operator> makeWindow(const OperatorContext &ctx)
{
    window::WindowConfig cfg;
    std::string error;
    // settings.semantics other than "flink": that engine's window (mode_window.hpp).
    const auto engine = ctx.semantics ? ctx.semantics->engine : semantics::Engine::Flink;
    if (engine != semantics::Engine::Flink) {
        bool recordAligned = false;
        const Json params = window::paramsForEngine(ctx.spec.params, engine, recordAligned);
        if (!window::readWindowConfig(params, cfg, error))
            throw ConfigError("node `" + ctx.spec.id + "`: " + error);
        if (engine == semantics::Engine::Spark)
            return window::makeSparkWindow(ctx, std::move(cfg));
        return window::makeKafkaWindow(ctx, std::move(cfg), recordAligned);
    }
    if (!window::readWindowConfig(ctx.spec.params, cfg, error))
        throw ConfigError("node `" + ctx.spec.id + "`: " + error);
    if (cfg.type == window::WindowType::Session)
        return window::makeSessionWindow(ctx, std::move(cfg));
    return window::makeAlignedWindow(ctx, std::move(cfg));
}

} // namespace tideline
