#pragma once
// Finding a key field in a record, shared by every key encoder.

#include <tideline/engine/record.hpp>

#include <string_view>

namespace tideline::keys {

/// Finds `path` in a record, trying the position where it was found last time first: records
/// of one stream usually share their layout, which makes the lookup one string compare.
inline int findField(const Record &r, std::string_view path, int &hint)
{
    const int n = static_cast<int>(r.size());
    if (hint >= 0 && hint < n && r.nameAt(static_cast<std::size_t>(hint)) == path)
        return hint;
    const int i = r.indexOf(path);
    if (i >= 0)
        hint = i;
    return i;
}

} // namespace tideline::keys
