// sink.file: JSON lines or CSV. Output is buffered and written in large blocks; finish()
// flushes and fsyncs. CSV takes its columns from the first record (later fields that are not
// columns are left out; documented in the format reference).

#include "operators/operators.hpp"

#include <tideline/engine/record_json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <unistd.h>

namespace tideline {

namespace {

class FileSink final : public Operator
{
public:
    explicit FileSink(const OperatorContext &ctx)
        : m_path(ctx.path(ctx.spec.params.value("path", std::string())))
        , m_csv(ctx.spec.params.value("format", std::string("jsonl")) == "csv")
    {}
    ~FileSink() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    void open() override
    {
        std::error_code ec;
        auto parent = std::filesystem::path(m_path).parent_path();
        if (!parent.empty())
            std::filesystem::create_directories(parent, ec);
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw ConfigError("params.path: cannot write " + m_path + ": " + std::strerror(errno));
        m_buf.reserve(kFlushAt + 4096);
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        if (m_csv) {
            if (m_columns.empty()) {
                for (std::size_t i = 0; i < rec.size(); ++i)
                    m_columns.emplace_back(rec.nameAt(i));
                appendCsvHeader(m_columns, m_buf);
            }
            appendCsvRow(rec, m_columns, m_buf);
        } else {
            appendJson(rec, m_buf);
            m_buf += '\n';
        }
        ++m_written;
        if (m_buf.size() >= kFlushAt)
            flush();
        (void)out;
    }

    void finish(Output &) override
    {
        flush();
        if (m_fd >= 0) {
            ::fsync(m_fd);
            ::close(m_fd);
            m_fd = -1;
        }
    }

    void reportMetrics(observe::NodeMetrics &m) const override { m.recordsOut = m_written; }

    /// Bytes written so far (the sink's commit point for checkpoints).
    std::uint64_t position() const { return m_bytes + m_buf.size(); }

private:
    static constexpr std::size_t kFlushAt = 1 << 20;

    void flush()
    {
        std::size_t off = 0;
        while (off < m_buf.size()) {
            ssize_t n = ::write(m_fd, m_buf.data() + off, m_buf.size() - off);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throw std::runtime_error("writing " + m_path + ": " + std::strerror(errno));
            }
            off += static_cast<std::size_t>(n);
        }
        m_bytes += m_buf.size();
        m_buf.clear();
    }

    std::string m_path;
    bool m_csv;
    int m_fd = -1;
    std::string m_buf;
    std::vector<std::string> m_columns;
    std::uint64_t m_bytes = 0;
    std::int64_t m_written = 0;
};

} // namespace

std::unique_ptr<Operator> makeFileSink(const OperatorContext &ctx)
{
    return std::make_unique<FileSink>(ctx);
}

} // namespace tideline
