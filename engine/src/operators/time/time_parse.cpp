#include "operators/time/time_parse.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tideline {

namespace {

// Howard Hinnant's days_from_civil: days since 1970-01-01 of a proleptic Gregorian date.
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Its inverse, civil_from_days.
void civilFromDays(std::int64_t z, std::int64_t &y, unsigned &m, unsigned &d)
{
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

int daysInMonth(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int &out)
{
    if (pos + n > s.size())
        return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        char c = s[pos + i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

} // namespace

std::optional<Timestamp> parseIso8601(std::string_view s)
{
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-'
        || !digits(s, 8, 2, d))
        return std::nullopt;
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo))
        return std::nullopt; // 2023-02-30 is not a date (not 2 March)
    std::size_t pos = 10;
    std::int64_t ms = 0;
    if (pos < s.size() && (s[pos] == 'T' || s[pos] == 't' || s[pos] == ' ')) {
        if (!digits(s, pos + 1, 2, h) || pos + 3 >= s.size() || s[pos + 3] != ':'
            || !digits(s, pos + 4, 2, mi))
            return std::nullopt;
        pos += 6;
        if (pos < s.size() && s[pos] == ':') {
            if (!digits(s, pos + 1, 2, sec))
                return std::nullopt;
            pos += 3;
            if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
                ++pos;
                int scale = 100, frac = 0;
                std::size_t start = pos;
                while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
                    if (scale > 0) {
                        frac += (s[pos] - '0') * scale;
                        scale /= 10;
                    }
                    ++pos;
                }
                if (pos == start)
                    return std::nullopt;
                ms = frac;
            }
        }
        if (h > 23 || mi > 59 || sec > 60)
            return std::nullopt;
    }
    std::int64_t offsetMin = 0;
    if (pos < s.size()) {
        char c = s[pos];
        if ((c == 'Z' || c == 'z') && pos + 1 == s.size()) {
            pos++;
        } else if (c == '+' || c == '-') {
            int oh = 0, om = 0;
            if (!digits(s, pos + 1, 2, oh))
                return std::nullopt;
            std::size_t p2 = pos + 3;
            if (p2 < s.size() && s[p2] == ':')
                ++p2;
            if (p2 < s.size() && !digits(s, p2, 2, om))
                return std::nullopt;
            if (p2 < s.size())
                p2 += 2;
            if (p2 != s.size())
                return std::nullopt;
            if (oh > 23 || om > 59)
                return std::nullopt;
            offsetMin = (oh * 60 + om) * (c == '-' ? -1 : 1);
            pos = s.size();
        } else {
            return std::nullopt;
        }
    }
    std::int64_t days = daysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offsetMin * 60;
    return secs * 1000 + ms;
}

namespace {

/// Event times are kept within ±9e18 ms (about ±285 million years): far from the int64 ends,
/// which stand for -inf/+inf (kMinTime/kMaxTime) and which saturating arithmetic reaches.
constexpr std::int64_t kMaxAbsTime = 9'000'000'000'000'000LL;
constexpr const char *kOutOfRange = "time out of range (event times are epoch milliseconds "
                                    "within ±9e18)";

std::optional<Timestamp> fromMillis(double ms, const char *&why)
{
    const double t = std::floor(ms);
    if (!std::isfinite(t) || std::abs(t) > static_cast<double>(kMaxAbsTime)) {
        why = kOutOfRange;
        return std::nullopt;
    }
    return static_cast<Timestamp>(t);
}

std::optional<Timestamp> fromInteger(std::int64_t v, bool seconds, const char *&why)
{
    const std::int64_t limit = seconds ? kMaxAbsTime / 1000 : kMaxAbsTime;
    if (v > limit || v < -limit) {
        why = kOutOfRange;
        return std::nullopt;
    }
    return seconds ? v * 1000 : v;
}

} // namespace

std::optional<Timestamp> eventTimeOf(const Value &v, TimeFormat format, const char *&why)
{
    switch (format) {
    case TimeFormat::EpochMs:
    case TimeFormat::EpochS: {
        const bool seconds = format == TimeFormat::EpochS;
        if (v.type == ValueType::Int)
            return fromInteger(v.i, seconds, why);
        if (v.type == ValueType::Double)
            return fromMillis(seconds ? v.d * 1000.0 : v.d, why);
        if (v.type == ValueType::Raw) {
            // An integer beyond int64 kept as its digits (or an array/object).
            const char c = v.s.empty() ? '\0' : v.s.front();
            why = (c == '-' || (c >= '0' && c <= '9')) ? kOutOfRange : "time field is not a number";
            return std::nullopt;
        }
        if (v.type == ValueType::String) {
            // Numbers sent as strings ("1700000000000", "1700000000.5") are common in CSV and
            // Kafka payloads: the same rules as numbers.
            const char *b = v.s.data(), *e = v.s.data() + v.s.size();
            std::int64_t x = 0;
            auto r = std::from_chars(b, e, x);
            if (r.ec == std::errc() && r.ptr == e)
                return fromInteger(x, seconds, why);
            if (r.ec == std::errc::result_out_of_range && r.ptr == e) {
                why = kOutOfRange;
                return std::nullopt;
            }
            const bool numeric
                = !v.s.empty()
                  && v.s.find_first_not_of("0123456789.-eE+") == std::string_view::npos;
            double d = 0;
            auto rd = std::from_chars(b, e, d);
            if (numeric && rd.ptr == e) {
                if (rd.ec == std::errc())
                    return fromMillis(seconds ? d * 1000.0 : d, why);
                if (rd.ec == std::errc::result_out_of_range) {
                    why = kOutOfRange;
                    return std::nullopt;
                }
            }
            why = "time field is a string that is not a number; set time_format to iso8601 if it "
                  "is a date";
            return std::nullopt;
        }
        why = v.isNull() ? "time field is null" : "time field is not a number";
        return std::nullopt;
    }
    case TimeFormat::Iso8601:
        if (v.type != ValueType::String) {
            why = "time field is not an ISO-8601 string";
            return std::nullopt;
        }
        if (auto t = parseIso8601(v.s)) {
            if (*t > kMaxAbsTime || *t < -kMaxAbsTime) { // cannot happen for 4-digit years
                why = kOutOfRange;
                return std::nullopt;
            }
            return t;
        }
        why = "time field is not a valid ISO-8601 date-time";
        return std::nullopt;
    }
    why = "unknown time format";
    return std::nullopt;
}

} // namespace tideline

namespace tideline {

std::string formatUtc(Timestamp t)
{
    const Timestamp days = floorDiv(t, 86'400'000);
    Timestamp msOfDay = t % 86'400'000; // no days * 86'400'000: that overflows near kMinTime
    if (msOfDay < 0)
        msOfDay += 86'400'000;
    std::int64_t y = 0;
    unsigned m = 0, d = 0;
    civilFromDays(days, y, m, d);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(msOfDay / 3'600'000),
                  static_cast<long long>(msOfDay / 60'000 % 60),
                  static_cast<long long>(msOfDay / 1000 % 60),
                  static_cast<long long>(msOfDay % 1000));
    return buf;
}

} // namespace tideline
