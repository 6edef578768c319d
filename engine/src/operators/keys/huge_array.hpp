#pragma once
// HugeArray: a fixed-size array of trivially copyable items for large, randomly probed tables
// (hash slots). Arrays of 1 MiB and more are 2 MiB-aligned and marked MADV_HUGEPAGE: a probe
// into a table of several MiB then costs a cache miss but no TLB miss and page walk, which on
// the machines measured was about as expensive as the miss itself. Where transparent huge
// pages are off, the advice is ignored and this is an ordinary aligned array.

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <type_traits>
#include <utility>

namespace tideline::keys {

/// Memory for a randomly probed table of `bytes` (rounded up in place to what was taken):
/// from 1 MiB on 2 MiB-aligned and marked MADV_HUGEPAGE, else on a cache line. Freed with
/// std::free. Throws std::bad_alloc. (HugeArray's slots, RowTable's rows.)
inline void *allocateTable(std::size_t &bytes)
{
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    const std::size_t align = bytes >= kHuge / 2 ? kHuge : 64;
    bytes = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
    void *p = std::aligned_alloc(align, bytes);
    if (!p)
        throw std::bad_alloc();
    if (align == kHuge)
        (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

template<class T>
class HugeArray
{
    static_assert(std::is_trivially_copyable_v<T>);

public:
    HugeArray() = default;
    HugeArray(const HugeArray &) = delete;
    HugeArray &operator=(const HugeArray &) = delete;
    HugeArray(HugeArray &&o) noexcept
        : m_p(std::exchange(o.m_p, nullptr))
        , m_n(std::exchange(o.m_n, 0))
    {
    }
    HugeArray &operator=(HugeArray &&o) noexcept
    {
        std::swap(m_p, o.m_p);
        std::swap(m_n, o.m_n);
        return *this;
    }
    ~HugeArray() { std::free(m_p); }

    /// Replaces the contents by n copies of fill.
    void assign(std::size_t n, const T &fill)
    {
        std::free(m_p);
        m_p = nullptr;
        m_n = 0;
        std::size_t bytes = n * sizeof(T);
        m_p = static_cast<T *>(allocateTable(bytes));
        m_n = n;
        for (std::size_t i = 0; i < n; ++i)
            m_p[i] = fill;
    }

    std::size_t size() const { return m_n; }
    T &operator[](std::size_t i) { return m_p[i]; }
    const T &operator[](std::size_t i) const { return m_p[i]; }
    T *begin() { return m_p; }
    T *end() { return m_p + m_n; }
    const T *begin() const { return m_p; }
    const T *end() const { return m_p + m_n; }

private:
    T *m_p = nullptr;
    std::size_t m_n = 0;
};

} // namespace tideline::keys
