#pragma once
// The consumer-group member: the checkpoint side of partition tasks (runtime/partition_tasks.cpp
// describes the instances, task_pointer.hpp the files). A member checkpoints under
// <dir>/members/<member>/ (locked for the run: folder_lock.hpp) and shares <dir>/tasks/ with
// the other members: one pointer per partition naming the checkpoint that holds its state.
//
// Moving a partition: on revoke the member hands it over (a checkpoint that still includes
// the leaving partitions, whose pointers name it); on assign it adopts the partition: restores
// its instances from the newest pointer, whoever wrote it, else from this member's own
// restored checkpoint (the stash), else starts them empty, and names the offset to resume at.

#include "checkpoint/runtime_port.hpp"
#include "checkpoint/store.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tideline::checkpoint {

class GroupMember
{
public:
    explicit GroupMember(RuntimePort &rt);

    /// Moves `settings.dir` to members/<member>/ under it and creates that folder.
    [[nodiscard]] Status enter(Settings &settings);
    /// The group's shared checkpoint folder ("" when this run is not a group member).
    const std::string &sharedDir() const { return m_sharedDir; }

    // --- The stash: instances' state from this member's restored checkpoint ---
    void stash(int section, int partition, const NodeEntry &entry, std::string blob);
    void clearStash() { m_stash.clear(); }
    /// Partition tasks with stashed state.
    std::size_t stashedTasks() const { return m_stash.size(); }
    /// An explicit --restore wins over the group's pointers.
    void preferStash(bool prefer) { m_preferStash = prefer; }

    /// Restores partition `p`'s instances (see the header). The offset to resume at (-1: the
    /// source decides). Throws when saved state exists but cannot be used.
    std::int64_t adoptPartition(int section, int p);
    /// Hands `partitions` over: `checkpointNow` takes a synchronous checkpoint (which writes
    /// their pointers) and sets its id. That id, or -1 when it failed (logged).
    std::int64_t handOver(const std::vector<int> &partitions,
                          const std::function<Status(std::int64_t &id)> &checkpointNow);

private:
    struct Stashed
    {
        NodeEntry entry;
        std::string blob;
    };
    using Saved = std::map<std::string, Stashed>; ///< by instance id
    /// Restores partition p's instances from saved entries.
    [[nodiscard]] Status
    restoreInstances(int section, int p, Saved &saved, const std::string &origin);
    /// Empties partition p's instances.
    void resetInstances(int section, int p);

    RuntimePort &m_rt;
    std::string m_sharedDir;
    bool m_preferStash = false;
    /// Per (section, partition), used when the partition is assigned and no pointer is newer.
    std::map<std::pair<int, int>, Saved> m_stash;
};

} // namespace tideline::checkpoint
