#include "checkpoint/folder_lock.hpp"

#include "checkpoint/files.hpp"
#include "checkpoint/store.hpp"
#include "operators/params.hpp"

#include <cctype>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace tideline::checkpoint {

FolderLock::~FolderLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::string FolderLock::acquire(const std::string &dir, Mode mode)
{
    const std::string path = (std::filesystem::path(dir) / "LOCK").string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return "cannot open " + path + ": " + causeFromErrno(errno);
    if (::flock(fd, (mode == Mode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        const int err = errno;
        if (err != EWOULDBLOCK) {
            ::close(fd);
            return "cannot lock " + path + ": " + causeFromErrno(err);
        }
        // Who holds it? A shared lock granted now means only shared holders (group members);
        // otherwise one exclusive holder, whose pid is in the file.
        std::string why;
        if (mode == Mode::Exclusive && ::flock(fd, LOCK_SH | LOCK_NB) == 0) {
            why = "in use by members of a Kafka consumer group (--member)";
        } else {
            char buf[32] = {};
            std::string holder;
            if (::pread(fd, buf, sizeof buf - 1, 0) > 0)
                holder = std::string(buf).substr(0, std::string(buf).find('\n'));
            why = "in use by another process"
                  + (holder.empty() ? std::string() : " (pid " + holder + ")");
        }
        ::close(fd);
        return why;
    }
    if (mode == Mode::Exclusive) {
        // Only the exclusive holder names itself: shared holders are several.
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) == 0)
            (void)!::pwrite(fd, pid.data(), pid.size(), 0);
    }
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
    return {};
}

namespace {

/// An unbounded source.kafka runs as a consumer-group member with partition tasks unless
/// partition_tasks is false (KafkaSource::partitionTasks(), known only once it is open: this
/// is decided before any operator opens).
bool runsAsGroupMember(const PipelineSpec &spec)
{
    for (const auto &n : spec.nodes) {
        const NodeKind *kind = findNodeKind(n.kind);
        if (!kind || !kind->readsTopic || !kind->param("bounded")
            || !kind->param("partition_tasks"))
            continue;
        // The params as the source reads them: the catalog's defaults for what the file omits.
        const NodeParams params(*kind, n.params);
        if (!params.boolean("bounded") && params.boolean("partition_tasks"))
            return true;
    }
    return false;
}

} // namespace

std::string
lockCheckpointFolder(const PipelineSpec &spec, const JobOptions &options, RunLocks &locks)
{
    const Settings settings = resolveSettings(spec, options);
    if (!settings.enabled)
        return {};
    std::error_code ec;
    std::filesystem::create_directories(settings.dir, ec);
    if (ec)
        return "settings.checkpoint.dir: cannot create " + settings.dir + ": "
               + causeFromErrno(ec.value());
    if (!runsAsGroupMember(spec)) {
        if (std::string err = locks.folder.acquire(settings.dir, FolderLock::Mode::Exclusive);
            !err.empty())
            return "settings.checkpoint.dir: " + settings.dir + " is " + err
                   + "; two runs must not checkpoint into one folder: stop the other run, or give "
                     "this one its own folder (--checkpoint-dir DIR)";
        return {};
    }
    // Members share the group's folder with each other, never with a plain run.
    if (std::string err = locks.folder.acquire(settings.dir, FolderLock::Mode::Shared);
        !err.empty())
        return "settings.checkpoint.dir: " + settings.dir + " is " + err
               + "; a plain run and a consumer group's members cannot share a checkpoint folder";
    const std::string &member = options.member;
    if (!validMemberName(member))
        return {}; // Coordinator::enterMemberDir() refuses it with the fix
    const std::string memberDir
        = (std::filesystem::path(settings.dir) / "members" / member).string();
    std::filesystem::create_directories(memberDir, ec);
    if (ec)
        return "settings.checkpoint.dir: cannot create " + memberDir + ": "
               + causeFromErrno(ec.value());
    if (std::string err = locks.member.acquire(memberDir, FolderLock::Mode::Exclusive);
        !err.empty())
        return "settings.checkpoint.dir: member `" + member + "` (" + memberDir + ") is " + err
               + " of this group; give each process its own --member NAME (e.g. --member "
                 "$(hostname)-1)";
    return {};
}

bool validMemberName(const std::string &m)
{
    if (m.empty() || m.size() > 64)
        return false;
    for (char c : m)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            return false;
    return m != "." && m != "..";
}

} // namespace tideline::checkpoint
