#include "operators/window/aggregates.hpp"

#include "operators/window/key_codec.hpp"

#include <cstring>

namespace tideline::window {

const char *aggOpName(AggOp op)
{
    switch (op) {
    case AggOp::Count:
        return "count";
    case AggOp::Sum:
        return "sum";
    case AggOp::Min:
        return "min";
    case AggOp::Max:
        return "max";
    case AggOp::Avg:
        return "avg";
    }
    return "?";
}

bool parseAggOp(std::string_view s, AggOp &op)
{
    for (AggOp o : {AggOp::Count, AggOp::Sum, AggOp::Min, AggOp::Max, AggOp::Avg}) {
        if (s == aggOpName(o)) {
            op = o;
            return true;
        }
    }
    return false;
}

std::string defaultAggName(AggOp op, const std::string &field)
{
    std::string name = aggOpName(op);
    if (field.empty())
        return name;
    name.push_back('_');
    for (char c : field) // sum_user_id for user.id, sum_service_name for `service.name`
        if (c != '`')
            name.push_back(c == '.' ? '_' : c);
    return name;
}

Aggregates::Aggregates(std::vector<AggSpec> specs)
    : m_specs(std::move(specs))
    , m_hints(m_specs.size(), -1)
{
    m_onlyCount = true;
    for (const auto &s : m_specs) {
        if (s.op != AggOp::Count || !s.field.empty())
            m_onlyCount = false;
        m_names.push_back(internPath(s.as));
        m_topLevel.push_back(s.as.find_first_of(".`") == std::string::npos ? 1 : 0);
    }
}

namespace {

// Is a better than b for min (less) / max (greater)? Ints compare exactly; mixed compare as
// doubles.
bool better(AggOp op, const Value &v, const AggState &s)
{
    if (v.type == ValueType::Int && !s.dbl)
        return op == AggOp::Min ? v.i < s.i : v.i > s.i;
    const double a = v.asDouble();
    const double b = s.dbl ? s.d : static_cast<double>(s.i);
    return op == AggOp::Min ? a < b : a > b;
}

void addSum(AggState &s, const Value &v)
{
    ++s.n;
    if (v.type == ValueType::Int) {
        std::int64_t r;
        if (__builtin_add_overflow(s.i, v.i, &r)) {
            // The integer sum no longer fits: continue in double.
            s.d += static_cast<double>(s.i) + static_cast<double>(v.i);
            s.i = 0;
            s.dbl = 1;
        } else {
            s.i = r;
        }
    } else {
        s.d += v.d;
        s.dbl = 1;
    }
}

} // namespace

int Aggregates::add(const Record &r, AggState *acc)
{
    if (m_onlyCount) {
        for (std::size_t a = 0; a < m_specs.size(); ++a)
            ++acc[a].n;
        return 0;
    }
    int ignored = 0;
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        const AggSpec &spec = m_specs[a];
        AggState &s = acc[a];
        if (spec.field.empty()) {
            ++s.n;
            continue;
        }
        const int idx = findField(r, spec.field, m_hints[a]);
        if (idx < 0) {
            // Missing is ignored like null, except that a nested object is a value (non-null)
            // for count and not a number for the others.
            if (r.hasObject(spec.field)) {
                if (spec.op == AggOp::Count)
                    ++s.n;
                else
                    ++ignored;
            }
            continue;
        }
        const Value v = r.valueAt(static_cast<std::size_t>(idx));
        if (v.isNull())
            continue;
        if (spec.op == AggOp::Count) {
            ++s.n;
            continue;
        }
        if (!v.isNumber()) {
            ++ignored;
            continue;
        }
        switch (spec.op) {
        case AggOp::Count:
            break;
        case AggOp::Sum:
        case AggOp::Avg:
            addSum(s, v);
            break;
        case AggOp::Min:
        case AggOp::Max:
            if (s.n == 0 || better(spec.op, v, s)) {
                if (v.type == ValueType::Int) {
                    s.i = v.i;
                    s.dbl = 0;
                } else {
                    s.d = v.d;
                    s.dbl = 1;
                }
            }
            ++s.n;
            break;
        }
    }
    return ignored > 0 ? 1 : 0;
}

