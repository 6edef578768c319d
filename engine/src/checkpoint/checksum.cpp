#include "checkpoint/checksum.hpp"

#include <array>
#include <cstring>

namespace tideline::checkpoint {

namespace {

constexpr std::uint32_t kPoly = 0x82f63b78u; // reflected Castagnoli polynomial

constexpr std::array<std::uint32_t, 256> makeTable()
{
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
        t[i] = c;
    }
    return t;
}
constexpr auto kTable = makeTable();

std::uint32_t crcTable(const unsigned char *p, std::size_t n, std::uint32_t c)
{
    for (std::size_t i = 0; i < n; ++i)
        c = kTable[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t
crcHw(const unsigned char *p, std::size_t n, std::uint32_t c)
{
    std::uint64_t c64 = c;
    while (n >= 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        n -= 8;
    }
    c = static_cast<std::uint32_t>(c64);
    // The tail in 4-, 2- and 1-byte steps: a records.tsv line's CRC (about 110 bytes) would
    // otherwise end with up to seven dependent one-byte steps.
    if (n >= 4) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        c = __builtin_ia32_crc32si(c, v);
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        c = __builtin_ia32_crc32hi(c, v);
        p += 2;
        n -= 2;
    }
    while (n > 0) {
        c = __builtin_ia32_crc32qi(c, *p++);
        --n;
    }
    return c;
}
bool hasHw()
{
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

std::uint32_t crc32c(std::string_view data, std::uint32_t crc)
{
    auto *p = reinterpret_cast<const unsigned char *>(data.data());
    std::uint32_t c = ~crc;
#if defined(__x86_64__)
    if (hasHw())
        return ~crcHw(p, data.size(), c);
#endif
    return ~crcTable(p, data.size(), c);
}

} // namespace tideline::checkpoint
