#pragma once
// Record: the unit of data flowing through a pipeline.
//
// A record is a JSON object, stored flat for speed: every leaf is one Field whose name is its
// full dotted path ("user.id"), and names and string bytes live in one arena string owned by
// the record (except process-lifetime ones, below). Parsing an event therefore costs no
// allocation per field (two buffers per record, reused when a record is reused), lookups are a
// short linear scan, and nested objects are rebuilt on output from the dotted names. Fields
// sharing a prefix are kept adjacent so the writer can re-nest them in one pass.
//
// Vocabulary: a *path* is a dotted field name; a *Value* is a non-owning view of one field's
// value (strings point into the arena and are valid until the record is next modified).
// Arrays and empty objects are kept as raw JSON text (ValueType::Raw).
//
// Names and strings that live as long as the process (string literals, tables built once,
// names interned with internPath()) are not copied: a field then holds a pointer to them
// instead of an arena offset (StaticPath names, Value::staticString values). A generator that
// writes only such fields fills a record without touching its arena at all.

#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

enum class ValueType : std::uint8_t { Null, Bool, Int, Double, String, Raw };

/// A non-owning view of a value (a field of a record, or a constant).
struct Value
{
    ValueType type = ValueType::Null;
    bool b = false;
    std::int64_t i = 0;
    double d = 0;
    std::string_view s; ///< String bytes (unescaped) or raw JSON text.
    /// s points to bytes that live as long as the process (never freed or changed), so a
    /// record may keep the pointer instead of copying them. Only Value::staticString (and
    /// values read back from such fields) set it.
    bool stable = false;

    static Value null() { return {}; }
    static Value boolean(bool v)
    {
        Value x;
        x.type = ValueType::Bool;
        x.b = v;
        return x;
    }
    static Value integer(std::int64_t v)
    {
        Value x;
        x.type = ValueType::Int;
        x.i = v;
        return x;
    }
    static Value number(double v)
    {
        Value x;
        x.type = ValueType::Double;
        x.d = v;
        return x;
    }
    static Value string(std::string_view v)
    {
        Value x;
        x.type = ValueType::String;
        x.s = v;
        return x;
    }
    /// A string whose bytes live as long as the process (literals, tables built once).
    static Value staticString(std::string_view v)
    {
        Value x;
        x.type = ValueType::String;
        x.s = v;
        x.stable = true;
        return x;
    }
    static Value raw(std::string_view json)
    {
        Value x;
        x.type = ValueType::Raw;
        x.s = json;
        return x;
    }

    bool isNull() const { return type == ValueType::Null; }
    bool isNumber() const { return type == ValueType::Int || type == ValueType::Double; }
    double asDouble() const { return type == ValueType::Int ? static_cast<double>(i) : d; }
};

/// Equality as JSON values (1 == 1.0), used for keys and comparisons.
bool valuesEqual(const Value &a, const Value &b);
/// Total order used where output order must be deterministic: null < bool < number < string < raw.
int compareValues(const Value &a, const Value &b);

/// A field path whose bytes live as long as the process (a string literal, or a name returned
/// by internPath()): records store the pointer instead of copying the bytes.
struct StaticPath
{
    std::string_view s;
    constexpr explicit StaticPath(std::string_view v)
        : s(v)
    {
    }
};

/// Field paths: how records name their fields, and the syntax of `key`, `time_field`, `map`
/// and expressions. A path is keys joined by dots (`user.id` is key `id` inside object
/// `user`); a key that contains a dot or a backtick is written in backticks, a backtick in it
/// doubled: `` `service.name` `` is the top-level key "service.name", `` a.`b.c` `` is key
/// "b.c" inside object "a". Every other byte (spaces, dashes, UTF-8) is plain, and a key may
/// be empty (`{"": 1}` is the path ""). A record's field names are always *canonical* paths:
/// backticks exactly where a key needs them, so equal paths are equal strings and the hot path
/// compares bytes only.
namespace fieldpath {

/// Does `key` need backticks as a path segment (it contains '.' or '`')?
bool needsQuotes(std::string_view key);
/// Appends `key` as one canonical path segment (quoted when it must be).
void appendKey(std::string &out, std::string_view key);
/// The canonical one-segment path of `key`.
std::string quoteKey(std::string_view key);
/// End of the segment of `path` that starts at `pos`: the index of the '.' that follows it, or
/// path.size(). Works on any text (an unclosed quote runs to the end).
std::size_t segmentEnd(std::string_view path, std::size_t pos);
/// The key a segment stands for (backticks removed, doubled backticks undone).
void appendUnquoted(std::string &out, std::string_view segment);
/// The keys of a path, top-level first.
std::vector<std::string> keys(std::string_view path);
/// Reads the backtick-quoted key that starts at text[i] == '`' into `key` (a doubled backtick
/// inside stands for one), leaving `i` after the closing backtick. False when it is never
/// closed (`i` is then text.size()). Shared by canonical() and the expression lexer.
[[nodiscard]] bool readQuotedKey(std::string_view text, std::size_t &i, std::string &key);
/// Reads a path as a user wrote it (a param, an expression) into its canonical form. False
/// with `error` set (and `errorAt`, a byte offset) when it is not a path: an unclosed backtick,
/// a backtick inside a plain key, text after a closing backtick.
bool canonical(std::string_view text,
               std::string &out,
               std::string &error,
               std::size_t *errorAt = nullptr);
/// True when `text` is a path already in canonical form.
bool isCanonical(std::string_view text);

} // namespace fieldpath

