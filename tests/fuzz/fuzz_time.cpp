// Event-time parsing for every format (epoch_ms, epoch_s, iso8601), from strings, integers and
// doubles. Properties: nothing crashes or overflows (UBSan); a time is within ±9e18 ms or the
// value is rejected with a reason; an accepted ISO date is a real calendar date, and for
// canonical UTC text it equals the std::chrono calendar's answer.

#include "fuzz_common.hpp"
#include "operators/time/time_parse.hpp"

#include <chrono>
#include <cstring>

using namespace tideline;

namespace {

void checkTime(const std::optional<Timestamp> &t, const char *why, std::string_view what)
{
    if (t)
        FUZZ_CHECK(*t >= -9'000'000'000'000'000LL && *t <= 9'000'000'000'000'000LL,
                   "time " + std::to_string(*t) + " out of range from " + fuzz::shown(what));
    else
        FUZZ_CHECK(why && *why, "rejected without a reason: " + fuzz::shown(what));
}

bool utcShape(std::string_view s)
{
    return s.size() == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':'
           && s[16] == ':' && s[19] == 'Z';
}

/// Independent answer for YYYY-MM-DDTHH:MM:SSZ (exactly that shape), via std::chrono.
std::optional<Timestamp> chronoUtc(std::string_view s)
{
    if (!utcShape(s))
        return std::nullopt;
    auto num = [&](std::size_t pos, std::size_t n) {
        int v = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (s[pos + i] < '0' || s[pos + i] > '9')
                return -1;
            v = v * 10 + (s[pos + i] - '0');
        }
        return v;
    };
    int y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
        sec = num(17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 || h > 23 || mi > 59 || sec > 59)
        return std::nullopt;
    using namespace std::chrono;
    const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)},
                             day{static_cast<unsigned>(d)}};
    if (!ymd.ok())
        return std::nullopt;
    const auto days = sys_days(ymd).time_since_epoch().count();
    return (static_cast<Timestamp>(days) * 86400 + h * 3600 + mi * 60 + sec) * 1000;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text = fuzz::asText(data, size);
    for (TimeFormat f : {TimeFormat::EpochMs, TimeFormat::EpochS, TimeFormat::Iso8601}) {
        auto check = [&](const Value &v) {
            const char *why = "";
            const auto t = eventTimeOf(v, f, why); // before reading why
            checkTime(t, why, text);
        };
        check(Value::string(text));
        if (size >= 8) {
            std::int64_t i;
            double d;
            std::memcpy(&i, data, 8);
            std::memcpy(&d, data, 8);
            check(Value::integer(i));
            check(Value::number(d));
            check(Value::raw(text));
        }
    }
    const auto iso = parseIso8601(text);
    if (const auto expected = chronoUtc(text))
        FUZZ_CHECK(iso == expected, "iso8601 " + fuzz::shown(text) + " read as "
                                        + (iso ? std::to_string(*iso) : "nothing") + ", not "
                                        + std::to_string(*expected));
    else if (utcShape(text) && iso && text.substr(17, 2) != "60")
        FUZZ_CHECK(false, "iso8601 accepted an impossible date " + fuzz::shown(text));
    return 0;
}
