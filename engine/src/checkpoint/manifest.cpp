#include "checkpoint/manifest.hpp"

#include "checkpoint/sealed_json.hpp"

#include <tideline/engine/spec.hpp> // Json (nlohmann ordered_json)

#include <limits>
#include <stdexcept>

namespace tideline::checkpoint {

namespace {

/// An integer field, exactly as written: nlohmann's get<T>() converts a float or an integer
/// beyond T without a check (out of range is undefined behaviour, a negative size wraps), so a
/// corrupt manifest could be read as silently wrong numbers. The writer writes integers only.
template<typename T>
T integerField(const Json &value, const char *name)
{
    using Limits = std::numeric_limits<T>;
    bool fits = false;
    if (value.is_number_unsigned()) {
        fits = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(Limits::max());
    } else if (value.is_number_integer()) {
        const std::int64_t v = value.get<std::int64_t>();
        fits = v < 0 ? Limits::is_signed && v >= static_cast<std::int64_t>(Limits::min())
                     : static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(Limits::max());
    }
    if (!fits)
        throw std::out_of_range(std::string("`") + name + "` is not an integer in range");
    return value.get<T>();
}

template<typename T>
T integerAt(const Json &obj, const char *name)
{
    return integerField<T>(obj.at(name), name);
}

template<typename T>
T integerOr(const Json &obj, const char *name, T fallback)
{
    const auto it = obj.find(name);
    return it == obj.end() ? fallback : integerField<T>(*it, name);
}

} // namespace

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
        m.id = integerAt<std::int64_t>(j, "id");
        m.kind = j.at("kind").get<std::string>();
        m.pipeline = j.value("pipeline", std::string());
        m.createdMs = integerAt<std::int64_t>(j, "created_ms");
        m.final = j.at("final").get<bool>();
        m.endStatus = j.value("end_status", std::string());
        m.stateDir = j.at("state_dir").get<std::string>();
        m.recordsRead = integerAt<std::int64_t>(j, "records_read");
        for (const auto &e : j.at("nodes")) {
            NodeEntry n;
            n.id = e.at("id").get<std::string>();
            n.kind = e.at("kind").get<std::string>();
            n.fingerprint = e.at("fingerprint").get<std::string>();
            n.bytes = integerAt<std::uint64_t>(e, "bytes");
            n.crc = integerAt<std::uint32_t>(e, "crc32c");
            n.chunks = integerAt<std::uint64_t>(e, "chunks");
            n.outW = integerAt<std::int64_t>(e, "out_w");
            n.combinedIn = integerAt<std::int64_t>(e, "combined_in");
            if (auto own = e.find("own_w"); own != e.end()) {
                n.hasOwnW = true;
                n.ownW = integerField<std::int64_t>(*own, "own_w");
            }
            n.outIdle = e.at("out_idle").get<bool>();
            n.sourceFinished = e.at("source_finished").get<bool>();
            n.recordsIn = integerOr<std::int64_t>(e, "records_in", 0);
            n.recordsOut = integerOr<std::int64_t>(e, "records_out", 0);
            n.late = integerOr<std::int64_t>(e, "late", 0);
            n.errors = integerOr<std::int64_t>(e, "errors", 0);
            m.nodes.push_back(std::move(n));
        }
    } catch (const std::exception &e) {
        error = std::string("manifest is missing a field or has a wrong type: ") + e.what();
        return false;
    }
    return true;
}

} // namespace tideline::checkpoint
