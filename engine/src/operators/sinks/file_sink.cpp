// sink.file: JSON lines or CSV. Output is buffered and written in large blocks; finish()
// flushes and fsyncs. CSV takes its columns from the first record (later fields that are not
// columns are left out; documented in the format reference).
//
// Exactly-once across crashes: a checkpoint flushes the buffer, fsyncs the file and records the
// byte length as the sink's commit point (before the manifest is written). A restore truncates
// the file back to that length, so whatever was written after the checkpoint (and will be
// produced again by the replay) disappears. The file is opened without O_TRUNC and emptied only
// when the run starts without restored state, because open() runs before the restore.

#include "operators/operators.hpp"

#include <tideline/engine/record_json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline {

namespace {

class FileSink final : public Operator
{
public:
    explicit FileSink(const OperatorContext &ctx)
        : m_path(ctx.path("path", ctx.spec.params.value("path", std::string())))
        , m_paramPath(ctx.spec.params.value("path", std::string()))
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
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw ConfigError("params.path: cannot write " + m_path + ": " + std::strerror(errno));
        m_buf.reserve(kFlushAt + 4096);
    }

    void processRecord(int, Record &&rec, Output &out) override
    {
        start();
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
        start();
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

    void snapshotState(StateWriter &w) const override
    {
        // The commit point must be on disk before the checkpoint's manifest is.
        auto *self = const_cast<FileSink *>(this);
        self->start();
        self->flush();
        if (m_fd >= 0 && ::fdatasync(m_fd) != 0)
            throw std::runtime_error("fsync " + m_path + ": " + std::strerror(errno));
        w.u64(m_bytes);
        w.i64(m_written);
        w.u64(m_columns.size());
        for (const auto &c : m_columns)
            w.str(c);
    }

    void restoreState(StateReader &r) override
    {
        std::uint64_t bytes = r.u64();
        std::int64_t written = r.i64();
        std::uint64_t ncols = r.u64();
        std::vector<std::string> cols;
        for (std::uint64_t i = 0; i < ncols && !r.failed(); ++i)
            cols.push_back(r.str());
        if (r.failed())
            return; // reported by the caller
        struct stat st{};
        if (::fstat(m_fd, &st) != 0)
            throw std::runtime_error("stat " + m_path + ": " + std::strerror(errno));
        if (static_cast<std::uint64_t>(st.st_size) < bytes)
            throw std::runtime_error(m_path + " holds " + std::to_string(st.st_size)
                                     + " bytes but the checkpoint committed "
                                     + std::to_string(bytes)
                                     + " (was the output file replaced or truncated?)");
        if (::ftruncate(m_fd, static_cast<off_t>(bytes)) != 0 || ::fsync(m_fd) != 0)
            throw std::runtime_error("truncating " + m_path + " to its committed length: "
                                     + std::strerror(errno));
        ::lseek(m_fd, 0, SEEK_END);
        m_bytes = bytes;
        m_written = written;
        m_columns = std::move(cols);
        m_started = true;
    }

    std::string stateFingerprint() const override
    {
        return std::string("sink.file/1 format=") + (m_csv ? "csv" : "jsonl") + " path=" + m_paramPath;
    }

private:
    /// First write of a run that restored nothing: start the file empty.
    void start()
    {
        if (m_started || m_fd < 0)
            return;
        m_started = true;
        if (::ftruncate(m_fd, 0) != 0)
            throw std::runtime_error("truncating " + m_path + ": " + std::strerror(errno));
        ::lseek(m_fd, 0, SEEK_SET);
    }

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
    std::string m_paramPath; ///< as written in the file (the fingerprint survives moving folders)
    bool m_csv;
    int m_fd = -1;
    std::string m_buf;
    std::vector<std::string> m_columns;
    std::uint64_t m_bytes = 0;
    std::int64_t m_written = 0;
    bool m_started = false;
};

} // namespace

std::unique_ptr<Operator> makeFileSink(const OperatorContext &ctx)
{
    return std::make_unique<FileSink>(ctx);
}

} // namespace tideline
