// A recording folder: the manifest, and writing records.tsv so that a kill or a full disk
// leaves a valid recording (recording.hpp). Reading it back: reader.cpp, reader_blocks.cpp.

#include "checkpoint/sealed_json.hpp"
#include "recording/line_text.hpp"

#include <tideline/engine/recording.hpp>
#include <tideline/engine/spec.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tideline::recording {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kFlushBytes = 1 << 20;
constexpr const char *kRecords = "records.tsv";
constexpr const char *kManifest = "manifest.json";

Json toJson(const Manifest &m)
{
    Json j = Json::object();
    j["format"] = m.version == 1 ? kFormatV1 : kFormat;
    j["pipeline"] = m.pipeline;
    j["pipeline_sha256"] = m.pipelineSha256;
    j["started_ms"] = m.startedAtMs;
    j["complete"] = m.complete;
    j["stopped_by"] = m.stoppedBy;
    j["records"] = m.records;
    j["ends"] = m.ends;
    j["bytes"] = m.bytes;
    j["duration_ms"] = m.durationMs;
    j["sources"] = Json::array();
    for (const auto &s : m.sources)
        j["sources"].push_back(
            {{"id", s.id}, {"kind", s.kind}, {"partitions", s.partitions}, {"records", s.records}});
    return j;
}

[[nodiscard]] std::string fromJson(const Json &j, Manifest &m)
{
    const std::string format = j.is_object() ? j.value("format", std::string()) : std::string();
    if (format == kFormat)
        m.version = 2;
    else if (format == kFormatV1)
        m.version = 1;
    else if (format.rfind("tideline-recording/", 0) == 0)
        return "its format " + format + " is not one this build reads (" + kFormatV1 + " and "
               + kFormat + "): was it made by a newer Tideline?";
    else
        return std::string("not a recording manifest (\"format\" is not \"") + kFormat + "\")";
    try {
        m.pipeline = j.at("pipeline").get<std::string>();
        m.pipelineSha256 = j.at("pipeline_sha256").get<std::string>();
        m.startedAtMs = j.at("started_ms").get<std::int64_t>();
        m.complete = j.at("complete").get<bool>();
        m.stoppedBy = j.at("stopped_by").get<std::string>();
        m.records = j.at("records").get<std::int64_t>();
        m.ends = j.value("ends", std::int64_t{0}); // absent in recordings before end markers
        m.bytes = j.at("bytes").get<std::int64_t>();
        m.durationMs = j.at("duration_ms").get<std::int64_t>();
        m.sources.clear();
        for (const auto &s : j.at("sources")) {
            SourceInfo info{s.at("id").get<std::string>(), s.at("kind").get<std::string>(),
                            s.at("partitions").get<int>(), s.at("records").get<std::int64_t>()};
            m.sources.push_back(std::move(info));
        }
    } catch (const std::exception &e) {
        return std::string("a field is missing or has the wrong type: ") + e.what();
    }
    if (m.sources.empty())
        return "it names no source";
    return {};
}

} // namespace

// --- Writer ---

std::unique_ptr<Writer>
Writer::create(const std::string &dir, Manifest manifest, Limits limits, std::string &error)
{
    std::error_code ec;
    if (fs::exists(fs::path(dir) / kManifest, ec)) {
        error = "recording folder " + dir
                + " already holds a recording (manifest.json): choose another folder or remove it";
        return nullptr;
    }
    fs::create_directories(dir, ec);
    if (ec) {
        error = "cannot create the recording folder " + dir + ": " + ec.message();
        return nullptr;
    }
    std::unique_ptr<Writer> w(new Writer);
    w->m_dir = dir;
    w->m_manifest = std::move(manifest);
    w->m_manifest.complete = false;
    w->m_limits = limits;
    w->m_pending.assign(w->m_manifest.sources.size(), 0);
    for (const auto &s : w->m_manifest.sources) {
        std::string id;
        line::escape(id, s.id);
        w->m_escapedIds.push_back(std::move(id));
    }
    const std::string path = (fs::path(dir) / kRecords).string();
    w->m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->m_fd < 0) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (std::string e = w->writeManifest(); !e.empty()) {
        error = e;
        return nullptr;
    }
    return w;
}

