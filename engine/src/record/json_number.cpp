// checkJsonNumber: whether a JSON number literal is well formed and fits an int64, a uint64
// or a double (for the parser's messages and CSV's type inference).
#include <tideline/engine/record_json.hpp>

#include <charconv>

namespace tideline {

NumberCheck checkJsonNumber(std::string_view s)
{
    // Grammar (RFC 8259): -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    NumberCheck r;
    std::size_t i = 0;
    const std::size_t n = s.size();
    auto digit = [&](std::size_t k) {
        return k < n && s[k] >= '0' && s[k] <= '9';
    };
    const bool neg = i < n && s[i] == '-';
    if (neg)
        ++i;
    if (!digit(i)) {
        r.kind = NumberCheck::Malformed;
        r.why = "a digit is missing";
        r.length = i;
        return r;
    }
    const std::size_t intStart = i;
    if (s[i] == '0') {
        ++i;
        if (digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "leading zeros are not JSON";
            r.length = i;
            return r;
        }
    } else {
        while (digit(i))
            ++i;
    }
    const std::size_t intEnd = i;
    std::size_t fracStart = i, fracEnd = i;
    bool isInteger = true;
    if (i < n && s[i] == '.') {
        isInteger = false;
        ++i;
        if (!digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "digits are missing after '.'";
            r.length = i;
            return r;
        }
        fracStart = i;
        while (digit(i))
            ++i;
        fracEnd = i;
    }
    long long exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        isInteger = false;
        ++i;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (!digit(i)) {
            r.kind = NumberCheck::Malformed;
            r.why = "the exponent has no digits";
            r.length = i;
            return r;
        }
        while (digit(i)) {
            if (exp10 < 1'000'000'000)
                exp10 = exp10 * 10 + (s[i] - '0');
            ++i;
        }
        if (eneg)
            exp10 = -exp10;
    }
    r.length = i;
    r.isInteger = isInteger;
    const std::string_view text = s.substr(0, i);
    if (isInteger) {
        std::int64_t v;
        auto a = std::from_chars(text.data(), text.data() + text.size(), v);
        if (a.ec == std::errc() && a.ptr == text.data() + text.size())
            return r; // Ok, an int64
        std::uint64_t u;
        auto b = std::from_chars(text.data(), text.data() + text.size(), u);
        if (!neg && b.ec == std::errc() && b.ptr == text.data() + text.size()) {
            r.kind = NumberCheck::Unsigned;
            return r;
        }
        r.kind = NumberCheck::OutOfRange;
        r.why = "is an integer beyond 64 bits (from -9223372036854775808 to "
                "18446744073709551615)";
        return r;
    }
    double d;
    auto a = std::from_chars(text.data(), text.data() + text.size(), d);
    if (a.ec == std::errc())
        return r;
    // Out of range: too large or too small? The magnitude is where the first significant digit
    // sits, shifted by the exponent.
    long long mag = 0;
    std::size_t k = intStart;
    while (k < intEnd && s[k] == '0')
        ++k;
    if (k < intEnd) {
        mag = static_cast<long long>(intEnd - k);
    } else {
        std::size_t z = fracStart;
        while (z < fracEnd && s[z] == '0')
            ++z;
        if (z == fracEnd)
            return r; // all zeros: exactly 0 (from_chars never fails on that, but be safe)
        mag = -static_cast<long long>(z - fracStart);
    }
    mag += exp10;
    r.kind = NumberCheck::OutOfRange;
    r.why = mag > 0 ? "is too large for a double (beyond 1.8e308)"
                    : "is too small for a double (it would read as 0)";
    return r;
}

} // namespace tideline