/// A process-lifetime copy of path, the same one for equal paths: for names known when a
/// pipeline is built (map's `set` keys, ...). Thread-safe; the copies are never freed, so use
/// it for names from pipeline files, not for names read from data.
StaticPath internPath(std::string_view path);

class Record
{
public:
    /// One leaf, 24 bytes. Name and string bytes are either in the arena (offsets) or in
    /// process-lifetime storage (pointers), told apart by nameStatic / strStatic.
    struct Field
    {
        union {
            const char *ptr;
            std::size_t off;
        } name;
        union {
            std::int64_t i; ///< Int, and Bool as 0/1
            double d;
            const char *ptr; ///< String/Raw bytes when strStatic
            std::size_t off; ///< String/Raw bytes in the arena otherwise
        } v;
        /// nameLen (bits 0-23: paths are limited to 16 MiB, records to 1 MiB) | type (24-26)
        /// | nameStatic (27) | strStatic (28) | strLen (32-63). One plain word, so a field is
        /// written with three stores and never read back half-written.
        std::uint64_t meta = 0;

        static constexpr std::uint64_t kNameStatic = std::uint64_t(1) << 27;
        static constexpr std::uint64_t kStrStatic = std::uint64_t(1) << 28;

        Field()
        {
            name.off = 0;
            v.i = 0;
        }
        std::uint32_t nameLen() const { return static_cast<std::uint32_t>(meta & 0xFFFFFF); }
        ValueType type() const { return static_cast<ValueType>((meta >> 24) & 7); }
        bool nameStatic() const { return (meta & kNameStatic) != 0; }
        bool strStatic() const { return (meta & kStrStatic) != 0; }
        std::uint32_t strLen() const { return static_cast<std::uint32_t>(meta >> 32); }
        /// The name part of meta (length and nameStatic).
        std::uint64_t nameBits() const { return meta & (0xFFFFFF | kNameStatic); }
    };

    /// Event time, assigned by a `watermark` node (kMinTime until then).
    Timestamp time = kMinTime;
    /// Source partition the record came from (only meaningful up to the first watermark node).
    std::uint32_t partition = 0;

    Record() = default;
    Record(const Record &) = default;
    Record(Record &&) noexcept = default;
    Record &operator=(const Record &) = default;
    Record &operator=(Record &&) noexcept = default;
    /// Gives the buffers back to a small per-thread pool: records are created by sources and
    /// destroyed at sinks and windows on the same loop thread, so steady state needs no malloc.
    ~Record();

    std::size_t size() const { return m_fields.size(); }
    bool empty() const { return m_fields.empty(); }
    std::string_view nameAt(std::size_t i) const { return nameOf(m_fields[i]); }
    Value valueAt(std::size_t i) const
    {
        const Field &f = m_fields[i];
        Value v;
        v.type = f.type();
        switch (v.type) {
        case ValueType::Null:
            break;
        case ValueType::Bool:
            v.b = f.v.i != 0;
            break;
        case ValueType::Int:
            v.i = f.v.i;
            break;
        case ValueType::Double:
            v.d = f.v.d;
            break;
        case ValueType::String:
        case ValueType::Raw:
            v.s = std::string_view(f.strStatic() ? f.v.ptr : m_arena.data() + f.v.off, f.strLen());
            v.stable = f.strStatic();
            break;
        }
        return v;
    }

    /// Index of the field with exactly this path, or -1.
    int indexOf(std::string_view path) const;
    /// The value at path; Null when missing (use has() to tell missing from null).
    Value get(std::string_view path) const;
    bool has(std::string_view path) const { return indexOf(path) >= 0 || hasObject(path); }
    /// True when some field lives under "path." (path names a nested object).
    bool hasObject(std::string_view path) const;

    /// Sets (or replaces) the field at path. String bytes are copied into the arena, so v may
    /// point into this record. Setting a path removes fields nested under it.
    void set(std::string_view path, const Value &v);
    /// set() with a process-lifetime name (not copied when the field is new).
    void set(StaticPath path, const Value &v);
    void setInt(std::string_view path, std::int64_t v) { set(path, Value::integer(v)); }
    void setDouble(std::string_view path, double v) { set(path, Value::number(v)); }
    void setString(std::string_view path, std::string_view v) { set(path, Value::string(v)); }
    void setBool(std::string_view path, bool v) { set(path, Value::boolean(v)); }
    void setNull(std::string_view path) { set(path, Value::null()); }

