#pragma once
// The one key encoder of the keyed-state toolkit: the values of a node's key fields, written
// into a reusable buffer (no allocation per record once it has grown), to be hashed
// (hash.hpp, the one hash), compared with memcmp and copied into state only when new.
//
// BasicKeyEncoder walks the key fields (field_lookup.hpp: one string compare per field for
// records of one layout) and hands each value to its Format, which writes the bytes. There are
// two formats because both are inside checkpoints (neither can change):
// - OrderedFormat (here; dedup, join, top, window_join, enrich, sink.upsert): equal JSON values
//   give equal bytes (1 and 1.0 alike, as valuesEqual says), several fields concatenate
//   unambiguously, and the byte order follows the value order within a type, so a RocksDB
//   table dumped in key order reads naturally;
// - GroupFormat (group_key_codec.hpp; the window): decodes back to values and keys a field that
//   names a nested object by every field under it.
// The loop is written once (key_encoder_loop.hpp) and instantiated next to each format, so the
// per-value writer inlines into it as before.

#include "operators/keys/field_lookup.hpp"
#include "operators/keys/hash.hpp"

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::keys {

/// Appends the encoding of one value to `out` (OrderedFormat).
void appendValue(const Value &v, std::string &out);

template<class Format>
class BasicKeyEncoder
{
public:
    BasicKeyEncoder() = default;
    explicit BasicKeyEncoder(std::vector<std::string> paths)
        : m_paths(std::move(paths))
        , m_hints(m_paths.size(), -1)
    {
    }

    const std::vector<std::string> &paths() const { return m_paths; }
    bool empty() const { return m_paths.empty(); }

    /// Encodes the key of `r` into `out` (cleared first). Returns false when some key field is
    /// null or missing (the bytes are still written: the format says how).
    bool encode(const Record &r, std::string &out);
    /// Encodes one value as a single-field key (enrich tables).
    static void encodeOne(const Value &v, std::string &out)
    {
        out.clear();
        Format::value(v, out);
    }

private:
    std::vector<std::string> m_paths;
    std::vector<int> m_hints; ///< where each field was found last time (same layout, one compare)
};

/// Order-preserving, says when a field is null (key_encoder.cpp).
struct OrderedFormat
{
    static void value(const Value &v, std::string &out) { appendValue(v, out); }
    /// A missing field keys as null.
    static void missing(const Record &, std::string_view, std::string &out)
    {
        appendValue(Value::null(), out);
    }
};

using KeyEncoder = BasicKeyEncoder<OrderedFormat>;
extern template class BasicKeyEncoder<OrderedFormat>;

} // namespace tideline::keys
