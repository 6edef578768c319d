// A recording folder: the manifest, writing records.tsv so that a kill or a full disk leaves a
// valid recording, and reading it back with errors that name the file and line (recording.hpp).

#include "checkpoint/sealed_json.hpp"

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
constexpr std::size_t kRelease = 1 << 20; ///< a mapped reader gives its pages back per MiB
constexpr std::size_t kAhead = 4096;      ///< how far ahead a mapped reader prefetches
constexpr const char *kRecords = "records.tsv";
constexpr const char *kManifest = "manifest.json";

Json toJson(const Manifest &m)
{
    Json j = Json::object();
    j["format"] = kFormat;
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
    if (!j.is_object() || j.value("format", std::string()) != kFormat)
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
        const std::size_t before = m_buffer.size();
        appendLine(m_buffer, e, m_manifest.sources[static_cast<std::size_t>(e.source)].id);
        m_manifest.bytes += static_cast<std::int64_t>(m_buffer.size() - before);
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
    const std::size_t before = m_buffer.size();
    const auto &id = m_manifest.sources[static_cast<std::size_t>(e.source)].id;
    appendLine(m_buffer, e, id);
    const auto lineBytes = static_cast<std::int64_t>(m_buffer.size() - before);
    if (m_limits.maxBytes > 0 && m_manifest.bytes + lineBytes > m_limits.maxBytes) {
        m_buffer.resize(before); // a line that does not fit is not written at all
        m_stoppedBy = "max bytes";
        return false;
    }
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

bool Writer::flush()
{
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

/// records.tsv is mapped when it can be: a replay then parses the page cache's bytes in place,
/// without read()'s copy of every byte (about 5 % of a replay's CPU, issue 19). The lines are
/// what the file held when it was opened. Pages behind the reader are given back every MiB,
/// so the resident size stays that of a buffer. Where mapping fails, read() as before.
void Reader::map()
{
    m_data = m_buffer.data();
    struct stat st;
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return;
    const auto size = static_cast<std::size_t>(st.st_size);
    void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, m_fd, 0);
    if (p == MAP_FAILED)
        return;
    (void)::madvise(p, size, MADV_SEQUENTIAL);
    m_map = m_data = static_cast<const char *>(p);
    m_mapSize = m_end = size;
    m_eof = true; // nothing to read: the whole file is there
}

bool Reader::fill()
{
    // The unread tail moves to the front and the file is read straight into the buffer (no
    // bounce copy). 256 KiB stays in the L2 cache while its lines are parsed; a line longer
    // than the buffer doubles it.
    constexpr std::size_t kReadBytes = 256 << 10;
    if (m_pos > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_pos, m_end - m_pos);
        m_end -= m_pos;
        m_scan -= m_pos;
        m_pos = 0;
    }
    if (m_buffer.size() < kReadBytes)
        m_buffer.resize(kReadBytes);
    else if (m_end == m_buffer.size())
        m_buffer.resize(m_buffer.size() * 2);
    m_data = m_buffer.data();
    ssize_t n;
    do
        n = ::read(m_fd, m_buffer.data() + m_end, m_buffer.size() - m_end);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        m_eof = true;
        return false;
    }
    m_end += static_cast<std::size_t>(n);
    return true;
}

Reader::Take Reader::takeLine(std::string_view &line, bool mayRead)
{
    const Manifest &m = m_info.manifest;
    if (m_map && mayRead && m_pos - m_released >= kRelease) {
        // No view of the bytes before m_pos is held now: their pages go back (they stay in
        // the page cache; only this process's resident size shrinks).
        const std::size_t upTo = m_pos / kRelease * kRelease;
        (void)::madvise(const_cast<char *>(m_map) + m_released, upTo - m_released, MADV_DONTNEED);
        m_released = upTo;
    }
    if (m_map && m_scan + kAhead < m_end)
        // The mapped bytes come from memory, not from a copy just made: ask for the lines a
        // few KiB ahead now (the hardware prefetcher stops at each page's end).
        __builtin_prefetch(m_data + m_scan + kAhead);
    for (;;) {
        const char *from = m_data + m_scan;
        const auto *nlp = static_cast<const char *>(std::memchr(from, '\n', m_end - m_scan));
        if (!nlp) {
            m_scan = m_end;
            if (!m_eof && !mayRead)
                return Take::NeedRead; // the caller still holds views of the buffer
            if (!m_eof && fill())
                continue;
            const bool torn = m_pos < m_end;
            if (m.complete && (torn || m_read != m.records + m.ends)) {
                m_error
                    = m_path
                      + (torn ? " line " + std::to_string(m_line + 1) + ": cut off (no end of line)"
                              : "")
                      + (torn ? "; " : ": ") + "the manifest says the recording is complete with "
                      + std::to_string(m.records) + " records"
                      + (m.ends ? " and " + std::to_string(m.ends) + " end markers" : "") + " but "
                      + std::to_string(m_read) + " whole lines are there (truncated?)";
                return Take::End;
            }
            if (torn)
                m_info.notes.push_back(m_path + " line " + std::to_string(m_line + 1)
                                       + " was cut off by the interruption and is left out");
            return Take::End;
        }
        const auto nl = static_cast<std::size_t>(nlp - m_data);
        line = std::string_view(m_data + m_pos, nl - m_pos);
        m_pos = m_scan = nl + 1;
        ++m_line;
        return Take::Line;
    }
}

int Reader::sourceOf(std::string_view id)
{
    const auto &sources = m_info.manifest.sources;
    if (sources[static_cast<std::size_t>(m_lastSource)].id == id)
        return m_lastSource;
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i].id == id)
            return m_lastSource = static_cast<int>(i);
    m_error = m_path + " line " + std::to_string(m_line) + ": source `" + std::string(id)
              + "` is not one of the manifest's sources";
    return -1;
}

bool Reader::next(Entry &e)
{
    if (!m_error.empty())
        return false;
    std::string_view line;
    if (takeLine(line, true) != Take::Line)
        return false;
    if (std::string why = parseLine(line, e, m_sourceId); !why.empty()) {
        m_error = m_path + " line " + std::to_string(m_line) + ": " + why;
        return false;
    }
    e.source = sourceOf(m_sourceId);
    if (e.source < 0)
        return false;
    ++m_read;
    return true;
}

Reader::Got Reader::nextView(LineView &v, Entry &e, int &source, std::string &scratch, bool mayRead)
{
    if (!m_error.empty())
        return Got::End;
    std::string_view line;
    switch (takeLine(line, mayRead)) {
    case Take::Line:
        break;
    case Take::NeedRead:
        return Got::NeedRead;
    case Take::End:
        return Got::End;
    }
    Got got = Got::View;
    if (parseLineView(line, v, scratch)) [[likely]] {
        source = sourceOf(v.sourceId);
    } else {
        // A key, headers or an escaped source id; or a bad line, which parseLine names.
        if (std::string why = parseLine(line, e, m_sourceId); !why.empty()) {
            m_error = m_path + " line " + std::to_string(m_line) + ": " + why;
            return Got::End;
        }
        e.source = source = sourceOf(m_sourceId);
        got = Got::Entry;
    }
    if (source < 0)
        return Got::End;
    ++m_read;
    return got;
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
