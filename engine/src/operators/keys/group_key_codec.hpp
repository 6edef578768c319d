#pragma once
// Grouping keys of the window node, encoded as bytes (the window's half of the key encoders;
// key_encoder.hpp is the other, for dedup, join, enrich, top and sink.upsert).
//
// Why two byte formats: both are inside checkpoints (window state stores these keys, dedup
// state the others), and their properties differ on purpose: this one is native-endian with a
// nested-object form and decodes back to values (window results carry the key fields, sorted
// by compareValues); the other is order-preserving and says when a field is null. What they
// share lives once: the field lookup (field_lookup.hpp) and the hash (hash.hpp). (Each keeps
// its own bound for "an integral double keys as the integer": 2^53 here, 9.2e18 there; the
// bytes of both are in checkpoints, so neither bound can move.)
//
// A key (the values of the node's `key` fields in one record) is written into a reusable byte
// buffer so that the per-record path costs no allocation: the bytes are hashed, compared with
// memcmp against stored keys, and copied into state only when a key is new. Equal JSON values
// encode to equal bytes (1 and 1.0 group together, as valuesEqual says), and a key field that
// names a nested object ("user" when records carry user.id, user.name) encodes every field
// under it, so grouping by an object works too.

#include "operators/keys/field_lookup.hpp"
#include "operators/keys/hash.hpp"

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::keys {

class GroupKeyCodec
{
public:
    explicit GroupKeyCodec(std::vector<std::string> paths);

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

} // namespace tideline::keys
