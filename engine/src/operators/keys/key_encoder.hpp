#pragma once
// Keys of dedup, join, enrich and sink.upsert, encoded as bytes.
//
// The values of a node's key fields are written into a reusable buffer (no allocation per
// record once it has grown): equal JSON values give equal bytes (1 and 1.0 alike, as
// valuesEqual says), several fields concatenate unambiguously, and the byte order follows the
// value order within a type, so a RocksDB table dumped in key order reads naturally.
// (group_key_codec.hpp says why the window keeps its own format; hash.hpp is the one hash.)

#include "operators/keys/hash.hpp"

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::keys {

/// Appends the encoding of one value to `out`.
void appendValue(const Value &v, std::string &out);

class KeyEncoder
{
public:
    KeyEncoder() = default;
    explicit KeyEncoder(std::vector<std::string> paths);

    const std::vector<std::string> &paths() const { return m_paths; }

    /// Encodes the key of `r` into `out` (cleared first). Returns false when some key field is
    /// null or missing (the bytes are still written: a null encodes as a null).
    bool encode(const Record &r, std::string &out);
    /// Encodes one value as a single-field key (enrich tables).
    static void encodeOne(const Value &v, std::string &out)
    {
        out.clear();
        appendValue(v, out);
    }

private:
    std::vector<std::string> m_paths;
    std::vector<int> m_hints; ///< where each field was found last time (same layout, one compare)
};

} // namespace tideline::keys
