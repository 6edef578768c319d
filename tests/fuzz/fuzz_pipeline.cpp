// The pipeline loader: parseSpec + validate + writeSpec. Properties, for any file text:
// - nothing throws (loading and validation report Diagnostics);
// - a file that loads writes back to text that loads to the same spec, and writing that
//   gives the same text (load -> write -> load is the identity);
// - every diagnostic has a message.

#include "fuzz_common.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <exception>

using namespace tideline;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text = fuzz::asText(data, size);
    LoadResult r;
    try {
        r = loadSpec(text);
    } catch (const std::exception &e) {
        FUZZ_CHECK(false, std::string("loadSpec threw: ") + e.what() + " on " + fuzz::shown(text));
    }
    for (const auto &d : r.diagnostics)
        FUZZ_CHECK(!d.message.empty(), "a diagnostic without a message at " + d.path);
    if (!r.spec)
        return 0;
    std::string written;
    try {
        written = writeSpec(*r.spec);
    } catch (const std::exception &e) {
        FUZZ_CHECK(false, std::string("writeSpec threw: ") + e.what() + " on " + fuzz::shown(text));
    }
    LoadResult again = parseSpec(written);
    FUZZ_CHECK(again.spec.has_value(), "own output does not load: " + fuzz::shown(written));
    FUZZ_CHECK(*again.spec == *r.spec,
               "load -> write -> load changed the spec: " + fuzz::shown(text) + "\n  wrote "
                   + fuzz::shown(written));
    FUZZ_CHECK(writeSpec(*again.spec) == written, "write is not stable: " + fuzz::shown(written));
    try {
        (void)validate(*again.spec);
    } catch (const std::exception &e) {
        FUZZ_CHECK(false, std::string("validate threw: ") + e.what());
    }
    return 0;
}
