// sink.file: JSON lines or CSV. Output is buffered and written in large blocks; finish()
// flushes and fsyncs. CSV takes its columns from the first record (later fields that are not
// columns are left out; documented in the format reference).
//
// Exactly-once across crashes: a checkpoint flushes the buffer, fsyncs and records the byte
// length of the output as the sink's commit point (before the manifest is written). A restore
// truncates the file back to that length, so whatever was written after the checkpoint (and
// will be produced again by the replay) disappears. The file is opened without O_TRUNC and
// emptied only when the run starts without restored state, because open() runs before the
// restore.
//
// With periodic checkpoints (OperatorContext::checkpointing) the file holds only committed
// output, so that a reader following it (tail -f) never sees a row that a restore cuts off
// again. Flink's FileSink model, for one file: blocks go to a hidden staging file next to it
// (`.NAME.pending-N`, in progress); a checkpoint fsyncs and seals it (pending) and the next
// block starts a new one; notifyCheckpointComplete() appends the sealed staging files to the
// file (copy_file_range), fsyncs it and deletes them (finished). The checkpoint's state lists
// the staging files it sealed, so a restore after a crash between the manifest and the commit
// completes that commit from them. The end of a run publishes what is left. Without periodic
// checkpoints the blocks go straight to the file, as before.
//
// State layout: committed length, rows, CSV columns, then (with staging) the tag 'S' and the
// sealed staging files (name, start offset in the output, length). Checkpoints without the tag
// (older builds, or no periodic checkpoints) restore as before.

#include "operators/operators.hpp"
#include "operators/params.hpp"

#include <tideline/engine/record_json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline {

namespace {

namespace fs = std::filesystem;

std::string errnoText()
{
    return std::strerror(errno);
}

/// Copies `len` bytes from `in` at `inOff` to `out` at `outOff`: in the kernel where it can,
/// else through a buffer.
void copyRange(int in, std::uint64_t inOff, int out, std::uint64_t outOff, std::uint64_t len)
{
    auto i = static_cast<off_t>(inOff), o = static_cast<off_t>(outOff);
    std::uint64_t left = len;
    bool kernel = true;
    while (left > 0 && kernel) {
        ssize_t n = ::copy_file_range(in, &i, out, &o, left, 0);
        if (n > 0) {
            left -= static_cast<std::uint64_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n == 0) {
            throw std::runtime_error("a staging file is shorter than its checkpoint says");
        } else if (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) {
            kernel = false;
        } else {
            throw std::runtime_error(errnoText());
        }
    }
    std::string buf;
    while (left > 0) {
        buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(left, 1 << 20)));
        ssize_t n = ::pread(in, buf.data(), buf.size(), i);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw std::runtime_error(n == 0 ? "a staging file is shorter than its checkpoint says"
                                            : errnoText());
        std::size_t done = 0;
        while (done < static_cast<std::size_t>(n)) {
            ssize_t w = ::pwrite(out, buf.data() + done, static_cast<std::size_t>(n) - done,
                                 o + static_cast<off_t>(done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                throw std::runtime_error(errnoText());
            done += static_cast<std::size_t>(w);
        }
        i += n;
        o += n;
        left -= static_cast<std::uint64_t>(n);
    }
}

class FileSink final : public Operator
{
public:
    explicit FileSink(const OperatorContext &ctx)
        : m_path(ctx.path(NodeParams(ctx).string("path")))
        , m_paramPath(NodeParams(ctx).string("path"))
        , m_csv(NodeParams(ctx).string("format") == "csv")
        , m_staged(ctx.checkpointing)
    {
        fs::path p(m_path);
        m_dir = p.parent_path().empty() ? std::string(".") : p.parent_path().string();
        m_stagePrefix = "." + p.filename().string() + ".pending-";
    }
    ~FileSink() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
        closeStage(m_current);
        for (auto &s : m_sealed)
            closeStage(s);
    }

    void open() override
    {
        std::error_code ec;
        auto parent = std::filesystem::path(m_path).parent_path();
        if (!parent.empty())
            std::filesystem::create_directories(parent, ec);
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw ConfigError("params.path: cannot write " + m_path + ": " + errnoText());
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
        if (m_staged) {
            // The end of the run: what no checkpoint committed (its final checkpoint failed)
            // is published too, so the file is complete.
            seal();
            publish();
        }
        if (m_fd >= 0) {
            ::fsync(m_fd);
            ::close(m_fd);
            m_fd = -1;
        }
    }

    void reportMetrics(observe::NodeMetrics &m) const override { m.recordsOut = m_written; }

