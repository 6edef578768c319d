#include "checkpoint/task_pointer.hpp"

#include "checkpoint/files.hpp"
#include "checkpoint/sealed_json.hpp"

#include <tideline/engine/spec.hpp> // Json

#include <algorithm>
#include <filesystem>
#include <iterator>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

std::string taskPointerPath(const std::string &sharedDir, const std::string &source, int partition)
{
    return (fs::path(sharedDir) / "tasks" / source / ("p" + std::to_string(partition) + ".json"))
        .string();
}

std::string writeTaskPointer(const std::string &sharedDir, const TaskPointer &p)
{
    const std::string path = taskPointerPath(sharedDir, p.source, p.partition);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec)
        return "cannot create " + fs::path(path).parent_path().string() + ": " + ec.message();
    Json j = Json::object();
    j["source"] = p.source;
    j["partition"] = p.partition;
    j["member"] = p.member;
    j["checkpoint"] = p.checkpoint;
    j["manifest"] = p.manifest;
    j["offset"] = p.offset;
    j["written_ms"] = p.writtenMs;
    seal(j);
    return writeFileDurably(path, j.dump() + "\n");
}

bool readTaskPointer(const std::string &path, TaskPointer &p, std::string &error)
{
    error.clear();
    std::error_code ec;
    if (!fs::exists(path, ec))
        return false;
    std::string text;
    if (!readFile(path, text, error)) {
        error = "cannot read " + path + ": " + error;
        return false;
    }
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = path + ": not a task pointer (not a JSON object: truncated or corrupt)";
        return false;
    }
    const SealCheck sealed = unseal(j);
    if (sealed == SealCheck::Broken) {
        error = path + ": the task pointer fails its checksum (corrupt, or edited by hand)";
        return false;
    }
    if (sealed == SealCheck::Unsealed) {
        // Pointers written before seals had exactly these keys; anything else is damage (a
        // flipped bit in the seal's own name, say).
        static const char *const kUnsealedKeys[]
            = {"source", "partition", "member", "checkpoint", "manifest", "offset", "written_ms"};
        for (const auto &item : j.items())
            if (std::find(std::begin(kUnsealedKeys), std::end(kUnsealedKeys), item.key())
                == std::end(kUnsealedKeys)) {
                error = path + ": not a task pointer (unexpected key `" + item.key() + "`)";
                return false;
            }
    }
    try {
        p.source = j.at("source").get<std::string>();
        p.partition = j.at("partition").get<int>();
        p.member = j.at("member").get<std::string>();
        p.checkpoint = j.at("checkpoint").get<std::int64_t>();
        p.manifest = j.at("manifest").get<std::string>();
        p.offset = j.at("offset").get<std::int64_t>();
        p.writtenMs = j.value("written_ms", std::int64_t{0});
    } catch (const std::exception &e) {
        error = path + ": not a task pointer (" + e.what() + ")";
        return false;
    }
    return true;
}

std::vector<TaskPointer> readAllTaskPointers(const std::string &sharedDir)
{
    std::vector<TaskPointer> out;
    std::error_code ec;
    const fs::path root = fs::path(sharedDir) / "tasks";
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file() || it->path().extension() != ".json")
            continue;
        TaskPointer p;
        std::string error;
        if (readTaskPointer(it->path().string(), p, error))
            out.push_back(std::move(p));
    }
    return out;
}

int removeAllTaskPointers(const std::string &sharedDir)
{
    int n = 0;
    std::error_code ec;
    const fs::path root = fs::path(sharedDir) / "tasks";
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json")
            ++n;
    fs::remove_all(root, ec);
    return n;
}

} // namespace tideline::checkpoint
