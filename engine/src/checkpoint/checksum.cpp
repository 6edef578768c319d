#include "checkpoint/checksum.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// Long inputs on a CPU with VPCLMULQDQ (AVX-512): carry-less multiplication folds 256 bytes a
// step in four 512-bit accumulators, about ten times the three CRC lanes' rate on data in L1.
// A replay checks every block of its recording (issue 19), so this CRC is a share of every
// replay, not only of checkpoints.
//
// The algebra, in the reflected bit order the CRC instruction uses (bit i of a 16-byte load
// is the coefficient of x^(127-i)): a 128-bit chunk X = H x^64 + L (H its low 64 bits) moved
// T bits later is X x^T = H x^(T+64) + L x^T, so modulo P it is H (x^(T+63) mod P) x +
// L (x^(T-1) mod P) x. The carry-less product of two reflected 64-bit values lands one bit
// short of the reflected 128-bit place, which the factor x makes up: the constants are x^(T+63)
// and x^(T-1) mod P (foldConstant). The folded 128 bits are a message with the same CRC as
// everything before them, so two CRC instructions finish it and the tail continues from
// there; no Barrett reduction is needed.

/// x^k mod P, reflected into the top 32 bits of a 64-bit lane (x^d at bit 63 - d).
std::uint64_t foldConstant(int k)
{
    std::uint64_t r = 1; // x^0, in the normal order (x^d at bit d)
    for (int i = 0; i < k; ++i) {
        r <<= 1;
        if (r >> 32 & 1)
            r ^= 0x11edc6f41ull; // x^32 + the Castagnoli polynomial
    }
    std::uint64_t reflected = 0;
    for (int d = 0; d < 32; ++d)
        if (r >> d & 1)
            reflected |= std::uint64_t{1} << (63 - d);
    return reflected;
}

/// The pair for moving a chunk some bytes on: `h` multiplies H (the low lane), `l` L.
struct FoldPair
{
    long long h, l;
};

FoldPair foldPair(int bytes)
{
    return {static_cast<long long>(foldConstant(8 * bytes + 63)),
            static_cast<long long>(foldConstant(8 * bytes - 1))};
}

struct FoldConstants
{
    FoldPair by16 = foldPair(16), by64 = foldPair(64), by256 = foldPair(256);
};

// (_mm512_broadcast_i32x4 and _mm512_extracti32x4_epi32 are not used: GCC 12 warns inside
// them that their undefined source is uninitialised.)
__attribute__((target("avx512f"))) __m512i everyLane(FoldPair k)
{
    return _mm512_set_epi64(k.l, k.h, k.l, k.h, k.l, k.h, k.l, k.h);
}

__attribute__((target("pclmul,sse2"))) __m128i fold128(__m128i x, __m128i k, __m128i next)
{
    return _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

__attribute__((target("avx512f,vpclmulqdq"))) __m512i fold512(__m512i x, __m512i k, __m512i next)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}

constexpr std::size_t kFoldMin = 256; ///< below one step the CRC instruction is as fast

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2"))) std::uint32_t
crcFold(const unsigned char *p, std::size_t n, std::uint32_t c)
{
    static const FoldConstants k;
    // The CRC so far enters as the first 32 bits of the message (xor), as the instruction
    // would have it in its register.
    __m512i a0 = _mm512_xor_si512(_mm512_loadu_si512(p),
                                  _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(c))));
    __m512i a1 = _mm512_loadu_si512(p + 64), a2 = _mm512_loadu_si512(p + 128),
            a3 = _mm512_loadu_si512(p + 192);
    p += kFoldMin;
    n -= kFoldMin;
    const __m512i by256 = everyLane(k.by256);
    for (; n >= kFoldMin; p += kFoldMin, n -= kFoldMin) {
        a0 = fold512(a0, by256, _mm512_loadu_si512(p));
        a1 = fold512(a1, by256, _mm512_loadu_si512(p + 64));
        a2 = fold512(a2, by256, _mm512_loadu_si512(p + 128));
        a3 = fold512(a3, by256, _mm512_loadu_si512(p + 192));
    }
    // Four accumulators 64 bytes apart into one, then its four lanes 16 bytes apart.
    const __m512i by64 = everyLane(k.by64);
    alignas(64) __m128i lanes[4];
    _mm512_store_si512(lanes, fold512(fold512(fold512(a0, by64, a1), by64, a2), by64, a3));
    const __m128i by16 = _mm_set_epi64x(k.by16.l, k.by16.h);
    __m128i x = lanes[0];
    for (int i = 1; i < 4; ++i)
        x = fold128(x, by16, lanes[i]);
    for (; n >= 16; p += 16, n -= 16)
        x = fold128(x, by16, _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    std::uint64_t r = __builtin_ia32_crc32di(0, static_cast<std::uint64_t>(_mm_cvtsi128_si64(x)));
    r = __builtin_ia32_crc32di(r, static_cast<std::uint64_t>(_mm_extract_epi64(x, 1)));
    return crcHw(p, n, static_cast<std::uint32_t>(r));
}

bool hasFold()
{
    static const bool has = __builtin_cpu_supports("avx512f")
                            && __builtin_cpu_supports("vpclmulqdq")
                            && __builtin_cpu_supports("pclmul") && hasHw();
    return has;
}
#endif

std::uint32_t crcWith(CrcImpl impl, const unsigned char *p, std::size_t n, std::uint32_t c)
{
    switch (impl) {
#if defined(__x86_64__)
    case CrcImpl::Folding:
        return n >= kFoldMin ? crcFold(p, n, c) : crcHw(p, n, c);
    case CrcImpl::Instruction:
        return n >= 3 * kLane ? crcHw3(p, n, c) : crcHw(p, n, c);
#else
    case CrcImpl::Folding:
    case CrcImpl::Instruction:
#endif
    case CrcImpl::Table:
        break;
    }
    return crcTable(p, n, c);
}

CrcImpl bestImpl()
{
#if defined(__x86_64__)
    if (hasFold())
        return CrcImpl::Folding;
    if (hasHw())
        return CrcImpl::Instruction;
#endif
    return CrcImpl::Table;
}

} // namespace

std::vector<CrcImpl> crc32cImplementations()
{
    std::vector<CrcImpl> out{CrcImpl::Table};
#if defined(__x86_64__)
    if (hasHw())
        out.push_back(CrcImpl::Instruction);
    if (hasFold())
        out.push_back(CrcImpl::Folding);
#endif
    return out;
}

std::uint32_t crc32c(std::string_view data, std::uint32_t crc)
{
    static const CrcImpl best = bestImpl();
    return ~crcWith(best, reinterpret_cast<const unsigned char *>(data.data()), data.size(), ~crc);
}

std::uint32_t crc32cUsing(CrcImpl impl, std::string_view data, std::uint32_t crc)
{
    return ~crcWith(impl, reinterpret_cast<const unsigned char *>(data.data()), data.size(), ~crc);
}

} // namespace tideline::checkpoint
