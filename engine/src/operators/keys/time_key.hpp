#pragma once
// Event times as the leading bytes of a spill-store key: 8 bytes big-endian with the sign bit
// flipped, so RocksDB's byte order is time order (negative times first). The aligned window
// prefixes a spilled entry with its pane's start (a pane is one key range); dedup indexes its
// spilled keys by expiry time (expiry is one range scan).

#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace tideline::keys {

inline constexpr std::size_t kTimeKeyBytes = 8;

inline void appendTimeKey(std::string &out, Timestamp t)
{
    const std::uint64_t u = static_cast<std::uint64_t>(t) ^ (1ULL << 63);
    for (int b = 7; b >= 0; --b)
        out.push_back(static_cast<char>(static_cast<std::uint8_t>(u >> (8 * b))));
}

/// The time in the first 8 bytes of `key` (which must have them).
inline Timestamp readTimeKey(std::string_view key)
{
    std::uint64_t u = 0;
    for (std::size_t b = 0; b < kTimeKeyBytes; ++b)
        u = (u << 8) | static_cast<std::uint8_t>(key[b]);
    return static_cast<Timestamp>(u ^ (1ULL << 63));
}

} // namespace tideline::keys
