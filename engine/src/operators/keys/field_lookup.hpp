#pragma once
// Finding a key field in a record, shared by every key encoder.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tideline::keys {

/// a == b for names of equal length n, inline: overlapping word loads up to 16 bytes (a call
/// to memcmp per record and key field costs more than the compare for names of a few bytes).
inline bool sameName(const char *a, const char *b, std::size_t n)
{
    if (a == b)
        return true;
    auto load = [](const char *p, auto w) {
        std::memcpy(&w, p, sizeof w);
        return w;
    };
    if (n >= 8 && n <= 16)
        return load(a, std::uint64_t{}) == load(b, std::uint64_t{})
               && load(a + n - 8, std::uint64_t{}) == load(b + n - 8, std::uint64_t{});
    if (n >= 4 && n < 8)
        return load(a, std::uint32_t{}) == load(b, std::uint32_t{})
               && load(a + n - 4, std::uint32_t{}) == load(b + n - 4, std::uint32_t{});
    return std::memcmp(a, b, n) == 0;
}

/// Finds `path` in a record, trying the position where it was found last time first: records
/// of one stream usually share their layout, which makes the lookup one string compare.
inline int findField(const Record &r, std::string_view path, int &hint)
{
    const int n = static_cast<int>(r.size());
    if (hint >= 0 && hint < n) {
        const std::string_view name = r.nameAt(static_cast<std::size_t>(hint));
        if (name.size() == path.size() && sameName(name.data(), path.data(), path.size()))
            return hint;
    }
    const int i = r.indexOf(path);
    if (i >= 0)
        hint = i;
    return i;
}

} // namespace tideline::keys
