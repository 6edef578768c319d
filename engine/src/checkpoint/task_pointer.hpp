#pragma once
// Task pointers: where a partition task's newest state is. In a consumer group every member
// writes its checkpoints under <checkpoint dir>/members/<member>/, and after each completed
// checkpoint one small file per partition it owns:
//
//   <checkpoint dir>/tasks/<source node id>/p<N>.json
//     {"member": "a", "checkpoint": 12, "manifest": "members/a/manifest-12.json",
//      "offset": 4711, "written_ms": ..., "crc32c": ...}   (sealed: sealed_json.hpp)
//
// Whoever is assigned partition N next reads it, restores the instances "<node>#p<N>" from
// that manifest's state and resumes N at `offset` (the position the state was taken at). The
// pointer is written after the manifest is durable, so it never names an incomplete
// checkpoint; a member's retention keeps every checkpoint a pointer still names.

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::checkpoint {

struct TaskPointer
{
    std::string source; ///< source node id
    int partition = -1;
    std::string member;
    std::int64_t checkpoint = 0;
    std::string manifest; ///< relative to the shared checkpoint dir
    std::int64_t offset = -1;
    std::int64_t writtenMs = 0;
};

std::string taskPointerPath(const std::string &sharedDir, const std::string &source, int partition);
/// Durable (temp + fsync + rename). "" or the error.
[[nodiscard]] std::string writeTaskPointer(const std::string &sharedDir, const TaskPointer &p);
/// false with `error` empty when there is no pointer; with `error` set when it is unreadable,
/// corrupt or edited (its seal does not match).
[[nodiscard]] bool readTaskPointer(const std::string &path, TaskPointer &p, std::string &error);
/// Every readable pointer under <sharedDir>/tasks.
std::vector<TaskPointer> readAllTaskPointers(const std::string &sharedDir);
/// Removes every pointer (--fresh). Returns how many were removed.
int removeAllTaskPointers(const std::string &sharedDir);

} // namespace tideline::checkpoint