Writer::~Writer()
{
    if (!m_finished && m_fd >= 0)
        (void)finish("stopped");
    if (m_fd >= 0)
        ::close(m_fd);
}

bool Writer::add(const Entry &e)
{
    if (!m_stoppedBy.empty() || m_finished)
        return false;
    if (e.end) {
        // Not a record: no limit applies (a recording cut by one has no end markers after it).
        if (e.source < 0 || static_cast<std::size_t>(e.source) >= m_manifest.sources.size())
            return false;
        m_manifest.bytes += static_cast<std::int64_t>(append(e));
        ++m_manifest.ends;
        ++m_pendingEnds;
        return true;
    }
    if (m_limits.maxRecords > 0 && m_manifest.records >= m_limits.maxRecords) {
        m_stoppedBy = "max records";
        return false;
    }
    if (m_limits.maxDurationMs > 0 && m_firstAt >= 0
        && e.atMs - m_firstAt > m_limits.maxDurationMs) {
        m_stoppedBy = "max duration";
        return false;
    }
    if (e.source < 0 || static_cast<std::size_t>(e.source) >= m_manifest.sources.size()) {
        m_stoppedBy = "a record of source #" + std::to_string(e.source)
                      + ", which the manifest does not list (a bug in the recorder)";
        return false;
    }
    // A record that does not fit is not written at all (/2: its cost is known before).
    const std::size_t before = m_buffer.size();
    std::int64_t lineBytes = 0;
    if (m_manifest.version == 1) {
        lineBytes = static_cast<std::int64_t>(append(e));
    } else {
        lineBytes = static_cast<std::int64_t>(
            m_encoder.cost(e, m_escapedIds[static_cast<std::size_t>(e.source)]));
    }
    if (m_limits.maxBytes > 0 && m_manifest.bytes + lineBytes > m_limits.maxBytes) {
        m_buffer.resize(before);
        m_stoppedBy = "max bytes";
        return false;
    }
    if (m_manifest.version != 1)
        m_encoder.add(e, m_escapedIds[static_cast<std::size_t>(e.source)], m_buffer);
    if (m_firstAt < 0)
        m_firstAt = e.atMs;
    m_manifest.durationMs = e.atMs - m_firstAt;
    m_manifest.bytes += lineBytes;
    ++m_manifest.records;
    ++m_manifest.sources[static_cast<std::size_t>(e.source)].records;
    ++m_pending[static_cast<std::size_t>(e.source)];
    if (m_buffer.size() >= kFlushBytes && !flush())
        return false;
    return true;
}

std::size_t Writer::append(const Entry &e)
{
    const std::size_t before = m_buffer.size();
    const auto k = static_cast<std::size_t>(e.source);
    if (m_manifest.version == 1) {
        appendLine(m_buffer, e, m_manifest.sources[k].id);
        return m_buffer.size() - before;
    }
    const std::size_t bytes = m_encoder.cost(e, m_escapedIds[k]);
    m_encoder.add(e, m_escapedIds[k], m_buffer);
    return bytes;
}

