#pragma once
// The checkpoint store: the folder on disk and nothing else (no runtime, no operators).
// Names (chk-000012/ beside manifest-12.json), the scan that lists what a folder holds, the
// load that reads one checkpoint back and verifies every checksum, and retention (which
// checkpoints to delete once a newer one is complete). The layout is manifest.hpp's.
//
// A checkpoint is complete exactly when its manifest exists: deletion therefore removes
// manifests first (fsync the folder), then state folders, so that a crash in between leaves
// state without a manifest, which the scan reports as incomplete and the next retention pass
// removes.

#include "checkpoint/manifest.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/status.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tideline::checkpoint {

struct Settings
{
    bool enabled = false; ///< periodic checkpoints configured
    std::int64_t intervalMs = 10000;
    std::string dir; ///< absolute or relative to the working directory
    int keep = 3;
};

/// settings.checkpoint (dir relative to the pipeline folder) with JobOptions overrides applied.
Settings resolveSettings(const PipelineSpec &spec, const JobOptions &options);

std::string checkpointStateDirName(std::int64_t id);
std::string checkpointManifestName(std::int64_t id);
/// (a / b) as a string.
std::string joinPath(const std::string &a, const std::string &b);

/// One checkpoint id found in a folder: complete when it has a manifest.
struct Candidate
{
    std::int64_t id = 0;
    bool hasManifest = false;
    bool hasState = false;
};

/// What `dir` holds, newest first.
std::vector<Candidate> scanCheckpoints(const std::string &dir);

/// Reads a manifest and the state it names (relative to `baseDir`) and verifies every
/// checksum; fails with the reason the checkpoint is unusable.
[[nodiscard]] Status loadCheckpoint(const std::string &manifestPath,
                                    const std::string &baseDir,
                                    Manifest &m,
                                    std::map<std::string, std::string> &blobs);

/// Deletes every checkpoint in `dir` (--fresh). Returns how many there were.
int discardCheckpoints(const std::string &dir);

/// Retention after checkpoint `newest` completed: keeps the `keep` newest complete ones at or
/// below it, deletes the rest and abandoned incomplete ones. The checkpoints `protectedIds`
/// names (a partition's pointer still names them; asked only when something would be
/// deleted) are never deleted.
void deleteOldCheckpoints(const std::string &dir,
                          std::int64_t newest,
                          int keep,
                          const std::function<std::vector<std::int64_t>()> &protectedIds);

} // namespace tideline::checkpoint
