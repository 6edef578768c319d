// Equality and order of values (numbers compare across Int and Double), and record equality.
#include <tideline/engine/record.hpp>

namespace tideline {

namespace {

int typeRank(ValueType t)
{
    switch (t) {
    case ValueType::Null:
        return 0;
    case ValueType::Bool:
        return 1;
    case ValueType::Int:
    case ValueType::Double:
        return 2;
    case ValueType::String:
        return 3;
    case ValueType::Raw:
        return 4;
    }
    return 5;
}

} // namespace

bool valuesEqual(const Value &a, const Value &b)
{
    if (a.isNumber() && b.isNumber()) {
        if (a.type == ValueType::Int && b.type == ValueType::Int)
            return a.i == b.i;
        return a.asDouble() == b.asDouble();
    }
    if (a.type != b.type)
        return false;
    switch (a.type) {
    case ValueType::Null:
        return true;
    case ValueType::Bool:
        return a.b == b.b;
    case ValueType::String:
    case ValueType::Raw:
        return a.s == b.s;
    default:
        return false;
    }
}

int compareValues(const Value &a, const Value &b)
{
    int ra = typeRank(a.type), rb = typeRank(b.type);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    switch (a.type) {
    case ValueType::Null:
        return 0;
    case ValueType::Bool:
        return a.b == b.b ? 0 : (a.b ? 1 : -1);
    case ValueType::Int:
    case ValueType::Double:
        if (a.type == ValueType::Int && b.type == ValueType::Int)
            return a.i == b.i ? 0 : (a.i < b.i ? -1 : 1);
        else {
            double x = a.asDouble(), y = b.asDouble();
            return x == y ? 0 : (x < y ? -1 : 1);
        }
    case ValueType::String:
    case ValueType::Raw: {
        int c = a.s.compare(b.s);
        return c == 0 ? 0 : (c < 0 ? -1 : 1);
    }
    }
    return 0;
}

bool Record::operator==(const Record &o) const
{
    if (size() != o.size() || time != o.time)
        return false;
    for (std::size_t i = 0; i < size(); ++i) {
        if (nameAt(i) != o.nameAt(i))
            return false;
        Value a = valueAt(i), b = o.valueAt(i);
        if (a.type != b.type || !valuesEqual(a, b))
            return false;
    }
    return true;
}

} // namespace tideline