bool Writer::flush()
{
    // Whole blocks only: the open one is closed first (a kill can then tear only the last).
    m_encoder.close(m_buffer);
    std::size_t done = 0;
    while (done < m_buffer.size()) {
        ssize_t n = ::write(m_fd, m_buffer.data() + done, m_buffer.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            // A full disk (or any write error): cut the file back to its last whole line, so the
            // recording holds exactly the lines the manifest will count.
            const int err = errno;
            (void)::ftruncate(m_fd, static_cast<off_t>(m_durable));
            // The buffered lines are lost: count only what is durable.
            for (std::size_t i = 0; i < m_pending.size(); ++i) {
                m_manifest.sources[i].records -= m_pending[i];
                m_manifest.records -= m_pending[i];
            }
            m_manifest.ends -= m_pendingEnds;
            m_pendingEnds = 0;
            m_manifest.bytes = m_durable;
            m_manifest.durationMs = m_durableDurationMs;
            m_buffer.clear();
            std::fill(m_pending.begin(), m_pending.end(), 0);
            m_stoppedBy
                = err == ENOSPC ? "disk full" : std::string("write error: ") + std::strerror(err);
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    m_durable += static_cast<std::int64_t>(m_buffer.size());
    m_durableDurationMs = m_manifest.durationMs;
    m_buffer.clear();
    std::fill(m_pending.begin(), m_pending.end(), 0);
    m_pendingEnds = 0;
    return true;
}

std::string Writer::writeManifest()
{
    Json j = toJson(m_manifest);
    checkpoint::seal(j);
    const fs::path final = fs::path(m_dir) / kManifest;
    const fs::path tmp = fs::path(m_dir) / ".manifest.json.tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << j.dump(1) << "\n";
        out.flush();
        if (!out)
            return "cannot write " + tmp.string() + " (disk full?)";
    }
    int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
    std::error_code ec;
    fs::rename(tmp, final, ec);
    if (ec)
        return "cannot replace " + final.string() + ": " + ec.message();
    return {};
}

std::string Writer::checkpoint()
{
    if (m_finished)
        return {};
    (void)flush();
    return writeManifest();
}

std::string Writer::finish(const std::string &stoppedBy)
{
    if (m_finished)
        return {};
    (void)flush();
    if (m_fd >= 0 && ::fsync(m_fd) != 0 && m_stoppedBy.empty())
        m_stoppedBy = std::string("fsync failed: ") + std::strerror(errno);
    m_manifest.complete = true;
    m_manifest.stoppedBy = m_stoppedBy.empty() ? stoppedBy : m_stoppedBy;
    m_finished = true;
    return writeManifest();
}

// --- Reader ---

std::unique_ptr<Reader> Reader::open(const std::string &dir, std::string &error)
{
    const fs::path manifestPath = fs::path(dir) / kManifest;
    std::ifstream in(manifestPath, std::ios::binary);
    if (!in) {
        error = manifestPath.string() + ": cannot read it: is " + dir
                + " a recording folder (made by --record)?";
        return nullptr;
    }
    std::stringstream text;
    text << in.rdbuf();
    Json j = Json::parse(text.str(), nullptr, false);
    if (j.is_discarded()) {
        error = manifestPath.string() + ": not valid JSON (truncated or edited?)";
        return nullptr;
    }
    if (checkpoint::unseal(j) != checkpoint::SealCheck::Valid) {
        error = manifestPath.string()
                + ": its seal does not match its content (edited or damaged); a recording's "
                  "manifest is written by the recorder only";
        return nullptr;
    }
    std::unique_ptr<Reader> r(new Reader);
    if (std::string e = fromJson(j, r->m_info.manifest); !e.empty()) {
        error = manifestPath.string() + ": " + e;
        return nullptr;
    }
    r->m_path = (fs::path(dir) / kRecords).string();
    r->m_fd = ::open(r->m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (r->m_fd < 0) {
        error = r->m_path + ": cannot read it: " + std::strerror(errno);
        return nullptr;
    }
    r->map();
    r->m_blocks = r->m_info.manifest.version >= 2;
    if (!r->m_info.manifest.complete)
        r->m_info.notes.push_back(
            "the recording in " + dir
            + " did not end cleanly (the recorder was killed or its disk filled): replaying the "
              "records it captured completely");
    return r;
}

Reader::~Reader()
{
    if (m_map)
        ::munmap(const_cast<char *>(m_map), m_mapSize);
    if (m_fd >= 0)
        ::close(m_fd);
}

std::vector<std::string> sourceMismatches(const Manifest &m,
                                          const std::vector<SourceInfo> &pipeline)
{
    std::vector<std::string> out;
    for (const auto &p : pipeline) {
        auto it = std::find_if(m.sources.begin(), m.sources.end(),
                               [&](const SourceInfo &s) { return s.id == p.id; });
        if (it == m.sources.end())
            out.push_back("source `" + p.id + "` (" + p.kind + ") is not in the recording");
        else if (it->kind != p.kind)
            out.push_back("source `" + p.id + "` is " + p.kind
                          + " in the pipeline but was recorded as " + it->kind);
    }
    for (const auto &s : m.sources)
        if (std::none_of(pipeline.begin(), pipeline.end(),
                         [&](const SourceInfo &p) { return p.id == s.id; }))
            out.push_back("the recording has source `" + s.id + "` (" + s.kind
                          + "), which the pipeline does not");
    return out;
}

} // namespace tideline::recording
