#pragma once
// Byte-level (de)serialization of operator state for checkpoints and savepoints.
// Little-endian, length-prefixed; a reader that runs past the end sets failed() instead of
// reading garbage, so a corrupt checkpoint is reported, never crashes.
//
// [Speed] snapshotState() runs on the pipeline loop, so large keyed state (a million window
// keys) must serialise in a few tens of milliseconds: operators write varints and raw bytes
// (putUvar() into a small stack buffer, then one bytes() per entry), reserve() ahead, and the
// checkpoint coordinator hands the writer a recycled buffer (the constructor taking a string)
// so that no page is faulted in again at every checkpoint.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tideline {

/// LEB128 varint of `v` at `p` (at most 10 bytes); returns the bytes written.
inline std::size_t putUvar(char *p, std::uint64_t v)
{
    std::size_t n = 0;
    while (v >= 0x80) {
        p[n++] = static_cast<char>(static_cast<std::uint8_t>(v) | 0x80);
        v >>= 7;
    }
    p[n++] = static_cast<char>(v);
    return n;
}
/// Zigzag: small negative and positive numbers both get short varints.
inline std::uint64_t zigzag(std::int64_t v)
{
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v)
{
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}
inline constexpr std::size_t kMaxVarint = 10;

class StateWriter
{
public:
    StateWriter() = default;
    /// Writes into `reuse` (cleared; its capacity is kept).
    explicit StateWriter(std::string reuse)
        : m_buf(std::move(reuse))
    {
        m_buf.clear();
    }

    void reserve(std::size_t extra) { m_buf.reserve(m_buf.size() + extra); }
    std::size_t size() const { return m_buf.size(); }
    void bytes(const void *p, std::size_t n) { raw(p, n); }
    void uvar(std::uint64_t v)
    {
        char b[kMaxVarint];
        raw(b, putUvar(b, v));
    }
    void svar(std::int64_t v) { uvar(zigzag(v)); }
    void u8(std::uint8_t v) { m_buf.push_back(static_cast<char>(v)); }
    void i64(std::int64_t v) { raw(&v, sizeof v); }
    void u64(std::uint64_t v) { raw(&v, sizeof v); }
    void f64(double v) { raw(&v, sizeof v); }
    void str(std::string_view s)
    {
        u64(s.size());
        m_buf.append(s);
    }
    void value(const Value &v);
    void record(const Record &r);

    /// A part of the state written later, off the loop thread: the checkpoint writer runs it
    /// (e.g. keys spilled to RocksDB, read through a snapshot taken at the checkpoint's cut).
    /// Deferred parts are appended after everything written directly, in the order deferred.
    /// May throw (the checkpoint then fails with the message).
    using Deferred = std::function<void(StateWriter &)>;
    void defer(Deferred part) { m_deferred.push_back(std::move(part)); }
    bool hasDeferred() const { return !m_deferred.empty(); }
    void runDeferred()
    {
        auto parts = std::move(m_deferred);
        m_deferred.clear();
        for (auto &part : parts)
            part(*this);
    }

    /// The complete state (runs deferred parts first).
    const std::string &data()
    {
        runDeferred();
        return m_buf;
    }
    std::string take()
    {
        runDeferred();
        return std::move(m_buf);
    }

private:
    void raw(const void *p, std::size_t n) { m_buf.append(static_cast<const char *>(p), n); }
    std::string m_buf;
    std::vector<Deferred> m_deferred;
};

class StateReader
{
public:
    explicit StateReader(std::string_view data)
        : m_data(data)
    {
    }
    std::uint8_t u8()
    {
        std::uint8_t v = 0;
        raw(&v, 1);
        return v;
    }
    std::int64_t i64()
    {
        std::int64_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    std::uint64_t u64()
    {
        std::uint64_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    double f64()
    {
        double v = 0;
        raw(&v, sizeof v);
        return v;
    }
    std::uint64_t uvar()
    {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_failed || m_pos >= m_data.size()) {
                m_failed = true;
                return 0;
            }
            const auto b = static_cast<std::uint8_t>(m_data[m_pos++]);
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (b < 0x80)
                return v;
        }
        m_failed = true; // more than 10 bytes: not a varint we wrote
        return 0;
    }
    std::int64_t svar() { return unzigzag(uvar()); }
    /// The next n bytes, as a view into the data (no copy); empty and failed() when short.
    std::string_view view(std::size_t n)
    {
        if (m_failed || m_data.size() - m_pos < n) {
            m_failed = true;
            return {};
        }
        std::string_view v = m_data.substr(m_pos, n);
        m_pos += n;
        return v;
    }
    void bytes(void *p, std::size_t n) { raw(p, n); }
    std::string str();
    /// Reads a value into `storage`-backed Value: strings are appended to `storage`.
    void record(Record &r);

    bool failed() const { return m_failed; }
    bool atEnd() const { return m_pos == m_data.size(); }
    /// Bytes not read yet: a bound for a count read from the data (each item takes at least a
    /// byte), so a corrupt count cannot make a reader reserve more than the data could hold.
    std::size_t remaining() const { return m_data.size() - m_pos; }

private:
    void raw(void *p, std::size_t n)
    {
        if (m_failed || m_data.size() - m_pos < n) {
            m_failed = true;
            std::memset(p, 0, n);
            return;
        }
        std::memcpy(p, m_data.data() + m_pos, n);
        m_pos += n;
    }
    std::string_view m_data;
    std::size_t m_pos = 0;
    bool m_failed = false;
};

} // namespace tideline