    void snapshotState(StateWriter &w) const override
    {
        // The commit point must be on disk before the checkpoint's manifest is.
        auto *self = const_cast<FileSink *>(this);
        self->start();
        self->flush();
        if (m_staged) {
            self->seal();
        } else if (m_fd >= 0 && ::fdatasync(m_fd) != 0) {
            throw std::runtime_error("fsync " + m_path + ": " + errnoText());
        }
        w.u64(m_bytes);
        w.i64(m_written);
        w.u64(m_columns.size());
        for (const auto &c : m_columns)
            w.str(c);
        if (m_staged) {
            w.u8(kStagedTag);
            w.u64(m_sealed.size());
            for (const auto &s : m_sealed) {
                w.str(s.name);
                w.u64(s.start);
                w.u64(s.length);
            }
        }
    }

    void restoreState(StateReader &r) override
    {
        std::uint64_t bytes = r.u64();
        std::int64_t written = r.i64();
        std::uint64_t ncols = r.u64();
        std::vector<std::string> cols;
        for (std::uint64_t i = 0; i < ncols && !r.failed(); ++i)
            cols.push_back(r.str());
        std::vector<Stage> sealed;
        if (!r.failed() && !r.atEnd()) {
            if (r.u8() != kStagedTag)
                throw std::runtime_error("the saved state of " + m_paramPath
                                         + " is not in a layout this build reads");
            std::uint64_t n = r.u64();
            for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
                Stage s;
                s.name = r.str();
                s.start = r.u64();
                s.length = r.u64();
                sealed.push_back(std::move(s));
            }
        }
        if (r.failed())
            return; // reported by the caller
        struct stat st
        {
        };
        if (::fstat(m_fd, &st) != 0)
            throw std::runtime_error("stat " + m_path + ": " + errnoText());
        auto size = static_cast<std::uint64_t>(st.st_size);
        if (size < bytes)
            size = completeCommit(size, bytes, sealed);
        if (size < bytes)
            throw std::runtime_error(
                m_path + " holds " + std::to_string(size) + " bytes but the checkpoint committed "
                + std::to_string(bytes) + " (was the output file replaced or truncated?)");
        if (::ftruncate(m_fd, static_cast<off_t>(bytes)) != 0 || ::fsync(m_fd) != 0)
            throw std::runtime_error("truncating " + m_path
                                     + " to its committed length: " + errnoText());
        ::lseek(m_fd, 0, SEEK_END);
        removeStagingFiles();
        m_bytes = bytes;
        m_written = written;
        m_columns = std::move(cols);
        m_started = true;
    }

    std::string outputLostWithoutState() const override
    {
        struct stat st
        {
        };
        if (m_started || m_fd < 0 || ::fstat(m_fd, &st) != 0 || st.st_size == 0)
            return {};
        return m_path + " holds " + std::to_string(st.st_size)
               + " bytes written by earlier runs, which starting it over deletes";
    }

    void notifyCheckpointComplete(std::int64_t) override
    {
        // Only one checkpoint is in flight and its snapshot is the last one taken, so every
        // sealed staging file belongs to it (or to an earlier one that failed).
        if (m_staged)
            publish();
    }

    std::string stateFingerprint() const override
    {
        return std::string("sink.file/1 format=") + (m_csv ? "csv" : "jsonl")
               + " path=" + m_paramPath;
    }

