// sink.console: JSON lines on standard output (or the stream the job was given).

#include "operators/operators.hpp"

#include <tideline/engine/record_json.hpp>

#include <cstring>
#include <iostream>

namespace tideline {

namespace {

class ConsoleSink final : public Operator
{
public:
    explicit ConsoleSink(const OperatorContext &ctx)
        : m_out(ctx.console ? *ctx.console : std::cout)
    {
    }
    void processRecord(int, Record &&rec, Output &) override
    {
        m_line.clear();
        appendJson(rec, m_line);
        m_line += '\n';
        m_out.write(m_line.data(), static_cast<std::streamsize>(m_line.size()));
        ++m_written;
    }
    void finish(Output &) override { m_out.flush(); }
    // Records printed (the balance: a sink's in = out + errors).
    void reportMetrics(observe::NodeMetrics &m) const override { m.recordsOut = m_written; }

private:
    std::int64_t m_written = 0;
    std::ostream &m_out;
    std::string m_line;
};

// sink.discard: counts and checksums what reaches it (benchmarks, dry runs). The checksum is a
// sum of per-record hashes, so it does not depend on arrival order across equal results.
// Strings are hashed 8 bytes at a time (a byte-serial FNV cost ~4 cycles per byte, a fifth of
// a q0 run): any single changed byte still changes the record's hash, since every step
// (xor, multiply by an odd constant) is a bijection.
class DiscardSink final : public Operator
{
public:
    static constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;

    static std::uint64_t load8(const char *p)
    {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        return w;
    }

    static std::uint64_t hashBytes(std::string_view s)
    {
        std::uint64_t x = (s.size() + 1) * kMul;
        const char *p = s.data();
        std::size_t n = s.size();
        if (n >= 8) {
            for (; n > 8; p += 8, n -= 8)
                x = (x ^ load8(p)) * kMul;
            x = (x ^ load8(p + n - 8)) * kMul; // the last 8 bytes (may overlap the previous)
        } else {
            for (; n > 0; ++p, --n)
                x = (x ^ static_cast<unsigned char>(*p)) * 1099511628211ULL;
        }
        return x ^ (x >> 29);
    }

    void processRecord(int, Record &&rec, Output &) override
    {
        std::uint64_t h = 1469598103934665603ULL;
        for (std::size_t i = 0; i < rec.size(); ++i) {
            Value v = rec.valueAt(i);
            std::uint64_t x = 0;
            switch (v.type) {
            case ValueType::Int:
                x = static_cast<std::uint64_t>(v.i);
                break;
            case ValueType::Double:
                std::memcpy(&x, &v.d, sizeof x);
                break;
            case ValueType::Bool:
                x = v.b;
                break;
            case ValueType::String:
            case ValueType::Raw:
                x = hashBytes(v.s);
                break;
            case ValueType::Null:
                x = 0x9e37;
                break;
            }
            h = (h ^ x) * 1099511628211ULL;
        }
        m_checksum += h;
        ++m_count;
    }
    void reportMetrics(observe::NodeMetrics &m) const override
    {
        m.recordsOut = m_count;
        m.checksum = m_checksum;
    }

private:
    std::int64_t m_count = 0;
    std::uint64_t m_checksum = 0;
};

} // namespace

std::unique_ptr<Operator> makeConsoleSink(const OperatorContext &ctx)
{
    return std::make_unique<ConsoleSink>(ctx);
}
std::unique_ptr<Operator> makeDiscardSink(const OperatorContext &)
{
    return std::make_unique<DiscardSink>();
}

} // namespace tideline
