#include <tideline/engine/record.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tideline {

namespace {

bool isUnder(std::string_view name, std::string_view path)
{
    return name.size() > path.size() && name[path.size()] == '.' && name.starts_with(path);
}

/// The first path segment ("user" of "user.id").
std::string_view topSegment(std::string_view path)
{
    auto dot = path.find('.');
    return dot == std::string_view::npos ? path : path.substr(0, dot);
}

int typeRank(ValueType t)
{
    switch (t) {
    case ValueType::Null:
        return 0;
    case ValueType::Bool:
        return 1;
    case ValueType::Int:
    case ValueType::Double:
        return 2;
    case ValueType::String:
        return 3;
    case ValueType::Raw:
        return 4;
    }
    return 5;
}

/// Per-thread free lists of record buffers (bounded, so a burst does not pin memory).
struct BufferPool
{
    static constexpr std::size_t kMax = 512;
    std::vector<std::vector<Record::Field>> fields;
    std::vector<std::string> arenas;
};
thread_local BufferPool t_pool;

} // namespace

Record::~Record()
{
    if (m_fields.capacity() != 0 && m_fields.capacity() <= 64
        && t_pool.fields.size() < BufferPool::kMax) {
        m_fields.clear();
        t_pool.fields.push_back(std::move(m_fields));
    }
    if (m_arena.capacity() > 15 && m_arena.capacity() <= 4096
        && t_pool.arenas.size() < BufferPool::kMax) {
        m_arena.clear();
        t_pool.arenas.push_back(std::move(m_arena));
    }
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

bool valuesEqual(const Value &a, const Value &b)
{
    if (a.isNumber() && b.isNumber()) {
        if (a.type == ValueType::Int && b.type == ValueType::Int)
            return a.i == b.i;
        return a.asDouble() == b.asDouble();
    }
    if (a.type != b.type)
        return false;
    switch (a.type) {
    case ValueType::Null:
        return true;
    case ValueType::Bool:
        return a.b == b.b;
    case ValueType::String:
    case ValueType::Raw:
        return a.s == b.s;
    default:
        return false;
    }
}

int compareValues(const Value &a, const Value &b)
{
    int ra = typeRank(a.type), rb = typeRank(b.type);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    switch (a.type) {
    case ValueType::Null:
        return 0;
    case ValueType::Bool:
        return a.b == b.b ? 0 : (a.b ? 1 : -1);
    case ValueType::Int:
    case ValueType::Double:
        if (a.type == ValueType::Int && b.type == ValueType::Int)
            return a.i == b.i ? 0 : (a.i < b.i ? -1 : 1);
        else {
            double x = a.asDouble(), y = b.asDouble();
            return x == y ? 0 : (x < y ? -1 : 1);
        }
    case ValueType::String:
    case ValueType::Raw: {
        int c = a.s.compare(b.s);
        return c == 0 ? 0 : (c < 0 ? -1 : 1);
    }
    }
    return 0;
}

Value Record::valueAt(std::size_t idx) const
{
    const Field &f = m_fields[idx];
    Value v;
    v.type = f.type;
    switch (f.type) {
    case ValueType::Null:
        break;
    case ValueType::Bool:
        v.b = f.b;
        break;
    case ValueType::Int:
        v.i = f.i;
        break;
    case ValueType::Double:
        v.d = f.d;
        break;
    case ValueType::String:
    case ValueType::Raw:
        v.s = std::string_view(m_arena.data() + f.s.off, f.s.len);
        break;
    }
    return v;
}

int Record::indexOf(std::string_view path) const
{
    const char *base = m_arena.data();
    for (std::size_t i = 0; i < m_fields.size(); ++i) {
        const Field &f = m_fields[i];
        if (f.nameLen == path.size()
            && std::memcmp(base + f.nameOff, path.data(), path.size()) == 0)
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

std::uint32_t Record::addBytes(std::string_view bytes)
{
    // `bytes` may point into our own arena: remember its offset before a reallocation.
    const char *base = m_arena.data();
    auto off = static_cast<std::uint32_t>(m_arena.size());
    if (!bytes.empty() && bytes.data() >= base && bytes.data() < base + m_arena.size()) {
        std::size_t srcOff = static_cast<std::size_t>(bytes.data() - base);
        m_arena.append(bytes.size(), '\0');
        std::memmove(m_arena.data() + off, m_arena.data() + srcOff, bytes.size());
    } else {
        m_arena.append(bytes);
    }
    return off;
}

static void fillValue(Record::Field &f, const Value &v)
{
    f.type = v.type;
    switch (v.type) {
    case ValueType::Null:
        f.i = 0;
        break;
    case ValueType::Bool:
        f.b = v.b;
        break;
    case ValueType::Int:
        f.i = v.i;
        break;
    case ValueType::Double:
        f.d = v.d;
        break;
    default:
        break;
    }
}

void Record::append(std::string_view path, const Value &v)
{
    if (m_fields.capacity() == 0)
        takePooledBuffers();
    Field f;
    f.nameOff = addBytes(path);
    f.nameLen = static_cast<std::uint32_t>(path.size());
    fillValue(f, v);
    if (v.type == ValueType::String || v.type == ValueType::Raw) {
        f.s.off = addBytes(v.s);
        f.s.len = static_cast<std::uint32_t>(v.s.size());
    }
    m_fields.push_back(f);
}

void Record::insertGrouped(Field f, std::string_view path)
{
    // Keep fields that share a top-level segment adjacent, so writers re-nest in one pass:
    // insert after the last field whose name starts with the same top segment.
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

void Record::set(std::string_view path, const Value &v)
{
    if (m_fields.capacity() == 0)
        takePooledBuffers();
    // Copy string bytes first: v.s may point into the arena that the name append moves.
    std::uint32_t strOff = 0;
    if (v.type == ValueType::String || v.type == ValueType::Raw)
        strOff = addBytes(v.s);
    int existing = indexOf(path);
    if (existing >= 0) {
        Field &f = m_fields[static_cast<std::size_t>(existing)];
        fillValue(f, v);
        if (v.type == ValueType::String || v.type == ValueType::Raw) {
            f.s.off = strOff;
            f.s.len = static_cast<std::uint32_t>(v.s.size());
        }
        return;
    }
    // Setting "a" replaces an object "a.*"; setting "a.b" replaces a scalar "a".
    remove(path);
    for (std::size_t pos = path.find('.'); pos != std::string_view::npos;
         pos = path.find('.', pos + 1)) {
        int parent = indexOf(path.substr(0, pos));
        if (parent >= 0)
            m_fields.erase(m_fields.begin() + parent);
    }
    Field f;
    f.nameOff = addBytes(path);
    f.nameLen = static_cast<std::uint32_t>(path.size());
    fillValue(f, v);
    if (v.type == ValueType::String || v.type == ValueType::Raw) {
        f.s.off = strOff;
        f.s.len = static_cast<std::uint32_t>(v.s.size());
    }
    insertGrouped(f, std::string_view(m_arena.data() + f.nameOff, f.nameLen));
}

void Record::appendNested(std::string_view prefix, const Record &other)
{
    remove(prefix);
    if (other.empty()) {
        set(prefix, Value::raw("{}"));
        return;
    }
    std::string name;
    for (std::size_t i = 0; i < other.size(); ++i) {
        name.assign(prefix);
        name += '.';
        name += other.nameAt(i);
        append(name, other.valueAt(i));
    }
}

bool Record::remove(std::string_view path)
{
    std::size_t before = m_fields.size();
    std::erase_if(m_fields, [&](const Field &f) {
        std::string_view n(m_arena.data() + f.nameOff, f.nameLen);
        return n == path || isUnder(n, path);
    });
    return m_fields.size() != before;
}

void Record::keepOnly(const std::vector<std::string> &paths)
{
    std::erase_if(m_fields, [&](const Field &f) {
        std::string_view n(m_arena.data() + f.nameOff, f.nameLen);
        for (const auto &p : paths)
            if (n == p || isUnder(n, p))
                return false;
        return true;
    });
}

bool Record::operator==(const Record &o) const
{
    if (size() != o.size() || time != o.time)
        return false;
    for (std::size_t i = 0; i < size(); ++i) {
        if (nameAt(i) != o.nameAt(i))
            return false;
        Value a = valueAt(i), b = o.valueAt(i);
        if (a.type != b.type || !valuesEqual(a, b))
            return false;
    }
    return true;
}

} // namespace tideline
