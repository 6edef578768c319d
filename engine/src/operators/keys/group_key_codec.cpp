#include "operators/keys/group_key_codec.hpp"

#include "operators/keys/key_encoder_loop.hpp"

#include <cmath>
#include <cstring>

namespace tideline::keys {

namespace {

enum Tag : char { TNull = 0, TFalse, TTrue, TInt, TDouble, TString, TRaw, TObject };

void putU32(std::string &out, std::uint32_t v)
{
    out.append(reinterpret_cast<const char *>(&v), 4);
}
void putI64(std::string &out, std::int64_t v)
{
    out.append(reinterpret_cast<const char *>(&v), 8);
}

std::uint32_t getU32(std::string_view b, std::size_t &pos)
{
    std::uint32_t v = 0;
    if (pos + 4 <= b.size())
        std::memcpy(&v, b.data() + pos, 4);
    pos += 4;
    return v;
}
std::int64_t getI64(std::string_view b, std::size_t &pos)
{
    std::int64_t v = 0;
    if (pos + 8 <= b.size())
        std::memcpy(&v, b.data() + pos, 8);
    pos += 8;
    return v;
}

// Doubles holding an integer are encoded as that integer so that 1 and 1.0 form one group
// (valuesEqual treats them as equal); -0.0 becomes 0 the same way.
void putScalar(std::string &out, const Value &v)
{
    switch (v.type) {
    case ValueType::Null:
        out.push_back(TNull);
        break;
    case ValueType::Bool:
        out.push_back(v.b ? TTrue : TFalse);
        break;
    case ValueType::Int:
        out.push_back(TInt);
        putI64(out, v.i);
        break;
    case ValueType::Double: {
        const double d = v.d;
        if (d == std::trunc(d) && d >= -9007199254740992.0 && d <= 9007199254740992.0) {
            out.push_back(TInt);
            putI64(out, static_cast<std::int64_t>(d));
        } else {
            out.push_back(TDouble);
            std::int64_t bits;
            std::memcpy(&bits, &d, 8);
            putI64(out, bits);
        }
        break;
    }
    case ValueType::String:
    case ValueType::Raw:
        out.push_back(v.type == ValueType::String ? TString : TRaw);
        putU32(out, static_cast<std::uint32_t>(v.s.size()));
        out.append(v.s);
        break;
    }
}

Value getScalar(std::string_view b, std::size_t &pos)
{
    if (pos >= b.size())
        return Value::null();
    const char tag = b[pos++];
    switch (tag) {
    case TFalse:
        return Value::boolean(false);
    case TTrue:
        return Value::boolean(true);
    case TInt:
        return Value::integer(getI64(b, pos));
    case TDouble: {
        const std::int64_t bits = getI64(b, pos);
        double d;
        std::memcpy(&d, &bits, 8);
        return Value::number(d);
    }
    case TString:
    case TRaw: {
        const std::uint32_t n = getU32(b, pos);
        const std::string_view s = pos <= b.size() ? b.substr(pos, n) : std::string_view{};
        pos += n;
        return tag == TString ? Value::string(s) : Value::raw(s);
    }
    default:
        return Value::null();
    }
}

} // namespace

void GroupFormat::value(const Value &v, std::string &out)
{
    putScalar(out, v);
}

void GroupFormat::missing(const Record &r, std::string_view path, std::string &out)
{
    if (!r.hasObject(path)) {
        out.push_back(TNull); // missing groups with null, as SQL's GROUP BY does
        return;
    }
    // A nested object: every field under "path." in record order (records keep fields that
    // share a prefix together and in arrival order, so equal objects encode equally when their
    // producers write fields in the same order).
    out.push_back(TObject);
    const std::size_t countPos = out.size();
    putU32(out, 0);
    std::uint32_t count = 0;
    for (std::size_t f = 0; f < r.size(); ++f) {
        const std::string_view name = r.nameAt(f);
        if (name.size() > path.size() && name[path.size()] == '.'
            && name.substr(0, path.size()) == path) {
            const std::string_view rest = name.substr(path.size() + 1);
            putU32(out, static_cast<std::uint32_t>(rest.size()));
            out.append(rest);
            putScalar(out, r.valueAt(f));
            ++count;
        }
    }
    std::memcpy(out.data() + countPos, &count, 4);
}

template class BasicKeyEncoder<GroupFormat>;

void GroupKeyCodec::decode(std::string_view bytes, std::vector<Decoded> &out) const
{
    out.clear();
    std::size_t pos = 0;
    for (std::size_t k = 0; k < paths().size(); ++k) {
        Decoded d;
        if (pos < bytes.size() && bytes[pos] == TObject) {
            const std::size_t begin = pos;
            ++pos;
            const std::uint32_t count = getU32(bytes, pos);
            for (std::uint32_t f = 0; f < count && pos <= bytes.size(); ++f) {
                pos += getU32(bytes, pos);
                (void)getScalar(bytes, pos);
            }
            d.isObject = true;
            d.objectBytes = bytes.substr(begin + 5, pos - begin - 5);
            d.value = Value::raw(bytes.substr(begin, pos - begin));
        } else {
            d.value = getScalar(bytes, pos);
        }
        out.push_back(d);
    }
}

bool GroupKeyCodec::appendNormalized(std::string_view bytes, std::string &out) const
{
    std::size_t pos = 0;
    for (std::size_t k = 0; k < paths().size(); ++k) {
        if (pos >= bytes.size())
            return false;
        switch (bytes[pos++]) {
        case TNull:
            out.push_back('\x01');
            break;
        case TFalse:
            out.push_back('\x02');
            break;
        case TTrue:
            out.push_back('\x03');
            break;
        case TInt: {
            if (pos + 8 > bytes.size())
                return false;
            const auto u = static_cast<std::uint64_t>(getI64(bytes, pos)) ^ (1ull << 63);
            char b[9] = {'\x04'};
            for (int i = 0; i < 8; ++i)
                b[1 + i] = static_cast<char>(u >> (56 - 8 * i));
            out.append(b, 9);
            break;
        }
        case TString: {
            if (pos + 4 > bytes.size())
                return false;
            const std::uint32_t n = getU32(bytes, pos);
            if (n > bytes.size() - pos)
                return false;
            out.push_back('\x05');
            const std::string_view s = bytes.substr(pos, n);
            pos += n;
            // Runs without 0x00 are appended whole (the usual string has none).
            std::size_t from = 0;
            for (std::size_t z = s.find('\0'); z != std::string_view::npos;
                 z = s.find('\0', from)) {
                out.append(s.data() + from, z - from);
                out.append("\0\xff", 2);
                from = z + 1;
            }
            out.append(s.data() + from, s.size() - from);
            out.append("\0\0", 2);
            break;
        }
        default: // TDouble, TRaw, TObject, or not this codec's bytes
            return false;
        }
    }
    return pos == bytes.size();
}

GroupKeyCodec::GroupKeyCodec(std::vector<std::string> paths)
    : BasicKeyEncoder(std::move(paths))
{
    for (const std::string &p : this->paths()) {
        m_names.push_back(internPath(p));
        m_topLevel.push_back(p.find_first_of(".`") == std::string::npos ? 1 : 0);
    }
}

void GroupKeyCodec::writeTo(std::string_view bytes, Record &out) const
{
    // One pass over the bytes (no Decoded list): this runs once per window result.
    std::size_t pos = 0;
    for (std::size_t k = 0; k < paths().size(); ++k) {
        if (pos >= bytes.size() || bytes[pos] != TObject) {
            const Value v = getScalar(bytes, pos);
            if (m_append && m_topLevel[k])
                out.append(m_names[k], v);
            else
                out.set(m_names[k], v);
            continue;
        }
        // A nested object: its sub-fields re-nest under the key path.
        ++pos;
        const std::uint32_t count = getU32(bytes, pos);
        for (std::uint32_t f = 0; f < count && pos < bytes.size(); ++f) {
            const std::uint32_t n = getU32(bytes, pos);
            m_pathScratch.assign(paths()[k]);
            m_pathScratch.push_back('.');
            m_pathScratch.append(pos <= bytes.size() ? bytes.substr(pos, n) : std::string_view{});
            pos += n;
            out.set(m_pathScratch, getScalar(bytes, pos));
        }
    }
}

} // namespace tideline::keys
