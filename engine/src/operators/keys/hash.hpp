#pragma once
// The one hash of encoded key bytes, for every keyed table (windows' panes and sessions, dedup,
// join, enrich, top, window_join). One function so that a key hashed once can be handed from a
// codec to any table, and so that a change of hash is measured once, on every operator.
//
// Multiply-xorshift over 8-byte words, then a final mix: a few cycles for the short keys that
// dominate (one number is 9 bytes, a short string 10-20). Both halves of the result are well
// mixed: tables take the low bits for the home slot and the high or low 31 bits as a tag.
// Inline because it sits on the per-record path of every keyed operator.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tideline::keys {

namespace hash_detail {
constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
inline std::uint64_t seed(std::size_t n) noexcept
{
    return 0x243F6A8885A308D3ull ^ (n * kMul);
}
inline std::uint64_t mix(std::uint64_t h, std::uint64_t w) noexcept
{
    h = (h ^ w) * kMul;
    return h ^ (h >> 29);
}
inline std::uint64_t finish(std::uint64_t h) noexcept
{
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}
} // namespace hash_detail

inline std::uint64_t hashBytes(std::string_view bytes) noexcept
{
    using namespace hash_detail;
    std::uint64_t h = seed(bytes.size());
    const char *p = bytes.data();
    std::size_t n = bytes.size();
    const std::size_t total = n;
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = mix(h, w);
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        std::uint64_t w = 0;
        if (total >= 8) {
            // The same word (the last n bytes, zero-extended) from one load of the key's last
            // 8 bytes: a memcpy of n bytes was a byte loop whose stores the word's load then
            // waited for (one integer key is 9 bytes).
            std::memcpy(&w, p + n - 8, 8);
            w >>= 8 * (8 - n);
        } else {
            std::memcpy(&w, p, n);
        }
        h = mix(h, w ^ (static_cast<std::uint64_t>(n) << 56));
    }
    return finish(h);
}

/// hashBytes(key) of a key an encoder has just written: the same value. A one-number key is 9
/// bytes, written as a tag byte and an 8-byte value; hashBytes' first 8-byte load spans both
/// stores, which the store buffer cannot forward, so it waited for them to reach the cache on
/// every record (perf: a quarter of the fused path's routing, docs/benchmarks.md). Here the
/// word is put together from a 1-byte and an 8-byte load that each match one store.
inline std::uint64_t hashFreshKey(std::string_view key) noexcept
{
    if (key.size() != 9)
        return hashBytes(key);
    using namespace hash_detail;
    std::uint64_t rest;
    std::memcpy(&rest, key.data() + 1, 8);
    const std::uint64_t first = static_cast<unsigned char>(key[0]);
    std::uint64_t h = mix(seed(9), first | (rest << 8)); // bytes 0..7
    h = mix(h, (rest >> 56) ^ (std::uint64_t{1} << 56)); // byte 8, the tail of one byte
    return finish(h);
}

/// Transparent hash so that maps keyed by std::string accept string_view lookups.
struct BytesHash
{
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept
    {
        return static_cast<std::size_t>(hashBytes(s));
    }
};

} // namespace tideline::keys
