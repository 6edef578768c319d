#include "checkpoint/store.hpp"

#include "checkpoint/checksum.hpp"
#include "checkpoint/files.hpp"
#include "checkpoint/state_db.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

namespace {

/// Parses "<prefix><digits><suffix>" -> id, or -1.
std::int64_t idFrom(const std::string &name, const std::string &prefix, const std::string &suffix)
{
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0
        || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return -1;
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 18
        || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    return std::stoll(digits);
}

/// Manifests first, fsync, then state folders (see the header).
void removeCheckpoints(const std::string &dir, const std::vector<Candidate> &which)
{
    for (const auto &c : which)
        if (c.hasManifest)
            ::unlink(joinPath(dir, checkpointManifestName(c.id)).c_str());
    (void)fsyncDir(dir); // best effort: a manifest that survives a crash is deleted next time
    std::error_code ec;
    for (const auto &c : which)
        fs::remove_all(joinPath(dir, checkpointStateDirName(c.id)), ec);
}

} // namespace

std::string joinPath(const std::string &a, const std::string &b)
{
    return (fs::path(a) / b).string();
}

std::string checkpointStateDirName(std::int64_t id)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "chk-%06lld", static_cast<long long>(id));
    return buf;
}

std::string checkpointManifestName(std::int64_t id)
{
    return "manifest-" + std::to_string(id) + ".json";
}

Settings resolveSettings(const PipelineSpec &spec, const JobOptions &options)
{
    Settings s;
    auto it = spec.settings.find("checkpoint");
    if (it != spec.settings.end() && it->is_object()) {
        s.enabled = true;
        s.intervalMs = it->value("interval_ms", std::int64_t{10000});
        s.keep = static_cast<int>(it->value("keep", std::int64_t{3}));
        std::string dir = it->value("dir", std::string());
        if (!dir.empty() && dir[0] != '/')
            dir = joinPath(options.baseDir, dir);
        s.dir = dir;
    }
    if (!options.checkpointDirOverride.empty()) {
        // --checkpoint-dir alone turns checkpoints on at the default interval.
        s.enabled = true;
        s.dir = options.checkpointDirOverride;
    }
    s.intervalMs = std::max<std::int64_t>(1, s.intervalMs);
    s.keep = std::max(1, s.keep);
    return s;
}

std::vector<Candidate> scanCheckpoints(const std::string &dir)
{
    std::map<std::int64_t, Candidate> found;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (std::int64_t id = idFrom(name, "manifest-", ".json"); id >= 0) {
            found[id].id = id;
            found[id].hasManifest = true;
        } else if (std::int64_t sid = idFrom(name, "chk-", ""); sid >= 0) {
            found[sid].id = sid;
            found[sid].hasState = true;
        }
    }
    std::vector<Candidate> out;
    for (auto &[id, c] : found)
        out.push_back(c);
    std::sort(out.begin(), out.end(),
              [](const Candidate &a, const Candidate &b) { return a.id > b.id; });
    return out;
}

Status loadCheckpoint(const std::string &manifestPath,
                      const std::string &baseDir,
                      Manifest &m,
                      std::map<std::string, std::string> &blobs)
{
    std::string text, err;
    if (!readFile(manifestPath, text, err))
        return Status::error("cannot read " + manifestPath + ": " + err);
    if (!parseManifest(text, m, err))
        return Status::error(manifestPath + ": " + err);
    std::vector<BlobSpec> specs;
    for (const auto &n : m.nodes)
        specs.push_back({n.id, n.bytes, n.chunks});
    if (!readStateDb(joinPath(baseDir, m.stateDir), specs, blobs, err))
        return Status::error(err);
    for (const auto &n : m.nodes) {
        std::uint32_t crc = crc32c(blobs[n.id]);
        if (crc != n.crc)
            return Status::error("state of node `" + n.id + "` fails its checksum (crc32c "
                                 + std::to_string(crc) + ", manifest says " + std::to_string(n.crc)
                                 + ")");
    }
    return {};
}

int discardCheckpoints(const std::string &dir)
{
    auto all = scanCheckpoints(dir);
    // Manifests first: a checkpoint without a manifest is never used, whatever else remains.
    removeCheckpoints(dir, all);
    return static_cast<int>(all.size());
}

void deleteOldCheckpoints(const std::string &dir,
                          std::int64_t newest,
                          int keep,
                          const std::function<std::vector<std::int64_t>()> &protectedIds)
{
    int kept = 0;
    std::vector<Candidate> drop;
    for (const auto &c : scanCheckpoints(dir)) {
        if (c.id > newest)
            continue; // not ours to judge
        if (c.hasManifest) {
            if (++kept > keep)
                drop.push_back(c);
        } else if (c.id < newest) {
            drop.push_back(c); // abandoned by a crash: never completed
        }
    }
    if (!drop.empty() && protectedIds) {
        // Never delete a checkpoint that a partition's pointer still names: the partition's
        // next owner restores from it.
        const std::vector<std::int64_t> named = protectedIds();
        drop.erase(std::remove_if(drop.begin(), drop.end(),
                                  [&](const Candidate &c) {
                                      return std::find(named.begin(), named.end(), c.id)
                                             != named.end();
                                  }),
                   drop.end());
    }
    if (!drop.empty())
        removeCheckpoints(dir, drop);
}

} // namespace tideline::checkpoint
