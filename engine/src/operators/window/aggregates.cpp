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

AggInputReader::AggInputReader(const std::vector<AggSpec> &specs)
    : m_hints(specs.size(), -1)
{
    for (const auto &spec : specs)
        m_fields.push_back(spec.field);
}

void AggInputReader::readInto(const Record &r, std::size_t a, AggInput &in)
{
    in = AggInput{};
    const std::string &field = m_fields[a];
    if (field.empty())
        return;
    const int idx = findField(r, field, m_hints[a]);
    if (idx < 0) {
        // Missing is ignored like null, except that a nested object is a value (non-null):
        // counted by count, not a number for the others.
        if (r.hasObject(field))
            in.kind = AggInput::Kind::Other;
        return;
    }
    const Value v = r.valueAt(static_cast<std::size_t>(idx));
    if (v.isNull())
        return;
    if (!v.isNumber()) {
        in.kind = AggInput::Kind::Other;
    } else if (v.type == ValueType::Int) {
        in.kind = AggInput::Kind::Int;
        in.i = v.i;
    } else {
        in.kind = AggInput::Kind::Double;
        in.d = v.d;
    }
}

Aggregates::Aggregates(std::vector<AggSpec> specs)
    : m_specs(std::move(specs))
    , m_reader(m_specs)
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

int Aggregates::foldOne(const AggSpec &spec, AggState &s, const AggInput &in)
{
    if (spec.field.empty()) {
        ++s.n;
        return 0;
    }
    if (in.kind == AggInput::Kind::Skip)
        return 0;
    if (spec.op == AggOp::Count) {
        ++s.n;
        return 0;
    }
    if (in.kind == AggInput::Kind::Other)
        return 1; // not a number: ignored, and counted as an error of the node
    const Value v = in.kind == AggInput::Kind::Int ? Value::integer(in.i) : Value::number(in.d);
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
    return 0;
}

template<class InputOf>
int Aggregates::foldEach(AggState *acc, InputOf inputOf) const
{
    if (m_onlyCount) { // no field to look at: the common count(*) window
        for (std::size_t a = 0; a < m_specs.size(); ++a)
            ++acc[a].n;
        return 0;
    }
    int ignored = 0;
    for (std::size_t a = 0; a < m_specs.size(); ++a)
        ignored |= foldOne(m_specs[a], acc[a], inputOf(a));
    return ignored;
}

int Aggregates::add(const Record &r, AggState *acc)
{
    return foldEach(acc, [&](std::size_t a) { return m_reader.read(r, a); });
}

int Aggregates::fold(const AggInput *in, AggState *acc) const
{
    return foldEach(acc, [in](std::size_t a) { return in[a]; });
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
