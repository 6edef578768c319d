#pragma once
// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp). Each harness defines
// LLVMFuzzerTestOneInput; built with -fsanitize=fuzzer in the `fuzz` preset, and linked with
// replay_main.cpp into test_fuzz_replay for the normal suite (which replays the committed
// corpus and every regression input, without sanitizers).
//
// A property that does not hold is a crash: FUZZ_CHECK prints what and aborts, so libFuzzer
// saves the input and the replay test fails.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: property failed: %s\n  %s\n", __FILE__, __LINE__, #cond,  \
                         std::string(what).c_str());                                               \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

namespace fuzz {

inline std::string_view asText(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

/// Printable form of bytes for messages (\xNN for the rest), cut to a readable length.
inline std::string shown(std::string_view s, std::size_t max = 400)
{
    static const char *hex = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    if (s.size() > max)
        out += "...";
    return out;
}

} // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);
/// Harnesses with binary inputs write their seeds with this (replay binary: --write-seeds DIR).
extern "C" __attribute__((weak)) void fuzzWriteSeeds(const char *dir);
