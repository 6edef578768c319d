#pragma once
// What the Nexmark generator's two files share (internal): the random generator, the
// process-wide tables and the cheap string helper the hot path inlines. The tables are built
// in nexmark_tables.cpp (cold, once per process); events are made in nexmark_generator.cpp.

#include "operators/nexmark/nexmark_generator.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tideline::nexmark {

constexpr int kChannels = 10000;
constexpr std::size_t kExtraPool = 1u << 20; // the pre-generated 1 MiB lowercase string

inline std::uint64_t splitmix64(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline std::uint64_t rotl(std::uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/// xoshiro256** seeded through SplitMix64, with Java-like helpers (nextInt(bound) is
/// Lemire's unbiased multiply-shift, nextDouble has 53 random bits).
struct Generator::Rng
{
    std::uint64_t s[4];
    explicit Rng(std::uint64_t seed)
    {
        std::uint64_t st = seed;
        for (auto &x : s)
            x = splitmix64(st);
    }
    std::uint64_t next()
    {
        const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
        const std::uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
    /// Uniform in [0, bound), bound in [1, 2^32).
    std::uint32_t nextInt(std::uint32_t bound)
    {
        std::uint64_t m = (next() >> 32) * bound;
        auto low = static_cast<std::uint32_t>(m);
        if (low < bound) {
            std::uint32_t threshold = (0u - bound) % bound;
            while (low < threshold) {
                m = (next() >> 32) * bound;
                low = static_cast<std::uint32_t>(m);
            }
        }
        return static_cast<std::uint32_t>(m >> 32);
    }
    /// Flink's LongGenerator.nextLong: nextInt below 2^31, else |nextLong % n|.
    std::int64_t nextLong(std::int64_t n)
    {
        if (n < (std::int64_t(1) << 31))
            return nextInt(static_cast<std::uint32_t>(n));
        return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
    }
    double nextDouble() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// Tables built once per process from fixed seeds: the 1 MiB `extra` pool, the four hot
/// URLs and the 10,000-entry channel cache (Flink builds these from unseeded Randoms).
struct Tables
{
    std::string extraPool;
    std::array<std::string, 4> hotUrls;
    std::vector<std::string> channelNames;
    std::vector<std::string> channelUrls;
    /// The same names and URLs packed into one buffer: a bid reads one of 10,000 at random,
    /// and views into contiguous memory can be prefetched without touching a string object.
    std::string packed;
    /// Per channel, one 8-byte reference into `packed`: offset << 16 | name length << 8 | URL
    /// length (the URL follows the name). One small entry per channel instead of two 16-byte
    /// views halves the cache misses of a random channel (the table is 80 KB, not 320 KB).
    std::vector<std::uint64_t> channelRefs;
    std::array<std::string, 10000> cardGroups; // "%04d"
};

inline void tableString(Generator::Rng &rng, int maxLength, char special, std::string &out)
{
    int len = 3 + static_cast<int>(rng.nextInt(static_cast<std::uint32_t>(maxLength - 3)));
    for (int i = 0; i < len; ++i)
        out += rng.nextInt(13) == 0 ? special : static_cast<char>('a' + rng.nextInt(26));
}

/// Builds the tables (nexmark_tables.cpp); tables() in nexmark_generator.cpp keeps the one copy.
Tables buildTables();

} // namespace tideline::nexmark
