#include "operators/keys/key_encoder.hpp"

#include "operators/keys/key_encoder_loop.hpp"

#include <cmath>
#include <cstring>

namespace tideline::keys {

namespace {

void appendU64BigEndian(std::uint64_t v, std::string &out)
{
    char b[8];
    for (int i = 7; i >= 0; --i) {
        b[i] = static_cast<char>(v & 0xff);
        v >>= 8;
    }
    out.append(b, 8);
}

/// Strings are escaped (0x00 -> 0x00 0xff) and terminated by 0x00 0x01 so that a field's end is
/// unambiguous and shorter strings sort first.
void appendEscaped(std::string_view s, std::string &out)
{
    for (char c : s) {
        out += c;
        if (c == '\0')
            out += '\xff';
    }
    out += '\0';
    out += '\x01';
}

} // namespace

void appendValue(const Value &v, std::string &out)
{
    // Type tags order as compareValues does: null < bool < number < string < raw.
    switch (v.type) {
    case ValueType::Null:
        out += '\x01';
        return;
    case ValueType::Bool:
        out += '\x02';
        out += v.b ? '\x01' : '\x00';
        return;
    case ValueType::Int:
        out += '\x03';
        appendU64BigEndian(static_cast<std::uint64_t>(v.i) ^ (1ull << 63), out);
        return;
    case ValueType::Double: {
        double d = v.d;
        if (std::isfinite(d) && d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18) {
            out += '\x03'; // integral doubles key like the equal integer
            appendU64BigEndian(
                static_cast<std::uint64_t>(static_cast<std::int64_t>(d)) ^ (1ull << 63), out);
            return;
        }
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        bits = (bits & (1ull << 63)) ? ~bits : bits | (1ull << 63); // order-preserving
        out += '\x04';
        appendU64BigEndian(bits, out);
        return;
    }
    case ValueType::String:
        out += '\x05';
        appendEscaped(v.s, out);
        return;
    case ValueType::Raw:
        out += '\x06';
        appendEscaped(v.s, out);
        return;
    }
}

template class BasicKeyEncoder<OrderedFormat>;

} // namespace tideline::keys
