// Recorder: a run's sources hand it their raw input; it stamps each record with the processing
// time since the recording began and writes it through recording::Writer (record_replay.hpp).
//
// What a kill leaves: the Writer buffers lines; checkpoint() (every second, from the loop
// thread: add() itself, and the runner's metrics callback when no record arrives) writes them
// and rewrites the manifest, so a SIGKILL loses at most the last second and never leaves a
// line the reader cannot tell is torn.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/record_json.hpp>
#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/spec.hpp>

#include <filesystem>

namespace tideline::recording {

namespace {
constexpr std::int64_t kCheckpointEveryMs = 1000;
constexpr std::int64_t kCheckClockEvery = 1024; ///< records between two clock reads in add()
} // namespace

std::vector<SourceInfo> pipelineSources(const PipelineSpec &spec)
{
    std::vector<SourceInfo> out;
    for (const auto &n : spec.nodes)
        if (const NodeKind *k = findNodeKind(n.kind); k && k->isSource)
            out.push_back({n.id, n.kind, 1, 0});
    return out;
}

void captureRecord(Capture &capture, int source, const Record &record)
{
    Entry e;
    e.partition = static_cast<std::int32_t>(record.partition);
    e.value = toJson(record);
    capture.add(source, e);
}

std::unique_ptr<Recorder> Recorder::create(const std::string &dir,
                                           const PipelineSpec &spec,
                                           std::string_view pipelineText,
                                           Limits limits,
                                           Clock &clock,
                                           std::string &error)
{
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::path(dir) / "manifest.json", ec)) {
        error = "--record: " + dir
                + " already holds a recording (manifest.json): choose another folder or remove it";
        return nullptr;
    }
    std::unique_ptr<Recorder> r(new Recorder);
    r->m_dir = dir;
    r->m_manifest.pipeline = spec.name;
    r->m_manifest.pipelineSha256 = sha256Hex(pipelineText);
    r->m_manifest.sources = pipelineSources(spec);
    if (r->m_manifest.sources.empty()) {
        error = "--record: the pipeline has no source to record";
        return nullptr;
    }
    r->m_limits = limits;
    r->m_clock = &clock;
    return r;
}

Recorder::~Recorder() = default;

int Recorder::declare(const std::string &nodeId, int partitions)
{
    for (std::size_t i = 0; i < m_manifest.sources.size(); ++i)
        if (m_manifest.sources[i].id == nodeId) {
            m_manifest.sources[i].partitions = std::max(1, partitions);
            return static_cast<int>(i);
        }
    return -1;
}

void Recorder::add(int source, Entry &e)
{
    if (m_stopped || source < 0)
        return;
    e.source = source;
    if (!m_writer) { // still opening: a CSV header, read in open()
        e.atMs = 0;
        m_early.push_back(e);
        return;
    }
    e.atMs = std::max<std::int64_t>(0, m_clock->nowMs() - m_manifest.startedAtMs);
    if (!m_writer->add(e)) {
        stopped();
        return;
    }
    // Stop as soon as the limit is reached, not at the record after it (which may never come).
    if (m_limits.maxRecords > 0 && m_writer->manifest().records >= m_limits.maxRecords) {
        m_reason = "max records";
        stopped();
        return;
    }
    if (++m_sinceCheck >= kCheckClockEvery) {
        m_sinceCheck = 0;
        if (e.atMs + m_manifest.startedAtMs - m_lastCheckpointMs >= kCheckpointEveryMs)
            checkpoint();
    }
}

void Recorder::endOf(const std::string &nodeId)
{
    for (std::size_t i = 0; i < m_manifest.sources.size(); ++i)
        if (m_manifest.sources[i].id == nodeId) {
            Entry e;
            e.end = true;
            add(static_cast<int>(i), e);
            return;
        }
}

std::string Recorder::begin()
{
    m_manifest.startedAtMs = m_clock->nowMs();
    m_lastCheckpointMs = m_manifest.startedAtMs;
    m_writer = Writer::create(m_dir, m_manifest, m_limits, m_error);
    if (!m_writer)
        return "--record: " + m_error;
    for (Entry &e : m_early)
        if (!m_writer->add(e)) {
            stopped();
            break;
        }
    m_early.clear();
    if (std::string e = m_writer->checkpoint(); !e.empty())
        return "--record: " + e;
    return {};
}

void Recorder::checkpoint()
{
    if (!m_writer)
        return;
    m_lastCheckpointMs = m_clock->nowMs();
    if (std::string e = m_writer->checkpoint(); !e.empty() && m_error.empty())
        m_error = e;
    if (!m_writer->stoppedBy().empty())
        stopped();
}

std::string Recorder::finish(const std::string &stoppedBy)
{
    if (!m_writer)
        return m_error;
    std::string e = m_writer->finish(m_reason.empty() ? stoppedBy : m_reason);
    return e.empty() ? std::string() : "--record: " + e;
}

void Recorder::stopped()
{
    if (m_stopped)
        return;
    m_stopped = true;
    if (onStopped)
        onStopped();
}

const std::string &Recorder::stoppedBy() const
{
    static const std::string none;
    if (m_writer && !m_writer->stoppedBy().empty())
        return m_writer->stoppedBy();
    return m_reason.empty() ? none : m_reason;
}

Manifest Recorder::manifest() const
{
    return m_writer ? m_writer->manifest() : m_manifest;
}

} // namespace tideline::recording
