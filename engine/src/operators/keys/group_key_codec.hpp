#pragma once
// Grouping keys of the window node: the key encoder (key_encoder.hpp) with GroupFormat, plus
// decoding back to values.
//
// Why the window's own byte format: it is inside checkpoints (window state stores these keys,
// dedup state the others), and its properties differ on purpose: it is native-endian with a
// nested-object form and decodes back to values (window results carry the key fields, sorted
// by compareValues); OrderedFormat is order-preserving and says when a field is null. What
// they share lives once: the field walk (BasicKeyEncoder), the field lookup and the hash.
// (Each keeps its own bound for "an integral double keys as the integer": 2^53 here, 9.2e18
// there; the bytes of both are in checkpoints, so neither bound can move.)
//
// Equal JSON values encode to equal bytes (1 and 1.0 group together, as valuesEqual says), a
// missing field groups with null (as SQL's GROUP BY does), and a key field that names a nested
// object ("user" when records carry user.id, user.name) encodes every field under it, so
// grouping by an object works too.

#include "operators/keys/key_encoder.hpp"

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::keys {

struct GroupFormat
{
    static void value(const Value &v, std::string &out);
    /// A field absent from the record: null, or a nested object's fields.
    static void missing(const Record &r, std::string_view path, std::string &out);
};

extern template class BasicKeyEncoder<GroupFormat>;

class GroupKeyCodec : public BasicKeyEncoder<GroupFormat>
{
public:
    explicit GroupKeyCodec(std::vector<std::string> paths);

    /// Lets writeTo append top-level key fields instead of set()ting them (no lookup, the name
    /// not copied): only for a caller that knows no other field of its output record can have
    /// the same name or nest under it (the window, after checking its output names).
    void appendTopLevelFields(bool on) { m_append = on; }

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
    /// Appends the order-preserving ("normalized") form of `bytes` to `out`: memcmp of two
    /// forms orders keys as compareValues orders their fields one by one, and distinct keys
    /// have distinct forms. Per field: a rank byte (null 1, false 2, true 3, int 4, string 5),
    /// an int as 8 big-endian bytes with the sign bit flipped, a string's bytes with 0x00
    /// written as 0x00 0xFF and ended by 0x00 0x00 (so a shorter string sorts first and a
    /// field never runs into the next). Returns false, with `out` partly written, for keys
    /// that have no such form: a double (ints and doubles compare by value), a raw value, a
    /// nested object, or bytes this codec did not write.
    [[nodiscard]] bool appendNormalized(std::string_view bytes, std::string &out) const;

private:
    std::vector<StaticPath> m_names; ///< interned key paths
    std::vector<char> m_topLevel;    ///< path k is one plain segment (no '.', no backtick)
    bool m_append = false;
    mutable std::string m_pathScratch;
};

} // namespace tideline::keys
