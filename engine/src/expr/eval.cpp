// Evaluation of a compiled expression against a record: a walk over the typed node tree.
// Per record this does field lookups and arithmetic only; string results reuse per-node
// scratch buffers, so steady-state evaluation allocates nothing.

#include "expr/expr.hpp"

#include <cmath>
#include <limits>

namespace tideline::expr {

namespace {

/// Numeric ordering of a and b (both numbers): -1, 0, 1.
int numCompare(const Value &a, const Value &b)
{
    if (a.type == ValueType::Int && b.type == ValueType::Int)
        return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    double x = a.asDouble(), y = b.asDouble();
    return x < y ? -1 : (x > y ? 1 : 0);
}

void lowerInto(std::string_view s, std::string &out, bool upper)
{
    out.assign(s);
    // ASCII only: locale-independent and byte-preserving for UTF-8.
    for (char &c : out) {
        if (upper && c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    }
}

std::int64_t utf8Length(std::string_view s)
{
    std::int64_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80)
            ++n;
    return n;
}

} // namespace

Value Expression::eval(const Record &r) const
{
    return evalNode(m_root, r);
}

bool Expression::test(const Record &r) const
{
    return truthy(m_root, r);
}

bool Expression::truthy(int idx, const Record &r) const
{
    Value v = evalNode(idx, r);
    return v.type == ValueType::Bool && v.b;
}

Value Expression::arith(const Node &n, const Record &r) const
{
    Value a = evalNode(n.kids[0], r);
    if (a.isNull())
        return Value::null();
    if (n.op == Op::Add && a.type == ValueType::String) {
        Value b = evalNode(n.kids[1], r);
        if (b.type != ValueType::String)
            return Value::null();
        std::string &buf = m_scratch[static_cast<std::size_t>(n.scratch)];
        // a may live in a child's scratch buffer, never in ours: safe to assign then append.
        buf.assign(a.s);
        buf.append(b.s);
        return Value::string(buf);
    }
    if (!a.isNumber())
        return Value::null();
    Value b = evalNode(n.kids[1], r);
    if (!b.isNumber())
        return Value::null();
    if (n.op == Op::Div) {
        double y = b.asDouble();
        if (y == 0) {
            ++m_divZero;
            return Value::null();
        }
        return Value::number(a.asDouble() / y);
    }
    if (a.type == ValueType::Int && b.type == ValueType::Int) {
        std::int64_t out = 0;
        switch (n.op) {
        case Op::Add:
            if (!__builtin_add_overflow(a.i, b.i, &out))
                return Value::integer(out);
            return Value::number(static_cast<double>(a.i) + static_cast<double>(b.i));
        case Op::Sub:
            if (!__builtin_sub_overflow(a.i, b.i, &out))
                return Value::integer(out);
            return Value::number(static_cast<double>(a.i) - static_cast<double>(b.i));
        case Op::Mul:
            if (!__builtin_mul_overflow(a.i, b.i, &out))
                return Value::integer(out);
            return Value::number(static_cast<double>(a.i) * static_cast<double>(b.i));
        case Op::Mod:
            if (b.i == 0) {
                ++m_divZero;
                return Value::null();
            }
            if (b.i == -1)
                return Value::integer(0); // INT64_MIN % -1 traps in C++
            return Value::integer(a.i % b.i);
        default:
            break;
        }
    }
    double x = a.asDouble(), y = b.asDouble();
    switch (n.op) {
    case Op::Add:
        return Value::number(x + y);
    case Op::Sub:
        return Value::number(x - y);
    case Op::Mul:
        return Value::number(x * y);
    case Op::Mod:
        if (y == 0) {
            ++m_divZero;
            return Value::null();
        }
        return Value::number(std::fmod(x, y));
    default:
        return Value::null();
    }
}

Value Expression::compare(const Node &n, const Record &r) const
{
    Value a = evalNode(n.kids[0], r);
    Value b = evalNode(n.kids[1], r);
    // SQL-like: any comparison with null (or a missing field) is false, `!=` included.
    if (a.isNull() || b.isNull())
        return Value::boolean(false);
    int c;
    if (a.isNumber() && b.isNumber())
        c = numCompare(a, b);
    else if (a.type != b.type)
        return Value::boolean(false); // different types are never equal nor ordered
    else if (a.type == ValueType::String || a.type == ValueType::Raw) {
        int k = a.s.compare(b.s);
        c = k < 0 ? -1 : (k > 0 ? 1 : 0);
    } else if (a.type == ValueType::Bool) {
        if (n.op != Op::Eq && n.op != Op::Ne)
            return Value::boolean(false);
        c = a.b == b.b ? 0 : 1;
    } else
        return Value::boolean(false);
    switch (n.op) {
    case Op::Eq:
        return Value::boolean(c == 0);
    case Op::Ne:
        return Value::boolean(c != 0);
    case Op::Lt:
        return Value::boolean(c < 0);
    case Op::Le:
        return Value::boolean(c <= 0);
    case Op::Gt:
        return Value::boolean(c > 0);
    case Op::Ge:
        return Value::boolean(c >= 0);
    default:
        return Value::boolean(false);
    }
}

Value Expression::evalNode(int idx, const Record &r) const
{
    const Node &n = m_nodes[static_cast<std::size_t>(idx)];
    switch (n.op) {
    case Op::Const:
        if (n.type == Type::String)
            return Value::string(n.text);
        return n.value;
    case Op::Field: {
        int i = r.indexOf(n.text);
        if (i >= 0)
            return r.valueAt(static_cast<std::size_t>(i));
        // A nested object is not null (`right == null` after a left-outer join); it has no
        // scalar value, so it is exposed as raw JSON text that only null tests look at.
        if (r.hasObject(n.text))
            return Value::raw("{}");
        return Value::null();
    }
    case Op::Neg: {
        Value a = evalNode(n.kids[0], r);
        if (a.type == ValueType::Int && a.i != std::numeric_limits<std::int64_t>::min())
            return Value::integer(-a.i);
        if (a.isNumber())
            return Value::number(-a.asDouble());
        return Value::null();
    }
    case Op::Not:
        return Value::boolean(!truthy(n.kids[0], r));
    case Op::And:
        return Value::boolean(truthy(n.kids[0], r) && truthy(n.kids[1], r));
    case Op::Or:
        return Value::boolean(truthy(n.kids[0], r) || truthy(n.kids[1], r));
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Mod:
        return arith(n, r);
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
        return compare(n, r);
    case Op::In:
    case Op::NotIn: {
        Value a = evalNode(n.kids[0], r);
        if (a.isNull())
            return Value::boolean(false); // like every comparison with null
        bool found = false;
        for (std::size_t k = 1; k < n.kids.size() && !found; ++k) {
            Value item = evalNode(n.kids[k], r);
            if (a.isNumber() && item.isNumber())
                found = numCompare(a, item) == 0;
            else
                found = a.type == item.type && valuesEqual(a, item);
        }
        return Value::boolean(n.op == Op::In ? found : !found);
    }
    case Op::IsNull:
        return Value::boolean(evalNode(n.kids[0], r).isNull());
    case Op::IsNotNull:
        return Value::boolean(!evalNode(n.kids[0], r).isNull());
    case Op::Lower:
    case Op::Upper: {
        Value a = evalNode(n.kids[0], r);
        if (a.type != ValueType::String)
            return Value::null();
        std::string &buf = m_scratch[static_cast<std::size_t>(n.scratch)];
        lowerInto(a.s, buf, n.op == Op::Upper);
        return Value::string(buf);
    }
    case Op::Len: {
        Value a = evalNode(n.kids[0], r);
        if (a.type != ValueType::String)
            return Value::null();
        return Value::integer(utf8Length(a.s));
    }
    case Op::Abs: {
        Value a = evalNode(n.kids[0], r);
        if (a.type == ValueType::Int && a.i != std::numeric_limits<std::int64_t>::min())
            return Value::integer(a.i < 0 ? -a.i : a.i);
        if (a.isNumber())
            return Value::number(std::fabs(a.asDouble()));
        return Value::null();
    }
    case Op::Coalesce:
        for (int k : n.kids) {
            Value v = evalNode(k, r);
            if (!v.isNull())
                return v;
        }
        return Value::null();
    }
    return Value::null();
}

} // namespace tideline::expr
