#include "operators/sources/input_identity.hpp"

#include "checkpoint/checksum.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline {

namespace {

/// CRC32C of [from, from + len) of `fd`; false when the file holds fewer bytes or read fails.
bool crcOf(int fd, std::uint64_t from, std::uint64_t len, std::uint32_t &crc, std::string &error)
{
    static thread_local std::string buf;
    buf.resize(static_cast<std::size_t>(len));
    std::size_t got = 0;
    while (got < len) {
        ssize_t n = ::pread(fd, buf.data() + got, len - got, static_cast<off_t>(from + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = std::strerror(errno);
            return false;
        }
        if (n == 0)
            return false; // shorter than expected
        got += static_cast<std::size_t>(n);
    }
    crc = checkpoint::crc32c(std::string_view(buf.data(), got));
    return true;
}

std::string statOf(int fd, struct stat &st)
{
    if (::fstat(fd, &st) != 0)
        return std::strerror(errno);
    return {};
}

} // namespace

std::string InputIdentity::capture(int fd,
                                   std::uint64_t offset,
                                   const InputIdentity *previous,
                                   InputIdentity &out)
{
    struct stat st
    {
    };
    if (std::string e = statOf(fd, st); !e.empty())
        return e;
    InputIdentity id;
    id.offset = offset;
    id.size = static_cast<std::uint64_t>(st.st_size);
    id.dev = static_cast<std::uint64_t>(st.st_dev);
    id.ino = static_cast<std::uint64_t>(st.st_ino);
    id.mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    std::string error;
    id.headLen = std::min(offset, kWindow);
    if (previous && previous->headLen == kWindow && id.headLen == kWindow) {
        id.headCrc = previous->headCrc;
    } else if (!crcOf(fd, 0, id.headLen, id.headCrc, error)) {
        return error.empty() ? "the file is shorter than the position read" : error;
    }
    id.tailLen = std::min(offset, kWindow);
    if (!crcOf(fd, offset - id.tailLen, id.tailLen, id.tailCrc, error))
        return error.empty() ? "the file is shorter than the position read" : error;
    out = id;
    return {};
}

std::string InputIdentity::differences(int fd) const
{
    struct stat st
    {
    };
    if (std::string e = statOf(fd, st); !e.empty())
        return "cannot stat it: " + e;
    const auto now = static_cast<std::uint64_t>(st.st_size);
    std::string also;
    if (static_cast<std::uint64_t>(st.st_ino) != ino
        || static_cast<std::uint64_t>(st.st_dev) != dev)
        also = " (it is another file now: inode " + std::to_string(ino) + " then, "
               + std::to_string(st.st_ino) + " now)";
    else if (static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec
             != mtimeNs)
        also = " (it was modified after the checkpoint)";
    if (now < offset)
        return "it holds " + std::to_string(now) + " bytes, but the checkpoint had read "
               + std::to_string(offset) + " (of " + std::to_string(size)
               + " then): it was truncated or replaced by a shorter file" + also;
    std::uint32_t crc = 0;
    std::string error;
    if (!crcOf(fd, 0, headLen, crc, error))
        return "cannot read it: " + error;
    if (crc != headCrc)
        return "its first " + std::to_string(headLen)
               + " bytes differ from the file the checkpoint read: it was replaced or rewritten"
               + also;
    if (!crcOf(fd, offset - tailLen, tailLen, crc, error))
        return "cannot read it: " + error;
    if (crc != tailCrc)
        return "the " + std::to_string(tailLen) + " bytes before byte " + std::to_string(offset)
               + ", where reading resumes, differ from the file the checkpoint read: it was "
                 "replaced or rewritten"
               + also;
    return {};
}

void InputIdentity::write(StateWriter &w) const
{
    w.u64(offset);
    w.u64(size);
    w.u64(dev);
    w.u64(ino);
    w.i64(mtimeNs);
    w.u64(headLen);
    w.u64(headCrc);
    w.u64(tailLen);
    w.u64(tailCrc);
}

bool InputIdentity::read(StateReader &r)
{
    offset = r.u64();
    size = r.u64();
    dev = r.u64();
    ino = r.u64();
    mtimeNs = r.i64();
    headLen = r.u64();
    headCrc = static_cast<std::uint32_t>(r.u64());
    tailLen = r.u64();
    tailCrc = static_cast<std::uint32_t>(r.u64());
    return !r.failed() && headLen <= kWindow && tailLen <= kWindow && tailLen <= offset;
}

} // namespace tideline
