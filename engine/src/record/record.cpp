// Record: its field storage (names interned or in the arena, pooled buffers) and the
// operations that add, replace, nest, remove and keep fields. Comparing values is
// value_compare.cpp; path syntax is field_path.cpp.
#include "record/buffer_pool.hpp"

#include <tideline/engine/record.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace tideline {

namespace {

std::uint64_t load8(const char *p)
{
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

std::uint32_t load4(const char *p)
{
    std::uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

/// memcmp(a, b, n) == 0 for the short names records hold, without a libc call: two
/// overlapping loads cover 4..16 bytes. Interned names often share their pointer.
inline bool sameBytes(const char *a, const char *b, std::size_t n)
{
    if (a == b)
        return true;
    if (n >= 8) {
        if (n <= 16)
            return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
        return std::memcmp(a, b, n) == 0;
    }
    if (n >= 4)
        return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

bool isUnder(std::string_view name, std::string_view path)
{
    return name.size() > path.size() && name[path.size()] == '.'
           && sameBytes(name.data(), path.data(), path.size());
}

/// The first path segment ("user" of "user.id", "`a.b`" of "`a.b`.c").
std::string_view topSegment(std::string_view path)
{
    return path.substr(0, fieldpath::segmentEnd(path, 0));
}

/// Per-thread free lists of record buffers (bounded, so a burst does not pin memory).
struct BufferPool
{
    static constexpr std::size_t kMax = 512;
    std::size_t max = kMax; ///< Record::setBufferPoolLimit
    std::vector<std::vector<Record::Field>> fields;
    std::vector<std::string> arenas;
};
thread_local BufferPool t_pool;

} // namespace

StaticPath internPath(std::string_view path)
{
    // Node-based set: an element's bytes never move once inserted.
    static std::mutex mutex;
    static auto *names = new std::unordered_set<std::string>; // never freed, by design
    std::lock_guard<std::mutex> lock(mutex);
    auto it = names->emplace(path).first;
    return StaticPath(*it);
}

Record::~Record()
{
    if (m_fields.capacity() != 0 && m_fields.capacity() <= 64
        && t_pool.fields.size() < t_pool.max) {
        m_fields.clear();
        t_pool.fields.push_back(std::move(m_fields));
    }
    if (m_arena.capacity() > 15 && m_arena.capacity() <= 4096
        && t_pool.arenas.size() < t_pool.max) {
        m_arena.clear();
        t_pool.arenas.push_back(std::move(m_arena));
    }
}

void setRecordBufferPoolLimit(std::size_t buffers)
{
    t_pool.max = std::max(buffers, BufferPool::kMax);
}

void Record::takePooledBuffers()
{
    if (m_fields.capacity() == 0 && !t_pool.fields.empty()) {
        m_fields = std::move(t_pool.fields.back());
        t_pool.fields.pop_back();
    }
    if (m_arena.empty() && m_arena.capacity() <= 15 && !t_pool.arenas.empty()) {
        m_arena = std::move(t_pool.arenas.back());
        t_pool.arenas.pop_back();
    }
}

int Record::indexOf(std::string_view path) const
{
    const std::size_t n = m_fields.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Field &f = m_fields[i];
        if (f.nameLen() == path.size()
            && sameBytes(f.nameStatic() ? f.name.ptr : m_arena.data() + f.name.off, path.data(),
                         path.size()))
            return static_cast<int>(i);
    }
    return -1;
}

Value Record::get(std::string_view path) const
{
    int i = indexOf(path);
    return i < 0 ? Value{} : valueAt(static_cast<std::size_t>(i));
}

bool Record::hasObject(std::string_view path) const
{
    for (std::size_t i = 0; i < m_fields.size(); ++i)
        if (isUnder(nameAt(i), path))
            return true;
    return false;
}

void Record::makeRoom(std::size_t need, std::string_view &a, std::string_view &b)
{
    if (m_arena.size() + need <= m_arena.capacity())
        return;
    // a and b may point into our own arena: re-point them after it moves.
    const char *old = m_arena.data();
    const std::size_t oldSize = m_arena.size();
    auto inside = [&](std::string_view s) {
        return !s.empty() && s.data() >= old && s.data() < old + oldSize;
    };
    const bool aIn = inside(a), bIn = inside(b);
    const std::size_t aOff = aIn ? static_cast<std::size_t>(a.data() - old) : 0;
    const std::size_t bOff = bIn ? static_cast<std::size_t>(b.data() - old) : 0;
    m_arena.reserve(std::max(oldSize + need, 2 * m_arena.capacity()));
    if (aIn)
        a = std::string_view(m_arena.data() + aOff, a.size());
    if (bIn)
        b = std::string_view(m_arena.data() + bOff, b.size());
}

std::size_t Record::addBytes(std::string_view bytes)
{
    // Callers made room first (makeRoom), so this never reallocates under `bytes`.
    std::size_t off = m_arena.size();
    m_arena.append(bytes.data(), bytes.size());
    return off;
}

namespace {

bool copiesString(const Value &v)
{
    return (v.type == ValueType::String || v.type == ValueType::Raw) && !v.stable;
}

void checkPathLength(std::string_view path)
{
    if (path.size() >= (std::size_t(1) << 24)) // Field::meta holds 24 bits of length
        throw std::length_error("record field path longer than 16 MiB");
}

} // namespace

void Record::appendImpl(std::string_view path, bool staticName, const Value &v)
{
    if (m_fields.capacity() == 0)
        takePooledBuffers();
    checkPathLength(path);
    const bool copyStr = copiesString(v);
    std::string_view str = copyStr ? v.s : std::string_view();
    const std::size_t need = (staticName ? 0 : path.size()) + str.size();
    if (need)
        makeRoom(need, path, str);
    Field f;
    if (staticName)
        f.name.ptr = path.data();
    else
        f.name.off = addBytes(path);
    setValue(f, path.size() | (staticName ? Field::kNameStatic : 0), v,
             copyStr ? addBytes(str) : 0);
    m_fields.push_back(f);
}

void Record::append(std::string_view path, const Value &v)
{
    appendImpl(path, false, v);
}

void Record::insertGrouped(const Field &f)
{
    // Keep fields that share a top-level segment adjacent, so writers re-nest in one pass:
    // insert after the last field whose name starts with the same top segment.
    std::string_view path = nameOf(f);
    std::string_view top = topSegment(path);
    std::size_t insertAt = m_fields.size();
    if (top.size() != path.size()) {
        for (std::size_t i = m_fields.size(); i-- > 0;) {
            std::string_view n = nameAt(i);
            if (topSegment(n) == top) {
                insertAt = i + 1;
                break;
            }
        }
    }
    m_fields.insert(m_fields.begin() + static_cast<std::ptrdiff_t>(insertAt), f);
}

void Record::setImpl(std::string_view path, bool staticName, const Value &v)
{
    if (m_fields.capacity() == 0)
        takePooledBuffers();
    checkPathLength(path);
    const bool copyStr = copiesString(v);
    std::string_view str = copyStr ? v.s : std::string_view();
    // Make room for both copies up front: path and v.s may point into this record's arena.
    const std::size_t need = (staticName ? 0 : path.size()) + str.size();
    if (need)
        makeRoom(need, path, str);
    const std::size_t strOff = copyStr ? addBytes(str) : 0;
    // One scan finds the field itself, fields nested under it and scalars on its parent path.
    int existing = -1;
    bool under = false, parent = false;
    for (std::size_t i = 0; i < m_fields.size(); ++i) {
        const Field &f = m_fields[i];
        const char *n = f.nameStatic() ? f.name.ptr : m_arena.data() + f.name.off;
        const std::size_t len = f.nameLen();
        if (len == path.size()) {
            if (sameBytes(n, path.data(), len)) {
                existing = static_cast<int>(i);
                break;
            }
        } else if (len > path.size()) {
            under = under || (n[path.size()] == '.' && sameBytes(n, path.data(), path.size()));
        } else {
            parent = parent || (path[len] == '.' && sameBytes(n, path.data(), len));
        }
    }
    if (existing >= 0) {
        Field &f = m_fields[static_cast<std::size_t>(existing)];
        setValue(f, f.nameBits(), v, strOff);
        return;
    }
    // Setting "a" replaces an object "a.*"; setting "a.b" replaces a scalar "a".
    if (under)
        remove(path);
    if (parent) {
        for (std::size_t pos = fieldpath::segmentEnd(path, 0); pos < path.size();
             pos = fieldpath::segmentEnd(path, pos + 1)) {
            int p = indexOf(path.substr(0, pos));
            if (p >= 0)
                m_fields.erase(m_fields.begin() + p);
        }
    }
    Field f;
    if (staticName)
        f.name.ptr = path.data();
    else
        f.name.off = addBytes(path);
    setValue(f, path.size() | (staticName ? Field::kNameStatic : 0), v, strOff);
    insertGrouped(f);
}

void Record::set(std::string_view path, const Value &v)
{
    setImpl(path, false, v);
}

void Record::set(StaticPath path, const Value &v)
{
    setImpl(path.s, true, v);
}

void Record::appendNested(std::string_view prefix, const Record &other)
{
    if (&other == this) {
        const Record copy(other);
        appendNested(prefix, copy);
        return;
    }
    remove(prefix);
    if (other.empty()) {
        set(prefix, Value::raw("{}"));
        return;
    }
    if (m_fields.capacity() == 0)
        takePooledBuffers();
    checkPathLength(prefix);
    // One reservation for every name and copied string, then plain appends: no temporary
    // name string, and other's process-lifetime strings are shared, not copied.
    std::size_t need = 0;
    for (const Field &of : other.m_fields) {
        checkPathLength(std::string_view(prefix.data(), prefix.size() + 1 + of.nameLen()));
        need += prefix.size() + 1 + of.nameLen();
        if ((of.type() == ValueType::String || of.type() == ValueType::Raw) && !of.strStatic())
            need += of.strLen();
    }
    std::string_view unused;
    makeRoom(need, prefix, unused);
    m_fields.reserve(m_fields.size() + other.m_fields.size());
    for (const Field &of : other.m_fields) {
        Field f = of;
        f.name.off = m_arena.size();
        f.meta = (of.meta & ~(std::uint64_t(0xFFFFFF) | Field::kNameStatic))
                 | (prefix.size() + 1 + of.nameLen());
        m_arena.append(prefix.data(), prefix.size());
        m_arena.push_back('.');
        std::string_view n = other.nameOf(of);
        m_arena.append(n.data(), n.size());
        if ((of.type() == ValueType::String || of.type() == ValueType::Raw) && !of.strStatic()) {
            f.v.off = m_arena.size();
            m_arena.append(other.m_arena.data() + of.v.off, of.strLen());
        }
        m_fields.push_back(f);
    }
}

bool Record::remove(std::string_view path)
{
    std::size_t before = m_fields.size();
    std::erase_if(m_fields, [&](const Field &f) {
        std::string_view n = nameOf(f);
        return (n.size() == path.size() && sameBytes(n.data(), path.data(), n.size()))
               || isUnder(n, path);
    });
    return m_fields.size() != before;
}

namespace {

/// Whether keepOnly(paths) keeps a field named n (len bytes).
bool keptBy(const std::vector<std::string> &paths, const char *n, std::size_t len)
{
    // Lengths first: most (field, path) pairs differ in length and never compare bytes.
    for (const auto &p : paths) {
        const std::size_t pl = p.size();
        if (len == pl) {
            if (sameBytes(n, p.data(), pl))
                return true;
        } else if (len > pl && n[pl] == '.' && sameBytes(n, p.data(), pl)) {
            return true;
        }
    }
    return false;
}

} // namespace

void Record::keepOnly(const std::vector<std::string> &paths)
{
    std::erase_if(m_fields, [&](const Field &f) {
        return !keptBy(paths, f.nameStatic() ? f.name.ptr : m_arena.data() + f.name.off,
                       f.nameLen());
    });
}

void Record::keepOnly(const std::vector<std::string> &paths, KeepCache &cache)
{
    const std::size_t n = m_fields.size();
    const KeepCache::Shape *hit = nullptr;
    for (const auto &shape : cache.shapes) {
        if (shape.names.size() != n)
            continue;
        std::size_t i = 0;
        while (i < n && m_fields[i].nameStatic() && m_fields[i].name.ptr == shape.names[i])
            ++i;
        if (i == n) {
            hit = &shape;
            break;
        }
    }
    if (!hit) {
        bool allStatic = true;
        for (const Field &f : m_fields)
            allStatic = allStatic && f.nameStatic();
        if (!allStatic || n == 0) {
            keepOnly(paths);
            return;
        }
        KeepCache::Shape shape;
        for (const Field &f : m_fields) {
            shape.names.push_back(f.name.ptr);
            shape.keep.push_back(keptBy(paths, f.name.ptr, f.nameLen()) ? 1 : 0);
        }
        if (cache.shapes.size() < KeepCache::kShapes) {
            cache.shapes.push_back(std::move(shape));
            hit = &cache.shapes.back();
        } else {
            std::size_t slot = cache.next++ % KeepCache::kShapes;
            cache.shapes[slot] = std::move(shape);
            hit = &cache.shapes[slot];
        }
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (hit->keep[i])
            m_fields[out++] = m_fields[i];
    m_fields.resize(out);
}

} // namespace tideline
