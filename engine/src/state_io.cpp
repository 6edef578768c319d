#include <tideline/engine/state_io.hpp>

namespace tideline {

void StateWriter::value(const Value &v)
{
    u8(static_cast<std::uint8_t>(v.type));
    switch (v.type) {
    case ValueType::Null:
        break;
    case ValueType::Bool:
        u8(v.b ? 1 : 0);
        break;
    case ValueType::Int:
        i64(v.i);
        break;
    case ValueType::Double:
        f64(v.d);
        break;
    case ValueType::String:
    case ValueType::Raw:
        str(v.s);
        break;
    }
}

void StateWriter::record(const Record &r)
{
    i64(r.time);
    u64(r.partition);
    u64(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        str(r.nameAt(i));
        value(r.valueAt(i));
    }
}

std::string StateReader::str()
{
    std::uint64_t n = u64();
    if (m_failed || m_data.size() - m_pos < n) {
        m_failed = true;
        return {};
    }
    std::string s(m_data.substr(m_pos, n));
    m_pos += n;
    return s;
}

void StateReader::record(Record &r)
{
    r.clear();
    r.time = i64();
    r.partition = static_cast<std::uint32_t>(u64());
    std::uint64_t n = u64();
    for (std::uint64_t i = 0; i < n && !m_failed; ++i) {
        std::string name = str();
        auto type = static_cast<ValueType>(u8());
        switch (type) {
        case ValueType::Null:
            r.append(name, Value::null());
            break;
        case ValueType::Bool:
            r.append(name, Value::boolean(u8() != 0));
            break;
        case ValueType::Int:
            r.append(name, Value::integer(i64()));
            break;
        case ValueType::Double:
            r.append(name, Value::number(f64()));
            break;
        case ValueType::String: {
            std::string s = str();
            r.append(name, Value::string(s));
            break;
        }
        case ValueType::Raw: {
            std::string s = str();
            r.append(name, Value::raw(s));
            break;
        }
        default:
            m_failed = true;
        }
    }
}

} // namespace tideline
