// The event parser, both paths: the hand-written fast path (plain lines) and simdjson.
// Properties, for any input line:
// - the parser with the fast path and the simdjson-only parser give the same result (accept or
//   reject, the same record, the same error message);
// - an error message is valid UTF-8 (it goes into the errors record);
// - an accepted line is JSON nlohmann accepts too, and the record written back is the same
//   JSON value, keys in the same order (duplicate keys: the last wins, at the first's place);
// - write -> parse -> write is a fixed point;
// - with a FieldProjection (the fused path's parse): the same accept or reject and message, and
//   the record is the whole one's fields that the projection keeps, in their order, or (a line
//   off the fast path) the whole record.

#include "fuzz_common.hpp"

#include <tideline/engine/record_json.hpp>

#include <nlohmann/json.hpp>

using namespace tideline;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static RecordParser fast;
    static RecordParser slow(RecordLimits{.fastPath = false});
    const std::string_view line = fuzz::asText(data, size);

    Record a, b;
    std::string ea, eb;
    const bool okA = fast.parse(line, a, ea);
    const bool okB = slow.parse(line, b, eb);
    FUZZ_CHECK(okA == okB,
               "paths disagree on " + fuzz::shown(line) + ": fast " + ea + " / slow " + eb);

    static std::string unused;
    static const auto only = FieldProjection::of({"t", "a.b", "k", "`x.y`"}, unused);
    static RecordParser projecting;
    Record pr;
    std::string ep;
    const bool okP = projecting.parse(line, pr, ep, only.get());
    FUZZ_CHECK(okP == okA && ep == ea,
               "projection changes acceptance of " + fuzz::shown(line) + ": " + ep + " / " + ea);
    if (okP) {
        Record kept;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (only->keeps(a.nameAt(i)))
                kept.append(a.nameAt(i), a.valueAt(i));
        const std::string jp = toJson(pr);
        FUZZ_CHECK(jp == toJson(kept) || jp == toJson(a),
                   "projection of " + fuzz::shown(line) + " is " + fuzz::shown(jp));
    }
    if (!okA) {
        FUZZ_CHECK(ea == eb, "messages differ: " + ea + " / " + eb);
        FUZZ_CHECK(!ea.empty(), "empty error for " + fuzz::shown(line));
        FUZZ_CHECK(invalidUtf8At(ea) == std::string_view::npos,
                   "error message is not UTF-8: " + fuzz::shown(ea));
        return 0;
    }
    const std::string ja = toJson(a), jb = toJson(b);
    FUZZ_CHECK(a == b && ja == jb, "paths give different records for " + fuzz::shown(line)
                                       + "\n  fast " + fuzz::shown(ja) + "\n  slow "
                                       + fuzz::shown(jb));

    // The same JSON value as an independent parser reads (nlohmann, ordered, last key wins).
    using OJ = nlohmann::ordered_json;
    OJ in = OJ::parse(line, nullptr, false);
    FUZZ_CHECK(!in.is_discarded(), "accepted, but nlohmann rejects " + fuzz::shown(line));
    OJ out = OJ::parse(ja, nullptr, false);
    FUZZ_CHECK(!out.is_discarded(), "output is not JSON: " + fuzz::shown(ja));
    FUZZ_CHECK(in == out, "changed: " + fuzz::shown(line) + "\n  became " + fuzz::shown(ja));

    // Written -> parsed -> written: the same text (and the same record).
    Record c;
    std::string ec;
    FUZZ_CHECK(fast.parse(ja, c, ec), "own output rejected: " + fuzz::shown(ja) + ": " + ec);
    FUZZ_CHECK(toJson(c) == ja,
               "not a fixed point: " + fuzz::shown(ja) + " -> " + fuzz::shown(toJson(c)));
    // Every name is a canonical path, and reading a field by its name finds it.
    for (std::size_t i = 0; i < c.size(); ++i) {
        FUZZ_CHECK(fieldpath::isCanonical(c.nameAt(i)),
                   "name not canonical: " + fuzz::shown(c.nameAt(i)));
        FUZZ_CHECK(c.indexOf(c.nameAt(i)) == static_cast<int>(i),
                   "duplicate name " + fuzz::shown(c.nameAt(i)));
    }
    return 0;
}
