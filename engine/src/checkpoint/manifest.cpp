#include "checkpoint/manifest.hpp"

#include "checkpoint/sealed_json.hpp"

#include <tideline/engine/spec.hpp> // Json (nlohmann ordered_json)

namespace tideline::checkpoint {

std::string writeManifest(const Manifest &m)
{
    Json j = Json::object();
    j["format"] = kManifestFormat;
    j["id"] = m.id;
    j["kind"] = m.kind;
    j["pipeline"] = m.pipeline;
    j["created_ms"] = m.createdMs;
    j["final"] = m.final;
    j["end_status"] = m.endStatus;
    j["state_dir"] = m.stateDir;
    j["records_read"] = m.recordsRead;
    Json nodes = Json::array();
    for (const auto &n : m.nodes) {
        Json e = Json::object();
        e["id"] = n.id;
        e["kind"] = n.kind;
        e["fingerprint"] = n.fingerprint;
        e["bytes"] = n.bytes;
        e["crc32c"] = n.crc;
        e["chunks"] = n.chunks;
        e["out_w"] = n.outW;
        e["combined_in"] = n.combinedIn;
        if (n.hasOwnW)
            e["own_w"] = n.ownW;
        e["out_idle"] = n.outIdle;
        e["source_finished"] = n.sourceFinished;
        e["records_in"] = n.recordsIn;
        e["records_out"] = n.recordsOut;
        e["late"] = n.late;
        e["errors"] = n.errors;
        nodes.push_back(std::move(e));
    }
    j["nodes"] = std::move(nodes);
    seal(j);
    return j.dump(1) + "\n";
}

bool parseManifest(const std::string &text, Manifest &m, std::string &error)
{
    std::string err = checkJsonShape(text, 64u << 20, 16);
    if (!err.empty()) {
        error = "manifest is not usable: " + err;
        return false;
    }
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = "manifest is not valid JSON (truncated or corrupt)";
        return false;
    }
    const SealCheck sealed = unseal(j);
    if (sealed == SealCheck::Broken) {
        error = "manifest fails its checksum (corrupt, or edited by hand)";
        return false;
    }
    try {
        // Sealed manifests are format 2; format 1 (written before seals) is read as it was.
        const std::string format = j.at("format").get<std::string>();
        const char *expected
            = sealed == SealCheck::Valid ? kManifestFormat : kManifestFormatUnsealed;
        if (format != expected) {
            error = format == kManifestFormat
                        ? "manifest has lost its checksum (corrupt, or edited by hand)"
                        : "manifest has unknown format `" + format + "`";
            return false;
        }
        m = Manifest{};
        m.id = j.at("id").get<std::int64_t>();
        m.kind = j.at("kind").get<std::string>();
        m.pipeline = j.value("pipeline", std::string());
        m.createdMs = j.at("created_ms").get<std::int64_t>();
        m.final = j.at("final").get<bool>();
        m.endStatus = j.value("end_status", std::string());
        m.stateDir = j.at("state_dir").get<std::string>();
        m.recordsRead = j.at("records_read").get<std::int64_t>();
        for (const auto &e : j.at("nodes")) {
            NodeEntry n;
            n.id = e.at("id").get<std::string>();
            n.kind = e.at("kind").get<std::string>();
            n.fingerprint = e.at("fingerprint").get<std::string>();
            n.bytes = e.at("bytes").get<std::uint64_t>();
            n.crc = e.at("crc32c").get<std::uint32_t>();
            n.chunks = e.at("chunks").get<std::uint64_t>();
            n.outW = e.at("out_w").get<std::int64_t>();
            n.combinedIn = e.at("combined_in").get<std::int64_t>();
            if (auto own = e.find("own_w"); own != e.end()) {
                n.hasOwnW = true;
                n.ownW = own->get<std::int64_t>();
            }
            n.outIdle = e.at("out_idle").get<bool>();
            n.sourceFinished = e.at("source_finished").get<bool>();
            n.recordsIn = e.value("records_in", std::int64_t{0});
            n.recordsOut = e.value("records_out", std::int64_t{0});
            n.late = e.value("late", std::int64_t{0});
            n.errors = e.value("errors", std::int64_t{0});
            m.nodes.push_back(std::move(n));
        }
    } catch (const std::exception &e) {
        error = std::string("manifest is missing a field or has a wrong type: ") + e.what();
        return false;
    }
    return true;
}

} // namespace tideline::checkpoint
