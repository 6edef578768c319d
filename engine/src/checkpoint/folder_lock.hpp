#pragma once
// One writer per checkpoint folder. Two processes checkpointing into one folder overwrite each
// other's manifests and delete each other's checkpoints, so a run holds a lock on <dir>/LOCK
// for as long as it runs: exclusive for a plain run, shared on the group's folder plus
// exclusive on members/<member>/ for a consumer-group member (so members share the folder
// with each other but never with a plain run). flock() is released by the kernel when the
// process ends, also by SIGKILL, so a crash never leaves a stale lock behind. The LOCK file
// holds the holder's pid, for the message.

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <string>

namespace tideline::checkpoint {

class FolderLock
{
public:
    FolderLock() = default;
    FolderLock(const FolderLock &) = delete;
    FolderLock &operator=(const FolderLock &) = delete;
    ~FolderLock();

    enum class Mode { Exclusive, Shared };
    /// "" when locked; else why not, naming the holder's pid when another process holds it.
    [[nodiscard]] std::string acquire(const std::string &dir, Mode mode);
    bool held() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

/// The locks one run holds on its checkpoint folder from before its first operator opens
/// (so a second run is refused before it touches a sink's output) until the run is gone,
/// across restarts after a RecoverableError.
struct RunLocks
{
    FolderLock folder; ///< <dir>/LOCK: exclusive, or shared by a consumer group's members
    FolderLock member; ///< <dir>/members/<member>/LOCK (consumer-group members only)
};

/// Locks settings.checkpoint.dir (or --checkpoint-dir) for this run; nothing when checkpoints
/// are off. "" or the refusal, naming the folder, the holder and the fix.
/// --member names: letters, digits, '-', '_', '.' (a folder name, never a path).
bool validMemberName(const std::string &member);

[[nodiscard]] std::string
lockCheckpointFolder(const PipelineSpec &spec, const JobOptions &options, RunLocks &locks);

} // namespace tideline::checkpoint
