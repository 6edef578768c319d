#include "checkpoint/files.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

std::string causeFromErrno(int err)
{
    switch (err) {
    case ENOSPC:
        return "disk full";
    case EDQUOT:
        return "disk quota exceeded";
    case EACCES:
    case EPERM:
        return "permission denied";
    case EROFS:
        return "read-only file system";
    case ENOENT:
        return "no such file or directory";
    case ENOTDIR:
        return "not a directory";
    case EEXIST:
        return "already exists";
    case EIO:
        return "I/O error";
    case EMFILE:
    case ENFILE:
        return "too many open files";
    default:
        return std::strerror(err);
    }
}

std::string causeFromMessage(const std::string &m)
{
    struct Pat
    {
        const char *needle;
        const char *cause;
    };
    static const Pat pats[] = {
        {"No space left", "disk full"},
        {"Disk quota", "disk quota exceeded"},
        {"Permission denied", "permission denied"},
        {"Read-only file system", "read-only file system"},
        {"Not a directory", "not a directory"},
        {"Input/output error", "I/O error"},
        {"Too many open files", "too many open files"},
    };
    for (const auto &p : pats)
        if (m.find(p.needle) != std::string::npos)
            return p.cause;
    return m;
}

std::string fsyncDir(const std::string &dir)
{
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return "cannot open folder " + dir + ": " + std::strerror(errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0)
        return "cannot fsync folder " + dir + ": " + std::strerror(err);
    return {};
}

std::string writeFileDurably(const std::string &path, const std::string &content, int *errnoOut)
{
    const std::string tmp = path + ".tmp";
    auto failWith = [&](const std::string &what) {
        int err = errno;
        if (errnoOut)
            *errnoOut = err;
        ::unlink(tmp.c_str());
        return what + " " + tmp + ": " + std::strerror(err);
    };
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return failWith("cannot create");
    std::size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            std::string e = failWith("cannot write");
            ::close(fd);
            return e;
        }
        off += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        std::string e = failWith("cannot fsync");
        ::close(fd);
        return e;
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0)
        return failWith("cannot rename");
    std::string parent = fs::path(path).parent_path().string();
    return fsyncDir(parent.empty() ? "." : parent);
}

std::uint64_t treeBytes(const std::string &dir)
{
    std::uint64_t total = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec))
            total += it->file_size(ec);
    }
    return total;
}

bool readFile(const std::string &path, std::string &out, std::string &error)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::strerror(errno);
        return false;
    }
    out.clear();
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return true;
}

} // namespace tideline::checkpoint
