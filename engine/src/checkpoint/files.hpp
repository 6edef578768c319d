#pragma once
// Small POSIX helpers for making checkpoint files durable, and turning errno / RocksDB status
// into the short failure causes the metrics show ("disk full", "permission denied").

#include <cstdint>
#include <string>

namespace tideline::checkpoint {

/// Short cause for an errno value: "disk full", "permission denied", "read-only file system"...
std::string causeFromErrno(int err);
/// Best guess of the cause inside a RocksDB/IO error message ("No space left on device" ...).
std::string causeFromMessage(const std::string &message);

/// fsync a directory so that renames/creates inside it survive a power cut. "" or error.
std::string fsyncDir(const std::string &dir);
/// Writes `content` to `path` atomically: temp file, fsync, rename, fsync the folder.
/// Returns "" or the error text (errno in *errnoOut).
std::string
writeFileDurably(const std::string &path, const std::string &content, int *errnoOut = nullptr);
/// Total size of the regular files under `dir` (recursive); 0 when missing.
std::uint64_t treeBytes(const std::string &dir);
/// Reads a whole (small) file. false when it cannot.
bool readFile(const std::string &path, std::string &out, std::string &error);

} // namespace tideline::checkpoint