private:
    /// A staging file: output bytes [start, start + length) not yet in the file.
    struct Stage
    {
        std::string name; ///< in the file's folder
        std::uint64_t start = 0;
        std::uint64_t length = 0;
        int fd = -1;
    };

    static constexpr std::uint8_t kStagedTag = 'S';
    static constexpr std::size_t kFlushAt = 1 << 20;

    std::string stagePath(const std::string &name) const { return m_dir + "/" + name; }

    static void closeStage(Stage &s)
    {
        if (s.fd >= 0)
            ::close(s.fd);
        s.fd = -1;
    }

    /// First write of a run that restored nothing: start the file empty.
    void start()
    {
        if (m_started || m_fd < 0)
            return;
        m_started = true;
        if (::ftruncate(m_fd, 0) != 0)
            throw std::runtime_error("truncating " + m_path + ": " + errnoText());
        ::lseek(m_fd, 0, SEEK_SET);
        if (m_staged)
            removeStagingFiles();
    }

    static void writeAll(int fd, const std::string &buf, const std::string &path)
    {
        std::size_t off = 0;
        while (off < buf.size()) {
            ssize_t n = ::write(fd, buf.data() + off, buf.size() - off);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throw std::runtime_error("writing " + path + ": " + errnoText());
            }
            off += static_cast<std::size_t>(n);
        }
    }

    void flush()
    {
        if (m_buf.empty())
            return;
        if (!m_staged) {
            writeAll(m_fd, m_buf, m_path);
        } else {
            if (m_current.fd < 0) {
                m_current.name = m_stagePrefix + std::to_string(++m_stageSeq);
                m_current.start = m_bytes;
                m_current.length = 0;
                m_current.fd = ::open(stagePath(m_current.name).c_str(),
                                      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (m_current.fd < 0)
                    throw std::runtime_error("cannot create " + stagePath(m_current.name) + ": "
                                             + errnoText());
                m_newStage = true;
            }
            writeAll(m_current.fd, m_buf, stagePath(m_current.name));
            m_current.length += m_buf.size();
        }
        m_bytes += m_buf.size();
        m_buf.clear();
    }

    /// Makes the current staging file durable and closes it to writes (the next block starts
    /// another one).
    void seal()
    {
        if (m_current.fd >= 0) {
            if (::fdatasync(m_current.fd) != 0)
                throw std::runtime_error("fsync " + stagePath(m_current.name) + ": " + errnoText());
            m_sealed.push_back(m_current);
            m_current = Stage{};
        }
        if (m_newStage) {
            // The staging file's name must survive a power loss too.
            int dfd = ::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                ::fsync(dfd);
                ::close(dfd);
            }
            m_newStage = false;
        }
    }

    /// Appends the sealed staging files to the file, makes it durable, deletes them.
    void publish()
    {
        if (m_sealed.empty())
            return;
        for (const auto &s : m_sealed) {
            try {
                copyRange(s.fd, 0, m_fd, s.start, s.length);
            } catch (const std::exception &e) {
                throw std::runtime_error("publishing " + stagePath(s.name) + " to " + m_path + ": "
                                         + e.what());
            }
        }
        if (::fdatasync(m_fd) != 0)
            throw std::runtime_error("fsync " + m_path + ": " + errnoText());
        for (auto &s : m_sealed) {
            closeStage(s);
            ::unlink(stagePath(s.name).c_str());
        }
        m_sealed.clear();
    }

    /// A restore whose checkpoint was durable but not yet published (a crash between the
    /// manifest and notifyCheckpointComplete): the missing bytes [size, bytes) are in the
    /// staging files the checkpoint sealed. Returns the file's length afterwards.
    std::uint64_t
    completeCommit(std::uint64_t size, std::uint64_t bytes, const std::vector<Stage> &sealed)
    {
        if (sealed.empty() || sealed.front().start > size)
            return size;
        for (const auto &s : sealed) {
            if (s.start + s.length <= size)
                continue;
            const std::string path = stagePath(s.name);
            int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                throw std::runtime_error(m_path + " holds " + std::to_string(size)
                                         + " bytes but the checkpoint committed "
                                         + std::to_string(bytes) + ", and the staging file " + path
                                         + " with the rest cannot be read: " + errnoText());
            const std::uint64_t from = std::max(size, s.start);
            try {
                copyRange(fd, from - s.start, m_fd, from, s.start + s.length - from);
            } catch (const std::exception &e) {
                ::close(fd);
                throw std::runtime_error("completing the commit of " + m_path + " from " + path
                                         + ": " + e.what());
            }
            ::close(fd);
            size = s.start + s.length;
        }
        if (::fdatasync(m_fd) != 0)
            throw std::runtime_error("fsync " + m_path + ": " + errnoText());
        return size;
    }

    /// Deletes this sink's staging files (left by a crash, or published by a restore).
    void removeStagingFiles()
    {
        closeStage(m_current);
        m_current = Stage{};
        for (auto &s : m_sealed)
            closeStage(s);
        m_sealed.clear();
        std::error_code ec;
        for (auto it = fs::directory_iterator(m_dir, ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.rfind(m_stagePrefix, 0) == 0)
                ::unlink(it->path().c_str());
        }
    }

    std::string m_path;
    std::string m_paramPath; ///< as written in the file (the fingerprint survives moving folders)
    bool m_csv;
    bool m_staged; ///< periodic checkpoints: uncommitted output goes to staging files
    std::string m_dir;
    std::string m_stagePrefix; ///< ".NAME.pending-"
    int m_fd = -1;
    std::string m_buf;
    std::vector<std::string> m_columns;
    std::uint64_t m_bytes = 0; ///< output length so far (in the file or staged)
    std::int64_t m_written = 0;
    bool m_started = false;
    Stage m_current;             ///< being written (fd -1: none yet)
    std::vector<Stage> m_sealed; ///< sealed by a checkpoint, not yet published
    std::uint64_t m_stageSeq = 0;
    bool m_newStage = false; ///< a staging file was created since the folder was last synced
};

} // namespace

std::unique_ptr<Operator> makeFileSink(const OperatorContext &ctx)
{
    return std::make_unique<FileSink>(ctx);
}

} // namespace tideline