    /// Appends a field without checking for an existing one: for parsers and builders that know
    /// the path is new and that fields sharing a prefix arrive together.
    void append(std::string_view path, const Value &v);
    /// append() with a process-lifetime name: the name is not copied.
    [[gnu::always_inline]] inline void append(StaticPath path, const Value &v)
    {
        // Inline fast path (generators, the JSON fast path): room for one more field, and no
        // bytes to copy or room for them in the arena (which then does not move, so v.s may
        // even point into it).
        if (m_fields.size() < m_fields.capacity() && path.s.size() < kMaxPathLen) {
            const bool bytes
                = (v.type == ValueType::String || v.type == ValueType::Raw) && !v.stable;
            // Written in place with whole-word stores (a copy of a local Field through the
            // out-of-line push_back stalled on store forwarding).
            const std::uint64_t nameBits = path.s.size() | Field::kNameStatic;
            if (!bytes) {
                Field &f = m_fields.emplace_back();
                f.name.ptr = path.s.data();
                setValue(f, nameBits, v, 0);
                return;
            }
            if (m_arena.capacity() - m_arena.size() >= v.s.size()) {
                const std::size_t off = m_arena.size();
                m_arena.append(v.s.data(), v.s.size());
                Field &f = m_fields.emplace_back();
                f.name.ptr = path.s.data();
                setValue(f, nameBits, v, off);
                return;
            }
        }
        appendImpl(path.s, true, v);
    }
    /// Copies all of other's fields under "prefix." (an empty record becomes `prefix: {}`).
    void appendNested(std::string_view prefix, const Record &other);
    /// Removes the field at path and everything nested under it. Returns whether any existed.
    bool remove(std::string_view path);
    /// Keeps only the listed paths (and what is nested under them), in their current order.
    void keepOnly(const std::vector<std::string> &paths);
    /// What keepOnly(paths) kept for a few record shapes: a shape is the sequence of a record's
    /// field names when all are process-lifetime (StaticPath) names, compared by pointer. One
    /// cache per caller and paths list (a map node keeps one for its `keep`).
    struct KeepCache
    {
        struct Shape
        {
            std::vector<const char *> names;
            std::vector<std::uint8_t> keep;
        };
        std::vector<Shape> shapes; ///< at most kShapes, replaced round-robin
        std::size_t next = 0;
        static constexpr std::size_t kShapes = 8;
    };
    /// keepOnly(paths) that, for records whose shape is in the cache, filters by the cached
    /// decision instead of comparing names. `cache` must always be used with the same paths.
    void keepOnly(const std::vector<std::string> &paths, KeepCache &cache);

    void clear()
    {
        m_fields.clear();
        m_arena.clear();
        time = kMinTime;
        partition = 0;
    }
    void reserve(std::size_t fields, std::size_t bytes)
    {
        takePooledBuffers();
        m_fields.reserve(fields);
        m_arena.reserve(bytes);
    }
    /// Approximate heap bytes held, for state_bytes accounting.
    std::size_t byteSize() const
    {
        return sizeof(Record) + m_fields.size() * sizeof(Field) + m_arena.size();
    }

    bool operator==(const Record &o) const;

private:
    std::string_view nameOf(const Field &f) const
    {
        return {f.nameStatic() ? f.name.ptr : m_arena.data() + f.name.off, f.nameLen()};
    }
    void takePooledBuffers();
    void makeRoom(std::size_t need, std::string_view &a, std::string_view &b);
    std::size_t addBytes(std::string_view bytes);
    void setName(Field &f, std::string_view path);
    /// Stores v and the name bits in f; strings that are not stable were copied to strOff by
    /// the caller.
    [[gnu::always_inline]] static void
    setValue(Field &f, std::uint64_t nameBits, const Value &v, std::size_t strOff)
    {
        std::uint64_t m = nameBits | (static_cast<std::uint64_t>(v.type) << 24);
        switch (v.type) {
        case ValueType::Null:
            f.v.i = 0;
            break;
        case ValueType::Bool:
            f.v.i = v.b ? 1 : 0;
            break;
        case ValueType::Int:
            f.v.i = v.i;
            break;
        case ValueType::Double:
            f.v.d = v.d;
            break;
        case ValueType::String:
        case ValueType::Raw:
            m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(v.s.size())) << 32;
            if (v.stable) {
                m |= Field::kStrStatic;
                f.v.ptr = v.s.data();
            } else {
                f.v.off = strOff;
            }
            break;
        }
        f.meta = m;
    }
    static constexpr std::size_t kMaxPathLen = std::size_t(1) << 24;
    void setImpl(std::string_view path, bool staticName, const Value &v);
    void appendImpl(std::string_view path, bool staticName, const Value &v);
    void insertGrouped(const Field &f);

    std::vector<Field> m_fields;
    std::string m_arena;
};

} // namespace tideline
