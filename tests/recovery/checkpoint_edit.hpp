#pragma once
// Shared by the recovery tests: an in-process job maker with a ManualClock and a log, the
// complete checkpoints of a folder, and rewriting one node's saved state inside a checkpoint
// (to turn it into the layout an older build wrote, with the manifest's size and CRC fixed up).

#include "checkpoint/checksum.hpp"
#include "checkpoint/manifest.hpp"
#include "checkpoint/state_db.hpp"
#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tideline::recoverytest {

namespace fs = std::filesystem;

using tideline::testing::completeIds;

/// The recovery tests' jobs: the shared JobHarness with slices of 1,000 records.
struct Harness : tideline::testing::JobHarness
{
    void advance(Job &job, std::int64_t records, std::int64_t slice = 1000, std::int64_t ms = 60)
    {
        JobHarness::advance(job, records, slice, ms);
    }
};

/// JSON lines {"id","user","t"}, event i at 1700000000000 + 20 i ms.
inline std::string events(int from, int to, const std::string &tag = "e")
{
    std::string s;
    for (int i = from; i < to; ++i)
        s += "{\"id\":\"" + tag + std::to_string(i) + "\",\"user\":\"u" + std::to_string(i % 50)
             + "\",\"t\":" + std::to_string(1'700'000'000'000 + std::int64_t(i) * 20) + "}\n";
    return s;
}

/// source.file data.jsonl -> sink.file out/copy.jsonl: the output is the input re-serialised,
/// in input order.
inline std::string copyPipeline(bool checkpoints, std::int64_t intervalMs = 1000)
{
    return std::string(R"({"format":"tideline/1","name":"c",)")
           + (checkpoints ? R"("settings":{"checkpoint":{"interval_ms":)"
                                + std::to_string(intervalMs) + R"(,"dir":"checkpoints"}},)"
                          : "")
           + R"("nodes":[
      {"id":"in","kind":"source.file","params":{"path":"data.jsonl"}},
      {"id":"out","kind":"sink.file","params":{"path":"out/copy.jsonl"}}],
      "edges":[{"from":"in.out","to":"out.in"}]})";
}

/// Replaces node `nodeId`'s state in the newest complete checkpoint of `ckdir` by
/// `edit(state)`: a new state DB and a manifest with the new size, chunk count and CRC32C.
/// "" or what went wrong.
inline std::string editNewestCheckpoint(const std::string &ckdir,
                                        const std::string &nodeId,
                                        const std::function<std::string(const std::string &)> &edit)
{
    auto ids = completeIds(ckdir);
    if (ids.empty())
        return "no complete checkpoint in " + ckdir;
    const std::string manifestPath = ckdir + "/manifest-" + std::to_string(ids.back()) + ".json";
    checkpoint::Manifest m;
    std::string err;
    if (!checkpoint::parseManifest(tideline::testing::readFile(manifestPath), m, err))
        return err;
    std::vector<checkpoint::BlobSpec> specs;
    for (const auto &n : m.nodes)
        specs.push_back({n.id, n.bytes, n.chunks});
    std::map<std::string, std::string> blobs;
    const std::string stateDir = ckdir + "/" + m.stateDir;
    if (!checkpoint::readStateDb(stateDir, specs, blobs, err))
        return err;
    if (!blobs.count(nodeId))
        return "no state of node " + nodeId;
    blobs[nodeId] = edit(blobs[nodeId]);
    std::vector<checkpoint::NodeBlob> out;
    for (auto &n : m.nodes) {
        const std::string &b = blobs[n.id];
        n.bytes = b.size();
        n.chunks = checkpoint::chunkCount(b.size());
        n.crc = checkpoint::crc32c(b);
        out.push_back({n.id, b});
    }
    fs::remove_all(stateDir);
    auto r = checkpoint::writeStateDb(stateDir, out);
    if (!r.error.empty())
        return r.error;
    tideline::testing::writeFile(manifestPath, checkpoint::writeManifest(m));
    return {};
}

/// The saved state of `nodeId` in the newest complete checkpoint ("" when there is none).
inline std::string newestState(const std::string &ckdir, const std::string &nodeId)
{
    auto ids = completeIds(ckdir);
    if (ids.empty())
        return {};
    checkpoint::Manifest m;
    std::string err;
    if (!checkpoint::parseManifest(tideline::testing::readFile(
                                       ckdir + "/manifest-" + std::to_string(ids.back()) + ".json"),
                                   m, err))
        return {};
    std::vector<checkpoint::BlobSpec> specs;
    for (const auto &n : m.nodes)
        specs.push_back({n.id, n.bytes, n.chunks});
    std::map<std::string, std::string> blobs;
    if (!checkpoint::readStateDb(ckdir + "/" + m.stateDir, specs, blobs, err))
        return {};
    return blobs[nodeId];
}

} // namespace tideline::recoverytest
