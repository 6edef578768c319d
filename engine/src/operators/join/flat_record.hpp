#pragma once
// FlatRecord: a record serialized into one contiguous block, for the join's buffers.
//
// Why: a buffered record is read again every time it meets a partner (about five times in
// the benchmark), long after it arrived, when it is no longer in cache. A Record is three
// separate heap blocks (the object, its field vector, its arena); a flat block is one, so a
// match costs one cache miss (plus the adjacent lines the prefetcher brings) instead of four.
// The block holds the fields already renamed for output ("left.x" / "right.x"), so a pair is
// built by appending the fields of two blocks, with no names assembled per pair.
//
// Layout: Header, then per field a FieldHead followed by the name bytes and the string bytes,
// padded to 8 bytes.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tideline::flat {

struct Header
{
    std::uint32_t fields = 0;
    std::uint32_t textBytes = 0; ///< name + string bytes (what an output record's arena needs)
    std::uint32_t size = 0;      ///< bytes of the whole block
    std::uint32_t reserved = 0;
};

struct FieldHead
{
    std::uint32_t nameLen = 0;
    std::uint32_t strLen = 0;
    std::uint8_t type = 0;
    std::uint8_t b = 0;
    std::uint8_t pad[6] = {};
    std::int64_t i = 0; ///< Int; Double bits
};

/// Writes `r` into `out` with every field renamed "prefix.name" (an empty record becomes the
/// single field `prefix: {}`), exactly the fields Record::appendNested(prefix, r) would add.
inline void write(std::string &out, std::string_view prefix, const Record &r)
{
    out.assign(sizeof(Header), '\0');
    Header h;
    auto field = [&](std::string_view name, bool nested, const Value &v) {
        FieldHead fh;
        fh.nameLen = static_cast<std::uint32_t>(prefix.size() + (nested ? 1 + name.size() : 0));
        fh.type = static_cast<std::uint8_t>(v.type);
        std::string_view str;
        switch (v.type) {
        case ValueType::Null:
            break;
        case ValueType::Bool:
            fh.b = v.b ? 1 : 0;
            break;
        case ValueType::Int:
            fh.i = v.i;
            break;
        case ValueType::Double:
            std::memcpy(&fh.i, &v.d, 8);
            break;
        case ValueType::String:
        case ValueType::Raw:
            str = v.s;
            fh.strLen = static_cast<std::uint32_t>(str.size());
            break;
        }
        out.append(reinterpret_cast<const char *>(&fh), sizeof fh);
        out.append(prefix);
        if (nested) {
            out += '.';
            out.append(name);
        }
        out.append(str);
        out.append((8 - out.size() % 8) % 8, '\0');
        ++h.fields;
        h.textBytes += fh.nameLen + fh.strLen;
    };
    if (r.empty()) {
        field({}, false, Value::raw("{}"));
    } else {
        for (std::size_t i = 0; i < r.size(); ++i)
            field(r.nameAt(i), true, r.valueAt(i));
    }
    h.size = static_cast<std::uint32_t>(out.size());
    std::memcpy(out.data(), &h, sizeof h);
}

inline Header header(const char *block)
{
    Header h;
    std::memcpy(&h, block, sizeof h);
    return h;
}

/// Calls f(name, value) for each field of a block, in order. Strings point into the block.
template<class F>
void forEachField(const char *block, F &&f)
{
    const Header h = header(block);
    const char *p = block + sizeof(Header);
    for (std::uint32_t k = 0; k < h.fields; ++k) {
        FieldHead fh;
        std::memcpy(&fh, p, sizeof fh);
        p += sizeof fh;
        std::string_view name(p, fh.nameLen);
        p += fh.nameLen;
        Value v;
        v.type = static_cast<ValueType>(fh.type);
        switch (v.type) {
        case ValueType::Null:
            break;
        case ValueType::Bool:
            v.b = fh.b != 0;
            break;
        case ValueType::Int:
            v.i = fh.i;
            break;
        case ValueType::Double:
            std::memcpy(&v.d, &fh.i, 8);
            break;
        case ValueType::String:
        case ValueType::Raw:
            v.s = std::string_view(p, fh.strLen);
            p += fh.strLen;
            break;
        }
        p += (8 - static_cast<std::size_t>(p - block) % 8) % 8;
        f(name, v);
    }
}

/// Appends the block's fields to `out` (which should have room reserved).
inline void appendTo(Record &out, const char *block)
{
    forEachField(block, [&](std::string_view name, const Value &v) { out.append(name, v); });
}

/// The record a block was written from (prefix stripped; `prefix: {}` gives an empty record).
inline Record unprefixed(const char *block, std::string_view prefix)
{
    Record r;
    const Header h = header(block);
    r.reserve(h.fields, h.textBytes);
    forEachField(block, [&](std::string_view name, const Value &v) {
        if (name.size() > prefix.size())
            r.append(name.substr(prefix.size() + 1), v);
    });
    return r;
}

/// Size-classed free lists of blocks (16-byte classes up to 4 KiB), so buffering a record and
/// evicting it allocate nothing in steady state. Holds at most what was live at the peak.
class BlockPool
{
public:
    BlockPool() = default;
    BlockPool(const BlockPool &) = delete;
    BlockPool &operator=(const BlockPool &) = delete;
    ~BlockPool() { clear(); }

    char *take(std::size_t size)
    {
        const std::size_t c = classOf(size);
        if (c < m_free.size() && !m_free[c].empty()) {
            char *p = m_free[c].back();
            m_free[c].pop_back();
            return p;
        }
        return new char[c < kClasses ? (c + 1) * 16 : size];
    }

    void give(char *p, std::size_t size)
    {
        const std::size_t c = classOf(size);
        if (c >= kClasses) {
            delete[] p;
            return;
        }
        if (m_free.size() <= c)
            m_free.resize(c + 1);
        m_free[c].push_back(p);
    }

    void clear()
    {
        for (auto &list : m_free)
            for (char *p : list)
                delete[] p;
        m_free.clear();
    }

private:
    static constexpr std::size_t kClasses = 256;
    static std::size_t classOf(std::size_t size) { return size == 0 ? 0 : (size - 1) / 16; }
    std::vector<std::vector<char *>> m_free;
};

} // namespace tideline::flat
