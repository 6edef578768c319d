#include "operators/window/firing_order.hpp"

#include <algorithm>
#include <cstring>

namespace tideline::window {

namespace {

// compareValues with the common cases (ints, strings) inline.
inline int fastCompare(const Value &a, const Value &b)
{
    if (a.type == ValueType::Int && b.type == ValueType::Int)
        return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    if (a.type == ValueType::String && b.type == ValueType::String) {
        const int c = a.s.compare(b.s);
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    return compareValues(a, b);
}

/// Bytes [from, from + 8) of `s` as a big-endian number, zero-padded past the end: for
/// strings that share their first `from` bytes, a < b (memcmp) implies window(a) <= window(b).
inline std::uint64_t windowAt(std::string_view s, std::size_t from)
{
    unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (from < s.size())
        std::memcpy(b, s.data() + from, std::min<std::size_t>(8, s.size() - from));
    std::uint64_t w = 0;
    for (unsigned char c : b)
        w = (w << 8) | c;
    return w;
}

// Below this many keys a comparison sort of the items beats the radix passes' setup.
constexpr std::size_t kRadixMin = 64;

} // namespace

void FiringOrder::sort(const KeyCodec &codec,
                       std::vector<std::uint32_t> &order,
                       const std::vector<std::string_view> &keys)
{
    if (codec.paths().empty() || order.size() < 2)
        return;
    if (sortSingleInts(codec, order, keys))
        return;
    if (!normalizeAll(codec, order, keys)) {
        comparisonSort(codec, order, keys);
        return;
    }
    const std::size_t n = order.size();
    // The bytes every form shares order nothing: the window starts after them.
    const std::string_view first = form(0);
    std::size_t common = first.size();
    for (std::uint32_t f = 1; f < n && common > 0; ++f) {
        const std::string_view s = form(f);
        const std::size_t lim = std::min(common, s.size());
        std::size_t i = 0;
        while (i < lim && s[i] == first[i])
            ++i;
        common = i;
    }
    m_items.resize(n);
    for (std::uint32_t f = 0; f < n; ++f)
        m_items[f] = {windowAt(form(f), common), order[f], f};
    if (n < kRadixMin)
        std::sort(m_items.begin(), m_items.end(), [](const Item &a, const Item &b) {
            return a.window != b.window ? a.window < b.window : a.idx < b.idx;
        });
    else
        radixSort(); // stable: equal windows keep their order of `order`
    // Equal windows: memcmp of the whole forms (from the common bytes), then position (the
    // session window fires one key's several sessions at once: equal forms).
    auto byForm = [this, common](const Item &a, const Item &b) {
        const int c = form(a.form).substr(common).compare(form(b.form).substr(common));
        return c != 0 ? c < 0 : a.idx < b.idx;
    };
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && m_items[j].window == m_items[i].window)
            ++j;
        if (j - i > 1)
            std::sort(m_items.begin() + static_cast<std::ptrdiff_t>(i),
                      m_items.begin() + static_cast<std::ptrdiff_t>(j), byForm);
        i = j;
    }
    for (std::size_t i = 0; i < n; ++i)
        order[i] = m_items[i].idx;
}

bool FiringOrder::sortSingleInts(const KeyCodec &codec,
                                 std::vector<std::uint32_t> &order,
                                 const std::vector<std::string_view> &keys)
{
    // The usual key, one int field (tag 3 and 8 native-endian bytes): its normalized form
    // after the shared rank byte is the int with the sign bit flipped, so that is the window,
    // and no arena of forms is needed.
    if (codec.paths().size() != 1)
        return false;
    const std::size_t n = order.size();
    m_items.resize(n);
    for (std::size_t f = 0; f < n; ++f) {
        const std::string_view k = keys[order[f]];
        if (k.size() != 9 || k[0] != '\x03')
            return false;
        std::int64_t v;
        std::memcpy(&v, k.data() + 1, 8);
        m_items[f] = {static_cast<std::uint64_t>(v) ^ (1ull << 63), order[f], 0};
    }
    if (n < kRadixMin)
        std::sort(m_items.begin(), m_items.end(), [](const Item &a, const Item &b) {
            return a.window != b.window ? a.window < b.window : a.idx < b.idx;
        });
    else
        radixSort();
    // Equal windows are equal keys (a session window's several sessions): by position.
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && m_items[j].window == m_items[i].window)
            ++j;
        if (j - i > 1)
            std::sort(m_items.begin() + static_cast<std::ptrdiff_t>(i),
                      m_items.begin() + static_cast<std::ptrdiff_t>(j),
                      [](const Item &a, const Item &b) { return a.idx < b.idx; });
        i = j;
    }
    for (std::size_t i = 0; i < n; ++i)
        order[i] = m_items[i].idx;
    return true;
}

bool FiringOrder::normalizeAll(const KeyCodec &codec,
                               const std::vector<std::uint32_t> &order,
                               const std::vector<std::string_view> &keys)
{
    m_forms.clear();
    m_offsets.resize(order.size() + 1);
    m_offsets[0] = 0;
    for (std::size_t f = 0; f < order.size(); ++f) {
        if (!codec.appendNormalized(keys[order[f]], m_forms))
            return false;
        m_offsets[f + 1] = static_cast<std::uint32_t>(m_forms.size());
    }
    return m_forms.size() < 0xffffffffu; // offsets are 32-bit
}

void FiringOrder::radixSort()
{
    // LSD radix on the 64-bit windows, one byte per pass, skipping bytes that are the same in
    // every item (with small ints or keys sharing a prefix most are): one counting pass for
    // all eight histograms, then one scatter per byte that varies.
    const std::size_t n = m_items.size();
    std::uint32_t counts[8][256] = {};
    for (const Item &it : m_items)
        for (int b = 0; b < 8; ++b)
            ++counts[b][(it.window >> (8 * b)) & 0xff];
    m_tmp.resize(n);
    for (int b = 0; b < 8; ++b) {
        std::uint32_t *c = counts[b];
        if (c[(m_items[0].window >> (8 * b)) & 0xff] == n)
            continue;
        std::uint32_t sum = 0;
        for (int v = 0; v < 256; ++v) {
            const std::uint32_t k = c[v];
            c[v] = sum;
            sum += k;
        }
        for (const Item &it : m_items)
            m_tmp[c[(it.window >> (8 * b)) & 0xff]++] = it;
        m_items.swap(m_tmp);
    }
}

void FiringOrder::comparisonSort(const KeyCodec &codec,
                                 std::vector<std::uint32_t> &order,
                                 const std::vector<std::string_view> &keys)
{
    const std::size_t k = codec.paths().size();
    if (k == 0 || order.size() < 2)
        return;
    m_values.resize(keys.size() * k);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        codec.decode(keys[i], m_decoded);
        for (std::size_t j = 0; j < k; ++j)
            m_values[i * k + j] = m_decoded[j].value;
    }
    const Value *vals = m_values.data();
    // Ties (distinct encodings that compare equal) are broken by the encoded bytes, not by
    // position, so the order does not depend on where a key sat (memory, or read back from
    // the spill store).
    std::sort(order.begin(), order.end(), [vals, k, &keys](std::uint32_t a, std::uint32_t b) {
        const Value *va = vals + a * k;
        const Value *vb = vals + b * k;
        for (std::size_t j = 0; j < k; ++j) {
            const int c = fastCompare(va[j], vb[j]);
            if (c != 0)
                return c < 0;
        }
        if (keys[a] != keys[b])
            return keys[a] < keys[b];
        return a < b;
    });
}

} // namespace tideline::window
