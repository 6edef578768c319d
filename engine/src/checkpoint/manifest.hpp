#pragma once
// The manifest: the small JSON file whose durable presence makes a checkpoint (or savepoint)
// complete. It names the RocksDB folder holding the state and lists, per node, the state's
// size and CRC32C, the fingerprint of the params that shape it, and the runtime's watermarks;
// a CRC32C over the manifest itself seals it (sealed_json.hpp).
//
//   <checkpoint dir>/chk-000012/        RocksDB: key "s/<node id>/<chunk>" -> state bytes
//   <checkpoint dir>/manifest-12.json   written last (temp + fsync + rename + fsync folder)
//   <savepoint dir>/state/ + <savepoint dir>/manifest.json   (same format, kind "savepoint")

#include <tideline/engine/time.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tideline::checkpoint {

/// Format 2 is format 1 with a seal (sealed_json.hpp): a CRC32C over the manifest itself.
inline constexpr const char *kManifestFormat = "tideline-checkpoint/2";
/// Written before seals existed; still restored.
inline constexpr const char *kManifestFormatUnsealed = "tideline-checkpoint/1";

struct NodeEntry
{
    std::string id;
    std::string kind;
    std::string fingerprint;
    std::uint64_t bytes = 0;
    std::uint32_t crc = 0;
    std::uint64_t chunks = 0;
    // Runtime side of the node (watermarks, figures), restored with the operator's state.
    Timestamp outW = kMinTime;
    Timestamp combinedIn = kMinTime;
    /// A partition task's `watermark` instance: its own partition's watermark (outW is the
    /// merge over the member's partitions). Absent in manifests written before it existed.
    bool hasOwnW = false;
    Timestamp ownW = kMinTime;
    bool outIdle = false;
    bool sourceFinished = false;
    std::int64_t recordsIn = 0;
    std::int64_t recordsOut = 0;
    std::int64_t late = 0;
    std::int64_t errors = 0;
};

struct Manifest
{
    std::int64_t id = 0;
    std::string kind = "checkpoint"; ///< "checkpoint" or "savepoint"
    std::string pipeline;            ///< pipeline name (information only)
    std::int64_t createdMs = 0;      ///< processing time when the snapshot was taken
    bool final = false;              ///< taken when the run ended (finished or stopped)
    std::string endStatus;           ///< "finished", "stopped" or "" (periodic)
    std::string stateDir;            ///< RocksDB folder, relative to the manifest's folder
    std::int64_t recordsRead = 0;
    std::vector<NodeEntry> nodes;

    const NodeEntry *node(const std::string &nodeId) const
    {
        for (const auto &n : nodes)
            if (n.id == nodeId)
                return &n;
        return nullptr;
    }
};

/// The manifest's text, sealed.
std::string writeManifest(const Manifest &m);
/// false with `error` ("not JSON: ...", "fails its checksum", "missing field ...") when
/// unusable: truncated, corrupt or edited.
[[nodiscard]] bool parseManifest(const std::string &text, Manifest &m, std::string &error);

} // namespace tideline::checkpoint
