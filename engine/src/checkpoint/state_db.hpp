#pragma once
// The RocksDB side of a checkpoint: one small DB per checkpoint holding every node's state
// bytes, cut into 4 MiB chunks (key "s/<node id>/<chunk index>"). A DB per checkpoint (rather
// than RocksDB Checkpoint of one long-lived state DB) because operators keep their keyed state
// in memory and hand the runtime full snapshots: there is nothing to share between
// checkpoints, and deleting an old checkpoint is deleting a folder.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tideline::checkpoint {

struct NodeBlob
{
    std::string nodeId;
    std::string data;
};

struct StateWriteResult
{
    std::string error; ///< "" on success
    std::string cause; ///< short cause ("disk full", "permission denied") when it failed
    std::uint64_t chunks = 0;
};

inline constexpr std::size_t kChunkBytes = 4u << 20;

inline std::uint64_t chunkCount(std::size_t bytes)
{
    return bytes == 0 ? 0 : (bytes + kChunkBytes - 1) / kChunkBytes;
}

/// Creates `dir` (must not exist) as a RocksDB holding the blobs, flushed to SST files and
/// synced. On failure the partial folder is removed.
StateWriteResult writeStateDb(const std::string &dir, const std::vector<NodeBlob> &blobs);

struct BlobSpec
{
    std::string nodeId;
    std::uint64_t bytes = 0;
    std::uint64_t chunks = 0;
};

/// Reads the listed blobs back (read-only open; RocksDB verifies block checksums). false with
/// `error` on a missing/corrupt DB or a missing chunk; sizes are checked here, CRCs by caller.
bool readStateDb(const std::string &dir,
                 const std::vector<BlobSpec> &specs,
                 std::map<std::string, std::string> &out,
                 std::string &error);

} // namespace tideline::checkpoint
