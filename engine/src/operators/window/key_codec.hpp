#pragma once
// Grouping keys of the window node, encoded as bytes.
//
// A key (the values of the node's `key` fields in one record) is written into a reusable byte
// buffer so that the per-record path costs no allocation: the bytes are hashed, compared with
// memcmp against stored keys, and copied into state only when a key is new. Equal JSON values
// encode to equal bytes (1 and 1.0 group together, as valuesEqual says), and a key field that
// names a nested object ("user" when records carry user.id, user.name) encodes every field
// under it, so grouping by an object works too.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::window {

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

/// 64-bit hash of a byte string (multiply-xorshift over 8-byte words; fast for short keys).
std::uint64_t hashBytes(std::string_view bytes) noexcept;

class KeyCodec
{
public:
    explicit KeyCodec(std::vector<std::string> paths);

    const std::vector<std::string> &paths() const { return m_paths; }
    bool empty() const { return m_paths.empty(); }

    /// Encodes the key of `r` into `out` (cleared first).
    void encode(const Record &r, std::string &out);

    /// One decoded key field: a scalar value, or the fields of a nested object.
    struct Decoded
    {
        Value value; ///< The scalar, or for objects a Raw view of the encoded bytes (sorting).
        bool isObject = false;
        std::string_view objectBytes; ///< Encoded sub-fields when isObject.
    };
    /// Decodes `bytes` (made by encode) into one Decoded per key path. Views point into bytes.
    void decode(std::string_view bytes, std::vector<Decoded> &out) const;
    /// Writes the key fields of `bytes` into an output record (nested paths re-nest on output).
    void writeTo(std::string_view bytes, Record &out) const;

private:
    std::vector<std::string> m_paths;
    std::vector<int> m_hints;
    mutable std::vector<Decoded> m_scratch;
    mutable std::string m_pathScratch;
};

} // namespace tideline::window