void Aggregates::merge(AggState *acc, const AggState *other) const
{
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        AggState &s = acc[a];
        const AggState &o = other[a];
        if (o.n == 0)
            continue;
        switch (m_specs[a].op) {
        case AggOp::Count:
            s.n += o.n;
            break;
        case AggOp::Sum:
        case AggOp::Avg: {
            std::int64_t r;
            if (__builtin_add_overflow(s.i, o.i, &r)) {
                s.d += static_cast<double>(s.i) + static_cast<double>(o.i);
                s.i = 0;
                s.dbl = 1;
            } else {
                s.i = r;
            }
            s.d += o.d;
            s.dbl |= o.dbl;
            s.n += o.n;
            break;
        }
        case AggOp::Min:
        case AggOp::Max: {
            const Value ov = o.dbl ? Value::number(o.d) : Value::integer(o.i);
            if (s.n == 0 || better(m_specs[a].op, ov, s)) {
                s.i = o.i;
                s.d = o.d;
                s.dbl = o.dbl;
            }
            s.n += o.n;
            break;
        }
        }
    }
}

void Aggregates::writeTo(const AggState *acc, Record &out) const
{
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        const AggSpec &spec = m_specs[a];
        const AggState &s = acc[a];
        switch (spec.op) {
        case AggOp::Count:
            put(a, Value::integer(s.n), out);
            break;
        case AggOp::Sum:
            if (s.n == 0)
                put(a, Value::null(), out);
            else if (s.dbl)
                put(a, Value::number(static_cast<double>(s.i) + s.d), out);
            else
                put(a, Value::integer(s.i), out);
            break;
        case AggOp::Avg:
            if (s.n == 0)
                put(a, Value::null(), out);
            else
                put(a, Value::number((static_cast<double>(s.i) + s.d) / static_cast<double>(s.n)),
                    out);
            break;
        case AggOp::Min:
        case AggOp::Max:
            if (s.n == 0)
                put(a, Value::null(), out);
            else if (s.dbl)
                put(a, Value::number(s.d), out);
            else
                put(a, Value::integer(s.i), out);
            break;
        }
    }
}

void Aggregates::save(StateWriter &w, const AggState *acc) const
{
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        w.i64(acc[a].n);
        w.i64(acc[a].i);
        w.f64(acc[a].d);
        w.u8(static_cast<std::uint8_t>(acc[a].dbl));
    }
}

void Aggregates::load(StateReader &r, AggState *acc) const
{
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        acc[a].n = r.i64();
        acc[a].i = r.i64();
        acc[a].d = r.f64();
        acc[a].dbl = r.u8();
    }
}

namespace {
enum : std::uint8_t { kHasDbl = 1, kHasI = 2, kHasD = 4 };
}

std::size_t Aggregates::saveCompact(char *p, const AggState *acc) const
{
    std::size_t n = 0;
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        const AggState &s = acc[a];
        std::uint64_t dbits;
        std::memcpy(&dbits, &s.d, 8);
        const std::uint8_t flags = static_cast<std::uint8_t>(
            (s.dbl ? kHasDbl : 0) | (s.i != 0 ? kHasI : 0) | (dbits != 0 ? kHasD : 0));
        p[n++] = static_cast<char>(flags);
        n += putUvar(p + n, zigzag(s.n));
        if (flags & kHasI)
            n += putUvar(p + n, zigzag(s.i));
        if (flags & kHasD) {
            std::memcpy(p + n, &dbits, 8);
            n += 8;
        }
    }
    return n;
}

void Aggregates::loadCompact(StateReader &r, AggState *acc) const
{
    for (std::size_t a = 0; a < m_specs.size(); ++a) {
        AggState &s = acc[a];
        const std::uint8_t flags = r.u8();
        s.n = r.svar();
        s.i = (flags & kHasI) ? r.svar() : 0;
        s.d = 0;
        if (flags & kHasD)
            r.bytes(&s.d, 8);
        s.dbl = (flags & kHasDbl) ? 1 : 0;
    }
}

} // namespace tideline::window
