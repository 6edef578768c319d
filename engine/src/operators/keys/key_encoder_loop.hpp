#pragma once
// BasicKeyEncoder::encode, the one key-field walk of both key formats. Included only by the
// files that instantiate it next to their format (key_encoder.cpp, group_key_codec.cpp), so
// that the format's value writer inlines into the loop.

#include "operators/keys/field_lookup.hpp"
#include "operators/keys/key_encoder.hpp"

namespace tideline::keys {

template<class Format>
bool BasicKeyEncoder<Format>::encode(const Record &r, std::string &out)
{
    out.clear();
    bool complete = true;
    for (std::size_t k = 0; k < m_paths.size(); ++k) {
        const std::string &path = m_paths[k];
        const int idx = findField(r, path, m_hints[k]);
        if (idx < 0) {
            complete = false;
            Format::missing(r, path, out);
            continue;
        }
        const Value v = r.valueAt(static_cast<std::size_t>(idx));
        if (v.isNull())
            complete = false;
        Format::value(v, out);
    }
    return complete;
}

} // namespace tideline::keys
