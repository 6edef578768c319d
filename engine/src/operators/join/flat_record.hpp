#pragma once
// FlatRecord: a record serialized into one contiguous block, for the join's buffers.
//
// Why: a buffered record is read again every time it meets a partner (about five times in
// the benchmark), long after it arrived, when it is no longer in cache. A Record is three
// separate heap blocks (the object, its field vector, its arena); a flat block is one, so a
// match costs one cache miss instead of four. The fields are already renamed for output
// ("left.x" / "right.x"), so a pair is built by appending the fields of two blocks, with no
// names assembled per pair.
//
// Shapes: records of a stream nearly always have the same field names in the same order. A
// Codec interns each such list of names once (a Shape, with the renamed names) and a block
// then holds only the shape number, one type byte per field and 8 bytes per value (plus string
// bytes): a record of five numbers is 64 bytes, one cache line, instead of ~220 with its
// names. The number of shapes is bounded (kMaxShapes); records of other shapes, and empty
// records, are written self-describing (names inline).
//
// Layouts (after the Header):
//   shaped:          type bytes (padded to 8), 8 bytes per field (number, bool, or string
//                    offset/length in the block), string bytes
//   self-describing: per field a FieldHead, the name bytes and the string bytes, padded to 8

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tideline::flat {

struct Header
{
    std::uint32_t fields = 0;
    std::uint32_t textBytes = 0; ///< name + string bytes (what an output record's arena needs)
    std::uint32_t size = 0;      ///< bytes of the whole block
    std::uint32_t shape = 0;     ///< index in the codec's shapes, or Codec::kSelfDescribing
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

inline Header header(const char *block)
{
    Header h;
    std::memcpy(&h, block, sizeof h);
    return h;
}

/// Writes and reads blocks for one side of a join ("left" or "right").
class Codec
{
public:
    static constexpr std::uint32_t kSelfDescribing = 0xffffffffu;
    static constexpr std::size_t kMaxShapes = 1024;

    explicit Codec(std::string_view prefix)
        : m_prefix(prefix)
    {
    }

    /// Writes `r` into `out` with every field renamed "prefix.name" (an empty record becomes
    /// the single field `prefix: {}`): exactly the fields Record::appendNested(prefix, r) adds.
    void write(std::string &out, const Record &r)
    {
        const std::uint32_t shape = r.empty() ? kSelfDescribing : shapeOf(r);
        if (shape == kSelfDescribing) {
            writeSelfDescribing(out, r);
            return;
        }
        const Shape &sh = m_shapes[shape];
        const std::size_t n = r.size();
        const std::size_t typesEnd = sizeof(Header) + pad8(n);
        out.assign(typesEnd + 8 * n, '\0');
        Header h;
        h.fields = static_cast<std::uint32_t>(n);
        h.shape = shape;
        std::uint32_t strBytes = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const Value v = r.valueAt(i);
            out[sizeof(Header) + i] = static_cast<char>(v.type);
            std::uint64_t word = 0;
            switch (v.type) {
            case ValueType::Null:
                break;
            case ValueType::Bool:
                word = v.b ? 1 : 0;
                break;
            case ValueType::Int:
                word = static_cast<std::uint64_t>(v.i);
                break;
            case ValueType::Double:
                std::memcpy(&word, &v.d, 8);
                break;
            case ValueType::String:
            case ValueType::Raw:
                word = (static_cast<std::uint64_t>(v.s.size()) << 32) | out.size();
                out.append(v.s);
                strBytes += static_cast<std::uint32_t>(v.s.size());
                break;
            }
            std::memcpy(out.data() + typesEnd + 8 * i, &word, 8);
        }
        out.append(pad8(out.size()) - out.size(), '\0');
        h.textBytes = sh.nameBytes + strBytes;
        h.size = static_cast<std::uint32_t>(out.size());
        std::memcpy(out.data(), &h, sizeof h);
    }

    /// Calls f(name, value) for each field of a block, in order. Strings point into the block.
    template<class F>
    void forEachField(const char *block, F &&f) const
    {
        const Header h = header(block);
        if (h.shape == kSelfDescribing) {
            forEachSelfDescribing(block, h, f);
            return;
        }
        const Shape &sh = m_shapes[h.shape];
        const char *types = block + sizeof(Header);
        const char *words = block + sizeof(Header) + pad8(h.fields);
        for (std::uint32_t i = 0; i < h.fields; ++i) {
            std::uint64_t word;
            std::memcpy(&word, words + 8 * i, 8);
            Value v;
            v.type = static_cast<ValueType>(types[i]);
            switch (v.type) {
            case ValueType::Null:
                break;
            case ValueType::Bool:
                v.b = word != 0;
                break;
            case ValueType::Int:
                v.i = static_cast<std::int64_t>(word);
                break;
            case ValueType::Double:
                std::memcpy(&v.d, &word, 8);
                break;
            case ValueType::String:
            case ValueType::Raw:
                v.s = std::string_view(block + static_cast<std::uint32_t>(word), word >> 32);
                break;
            }
            f(sh.name(i), v);
        }
    }

    /// Appends the block's fields to `out` (which should have room reserved).
    void appendTo(Record &out, const char *block) const
    {
        forEachField(block, [&](std::string_view name, const Value &v) { out.append(name, v); });
    }

    /// The record a block was written from (prefix stripped; `prefix: {}` gives an empty
    /// record). Event time is not part of a block.
    Record unprefixed(const char *block) const
    {
        Record r;
        const Header h = header(block);
        r.reserve(h.fields, h.textBytes);
        forEachField(block, [&](std::string_view name, const Value &v) {
            if (name.size() > m_prefix.size())
                r.append(name.substr(m_prefix.size() + 1), v);
        });
        return r;
    }

    std::size_t shapes() const { return m_shapes.size(); }

private:
    struct Shape
    {
        std::string names;               ///< renamed names ("left.x"), concatenated
        std::vector<std::uint32_t> ends; ///< end offset of each name in `names`
        std::uint32_t nameBytes = 0;
        std::string_view name(std::size_t i) const
        {
            const std::uint32_t b = i == 0 ? 0 : ends[i - 1];
            return std::string_view(names).substr(b, ends[i] - b);
        }
        /// Same names as r, in order (names without the prefix).
        bool matches(const Record &r, std::size_t prefixLen) const
        {
            if (r.size() != ends.size())
                return false;
            for (std::size_t i = 0; i < ends.size(); ++i)
                if (name(i).substr(prefixLen + 1) != r.nameAt(i))
                    return false;
            return true;
        }
    };

    static std::size_t pad8(std::size_t n) { return (n + 7) & ~std::size_t(7); }

    std::uint32_t shapeOf(const Record &r)
    {
        // Streams repeat one shape: check the last one first (a few short compares).
        if (m_last != kSelfDescribing && m_shapes[m_last].matches(r, m_prefix.size()))
            return m_last;
        m_key.clear();
        for (std::size_t i = 0; i < r.size(); ++i) {
            const std::string_view n = r.nameAt(i);
            const auto len = static_cast<std::uint32_t>(n.size());
            m_key.append(reinterpret_cast<const char *>(&len), 4);
            m_key.append(n);
        }
        if (auto it = m_index.find(m_key); it != m_index.end())
            return m_last = it->second;
        if (m_shapes.size() >= kMaxShapes)
            return kSelfDescribing;
        Shape sh;
        for (std::size_t i = 0; i < r.size(); ++i) {
            sh.names += m_prefix;
            sh.names += '.';
            sh.names += r.nameAt(i);
            sh.ends.push_back(static_cast<std::uint32_t>(sh.names.size()));
        }
        sh.nameBytes = static_cast<std::uint32_t>(sh.names.size());
        m_shapes.push_back(std::move(sh));
        const auto id = static_cast<std::uint32_t>(m_shapes.size() - 1);
        m_index.emplace(m_key, id);
        return m_last = id;
    }

    void writeSelfDescribing(std::string &out, const Record &r) const
    {
        out.assign(sizeof(Header), '\0');
        Header h;
        h.shape = kSelfDescribing;
        auto field = [&](std::string_view name, bool nested, const Value &v) {
            FieldHead fh;
            fh.nameLen
                = static_cast<std::uint32_t>(m_prefix.size() + (nested ? 1 + name.size() : 0));
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
            out.append(m_prefix);
            if (nested) {
                out += '.';
                out.append(name);
            }
            out.append(str);
            out.append(pad8(out.size()) - out.size(), '\0');
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

    template<class F>
    static void forEachSelfDescribing(const char *block, const Header &h, F &&f)
    {
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
            p += pad8(static_cast<std::size_t>(p - block)) - static_cast<std::size_t>(p - block);
            f(name, v);
        }
    }

    std::string m_prefix;
    std::vector<Shape> m_shapes;
    std::unordered_map<std::string, std::uint32_t> m_index; ///< names (length-prefixed) -> shape
    std::uint32_t m_last = kSelfDescribing;
    std::string m_key;
};

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

    /// Frees a block for good instead of keeping it for reuse (spilled state leaves memory).
    static void drop(char *p) { delete[] p; }

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
