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

// Does one of the paths equal the other or nest under it?
bool clashes(std::string_view a, std::string_view b)
{
    if (a.size() > b.size())
        std::swap(a, b);
    return b.substr(0, a.size()) == a && (a.size() == b.size() || b[a.size()] == '.');
}

/// No two output names of a result (key fields, aggregates, window_start, window_end, emit)
/// clash. Validation refuses pipelines where they do; an operator built without validation
/// (tests) keeps set()'s replace-on-clash behaviour.
bool outputNamesDistinct(const WindowConfig &cfg)
{
    std::vector<std::string_view> names(cfg.key.begin(), cfg.key.end());
    for (const auto &a : cfg.aggregates)
        names.push_back(a.as);
    for (const char *r : {kWindowStart, kWindowEnd, kEmit})
        names.push_back(r);
    for (std::size_t i = 0; i < names.size(); ++i)
        for (std::size_t j = i + 1; j < names.size(); ++j)
            if (clashes(names[i], names[j]))
                return false;
    return true;
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
    // A result record is built from nothing, so when no names clash its top-level fields can
    // be appended (no lookup per field, names not copied): emitResult runs once per result.
    const bool distinct = outputNamesDistinct(m_cfg);
    m_codec.appendTopLevelFields(distinct);
    m_aggs.appendTopLevelFields(distinct);
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
    r.append(StaticPath(kWindowStart), Value::integer(start));
    r.append(StaticPath(kWindowEnd), Value::integer(end));
    m_aggs.writeTo(acc, r);
    r.append(StaticPath(kEmit), Value::staticString(kind == EmitKind::Final ? "final" : "update"));
    r.time = satSub(end, 1);
    out.account(kind == EmitKind::Final ? observe::Fate::WindowFinal : observe::Fate::WindowUpdate);
    out.emit(0, std::move(r));
}

void WindowOperatorBase::sortByKey(std::vector<std::uint32_t> &order,
                                   const std::vector<std::string_view> &keys)
{
    m_firingOrder.sort(m_codec, order, keys);
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
