#pragma once
// Byte-level (de)serialization of operator state for checkpoints and savepoints.
// Little-endian, length-prefixed; a reader that runs past the end sets failed() instead of
// reading garbage, so a corrupt checkpoint is reported, never crashes.

#include <tideline/engine/record.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tideline {

class StateWriter
{
public:
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

    const std::string &data() const { return m_buf; }
    std::string take() { return std::move(m_buf); }

private:
    void raw(const void *p, std::size_t n) { m_buf.append(static_cast<const char *>(p), n); }
    std::string m_buf;
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
    std::string str();
    /// Reads a value into `storage`-backed Value: strings are appended to `storage`.
    void record(Record &r);

    bool failed() const { return m_failed; }
    bool atEnd() const { return m_pos == m_data.size(); }

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
