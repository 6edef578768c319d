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

// Long inputs (a recording's blocks, state blobs) in three lanes: the CRC instruction has a
// latency of 3 cycles and a throughput of 1, so one dependent chain runs at a third of what
// the core can do. Each 3*kLane-byte chunk is three independent chains, joined by moving the
// first two registers past the bytes after them: running a CRC register over kLane zero
// bytes is linear in the register, so it is four table lookups (kShift, built once).
constexpr std::size_t kLane = 1024;

struct Shift
{
    std::uint32_t t[4][256];
};

__attribute__((target("sse4.2"))) Shift makeShift()
{
    Shift s{};
    static const unsigned char zeros[kLane] = {};
    std::uint32_t basis[32];
    for (int bit = 0; bit < 32; ++bit)
        basis[bit] = crcHw(zeros, kLane, std::uint32_t{1} << bit);
    for (int j = 0; j < 4; ++j)
        for (int b = 0; b < 256; ++b) {
            std::uint32_t v = 0;
            for (int bit = 0; bit < 8; ++bit)
                if (b >> bit & 1)
                    v ^= basis[8 * j + bit];
            s.t[j][b] = v;
        }
    return s;
}

std::uint32_t shifted(const Shift &s, std::uint32_t c)
{
    return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

__attribute__((target("sse4.2"))) std::uint32_t
crcHw3(const unsigned char *p, std::size_t n, std::uint32_t c)
{
    static const Shift shift = makeShift();
    while (n >= 3 * kLane) {
        std::uint64_t a = c, b = 0, d = 0;
        for (std::size_t i = 0; i < kLane; i += 8) {
            std::uint64_t va, vb, vd;
            std::memcpy(&va, p + i, 8);
            std::memcpy(&vb, p + kLane + i, 8);
            std::memcpy(&vd, p + 2 * kLane + i, 8);
            a = __builtin_ia32_crc32di(a, va);
            b = __builtin_ia32_crc32di(b, vb);
            d = __builtin_ia32_crc32di(d, vd);
        }
        c = shifted(shift,
                    shifted(shift, static_cast<std::uint32_t>(a)) ^ static_cast<std::uint32_t>(b))
            ^ static_cast<std::uint32_t>(d);
        p += 3 * kLane;
        n -= 3 * kLane;
    }
    return crcHw(p, n, c);
}
#endif

} // namespace

std::uint32_t crc32c(std::string_view data, std::uint32_t crc)
{
    auto *p = reinterpret_cast<const unsigned char *>(data.data());
    std::uint32_t c = ~crc;
#if defined(__x86_64__)
    if (hasHw())
        return ~(data.size() >= 3 * kLane ? crcHw3(p, data.size(), c) : crcHw(p, data.size(), c));
#endif
    return ~crcTable(p, data.size(), c);
}

} // namespace tideline::checkpoint
