#include "checkpoint/writer.hpp"

#include "checkpoint/checksum.hpp"
#include "checkpoint/crash_point.hpp"
#include "checkpoint/files.hpp"

#include <chrono>
#include <filesystem>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHistory = 32;
constexpr std::size_t kRecycleBytes = 1u << 20;

std::int64_t steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

Writer::Writer(RuntimePort &rt, const Settings &settings, const std::string &sharedDir)
    : m_rt(rt)
    , m_settings(settings)
    , m_sharedDir(sharedDir)
{
}

Writer::~Writer()
{
    // A job dropped mid-run: let the writer finish (it only touches its own Attempt).
    if (m_pending && m_pending->thread.joinable())
        m_pending->thread.join();
}

bool Writer::written() const
{
    return m_pending && m_pending->done.load(std::memory_order_acquire);
}

Status Writer::take(
    Kind kind, std::int64_t id, const std::string &target, const std::string &endStatus, bool async)
{
    auto a = std::make_unique<Attempt>();
    a->kind = kind;
    a->root = target;
    a->t0 = steadyMs();
    a->manifest.id = id;
    if (!snapshot(*a, endStatus))
        return complete(*a);
    if (!async) {
        persist(*a);
        return complete(*a);
    }
    Attempt *raw = a.get();
    m_pending = std::move(a);
    m_pending->thread = std::thread([raw] {
        persist(*raw);
        raw->done.store(true, std::memory_order_release);
    });
    return {};
}

Status Writer::drain()
{
    if (!m_pending)
        return {};
    if (m_pending->thread.joinable())
        m_pending->thread.join();
    std::unique_ptr<Attempt> a = std::move(m_pending);
    return complete(*a);
}

bool Writer::snapshot(Attempt &a, const std::string &endStatus)
{
    const bool savepoint = a.kind == Kind::Savepoint;
    Manifest &m = a.manifest;
    m.kind = savepoint ? "savepoint" : "checkpoint";
    m.pipeline = m_rt.spec().name;
    m.createdMs = m_rt.clock().nowMs();
    m.final = !endStatus.empty();
    m.endStatus = endStatus;
    m.recordsRead = m_rt.recordsRead();
    m.stateDir = savepoint ? "state" : checkpointStateDirName(m.id);
    a.blobs.clear();
    m.nodes.clear();
    a.nodeOf.clear();
    std::vector<SectionInfo> sections;
    for (int s = 0; s < m_rt.sectionCount(); ++s)
        sections.push_back(m_rt.section(s));
    for (int v : m_rt.topoOrder()) {
        const NodeInfo info = m_rt.nodeInfo(v);
        // A partition task's instances are saved only while this member owns the partition.
        if (info.partition >= 0
            && !sections[static_cast<std::size_t>(info.section)]
                    .owned[static_cast<std::size_t>(info.partition)])
            continue;
        Operator &op = m_rt.op(v);
        // A recycled buffer: large state is serialised into memory that is already mapped.
        std::string reuse;
        if (static_cast<std::size_t>(v) < m_spare.size())
            reuse = std::move(m_spare[static_cast<std::size_t>(v)]);
        auto w = std::make_unique<StateWriter>(std::move(reuse));
        try {
            op.snapshotState(*w);
        } catch (const std::exception &e) {
            a.error = "node `" + info.id + "`: " + e.what();
            a.cause = causeFromMessage(e.what());
            return false;
        }
        const std::size_t k = a.blobs.size();
        a.blobs.emplace_back();
        m.nodes.emplace_back();
        a.nodeOf.push_back(v);
        NodeEntry &e = m.nodes[k];
        NodeBlob &b = a.blobs[k];
        b.nodeId = info.id;
        if (w->hasDeferred()) {
            // Finished by persist() (spilled keys read through a RocksDB snapshot).
            a.deferred.resize(k + 1);
            a.deferred[k] = std::move(w);
        } else {
            b.data = w->take();
        }
        e.id = info.id;
        e.kind = info.spec->kind;
        e.fingerprint = op.stateFingerprint();
        m_rt.captureNode(v, e);
    }
    // Partition tasks: a pointer per owned partition, written once the manifest is durable.
    if (!savepoint && !m_sharedDir.empty()) {
        a.sharedDir = m_sharedDir;
        const std::string manifestRel
            = fs::path(m_settings.dir).lexically_relative(m_sharedDir).string() + "/"
              + checkpointManifestName(m.id);
        for (std::size_t s = 0; s < sections.size(); ++s) {
            const SectionInfo &section = sections[s];
            const std::string sourceId = m_rt.nodeInfo(section.source).id;
            const auto positions = m_rt.taskPositions(static_cast<int>(s));
            for (int part = 0; part < section.partitions; ++part) {
                auto pos = positions.find(part);
                if (!section.owned[static_cast<std::size_t>(part)] || pos == positions.end())
                    continue;
                TaskPointer tp;
                tp.source = sourceId;
                tp.partition = part;
                tp.member = m_rt.options().member;
                tp.checkpoint = m.id;
                tp.manifest = manifestRel;
                tp.offset = pos->second;
                tp.writtenMs = m.createdMs;
                a.pointers.push_back(std::move(tp));
            }
        }
    }
    return true;
}

void Writer::persist(Attempt &a)
{
    const bool savepoint = a.kind == Kind::Savepoint;
    Manifest &m = a.manifest;
    auto failed = [&](const std::string &detail, const std::string &cause) {
        a.error = detail;
        a.cause = cause.empty() ? detail : cause;
        a.t1 = steadyMs();
    };
    for (std::size_t i = 0; i < a.deferred.size(); ++i) {
        if (!a.deferred[i])
            continue;
        try {
            a.blobs[i].data = a.deferred[i]->take();
        } catch (const std::exception &e) {
            return failed("node `" + a.blobs[i].nodeId + "`: " + e.what(),
                          causeFromMessage(e.what()));
        }
        a.deferred[i].reset();
    }
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        m.nodes[i].bytes = a.blobs[i].data.size();
        m.nodes[i].chunks = chunkCount(a.blobs[i].data.size());
        m.nodes[i].crc = crc32c(a.blobs[i].data);
    }
    std::error_code ec;
    if (savepoint) {
        fs::create_directories(a.root, ec);
        if (ec)
            return failed("cannot create savepoint folder " + a.root + ": " + ec.message(),
                          causeFromErrno(ec.value()));
        if (!fs::is_empty(a.root, ec))
            return failed("savepoint folder " + a.root + " is not empty (choose a new folder)",
                          "folder not empty");
    }
    crashPoint("before_state_write");
    a.stateDir = joinPath(a.root, m.stateDir);
    StateWriteResult wr = writeStateDb(a.stateDir, a.blobs);
    if (!wr.error.empty())
        return failed(wr.error, wr.cause);
    crashPoint("after_state_write");
    if (std::string e = fsyncDir(a.root); !e.empty())
        return failed(e, causeFromMessage(e));

    // The manifest makes it complete.
    crashPoint("before_manifest");
    a.manifestPath = joinPath(a.root, savepoint ? "manifest.json" : checkpointManifestName(m.id));
    const std::string text = writeManifest(m);
    int err = 0;
    if (std::string e = writeFileDurably(a.manifestPath, text, &err); !e.empty()) {
        fs::remove_all(a.stateDir, ec);
        return failed(e, err ? causeFromErrno(err) : causeFromMessage(e));
    }
    crashPoint("after_manifest");
    for (const auto &tp : a.pointers)
        if (std::string e = writeTaskPointer(a.sharedDir, tp); !e.empty())
            return failed("checkpoint " + std::to_string(m.id)
                              + " is durable but its pointer for partition "
                              + std::to_string(tp.partition) + " is not: " + e,
                          causeFromMessage(e));
    a.bytes = treeBytes(a.stateDir) + text.size();
    a.t1 = steadyMs();
}

void Writer::recycle(Attempt &a)
{
    // Keep the large buffers for the next checkpoint (small ones are not worth holding).
    m_spare.resize(static_cast<std::size_t>(m_rt.nodeCount()));
    for (std::size_t i = 0; i < a.blobs.size() && i < a.nodeOf.size(); ++i)
        if (a.blobs[i].data.capacity() >= kRecycleBytes)
            m_spare[static_cast<std::size_t>(a.nodeOf[i])] = std::move(a.blobs[i].data);
    a.blobs.clear();
}

std::vector<std::int64_t> Writer::pointedAt() const
{
    std::vector<std::int64_t> ids;
    for (const auto &tp : readAllTaskPointers(m_sharedDir))
        if (tp.member == m_rt.options().member)
            ids.push_back(tp.checkpoint);
    return ids;
}

Status Writer::complete(Attempt &a)
{
    recycle(a);
    const bool savepoint = a.kind == Kind::Savepoint;
    const std::int64_t id = a.manifest.id;
    const std::string what = (savepoint ? "savepoint " : "checkpoint ") + std::to_string(id);
    observe::CheckpointInfo info;
    info.id = id;
    info.kind = savepoint ? "savepoint" : "checkpoint";
    info.timeMs = m_rt.clock().nowMs();
    info.durationMs = (a.t1 ? a.t1 : steadyMs()) - a.t0;
    if (!a.error.empty()) {
        info.status = "failed";
        info.failureCause = a.cause.empty() ? a.error : a.cause;
        m_rt.recordCheckpoint(info, kHistory);
        m_rt.log(what + " failed: " + info.failureCause
                 + (info.failureCause == a.error ? "" : " (" + a.error + ")"));
        return Status::error(a.error);
    }
    // Durable: let operators commit (sinks, Kafka offsets).
    bool sinkSeen = false;
    for (int v : m_rt.topoOrder()) {
        const NodeInfo node = m_rt.nodeInfo(v);
        try {
            m_rt.op(v).notifyCheckpointComplete(id);
        } catch (const std::exception &e) {
            m_rt.log(what + " is complete but node `" + node.id
                     + "` failed to commit: " + e.what());
        }
        if (node.kind->isSink && !sinkSeen) {
            sinkSeen = true;
            crashPoint("during_sink_commit");
        }
    }
    if (!savepoint)
        deleteOldCheckpoints(
            m_settings.dir, id, m_settings.keep,
            m_sharedDir.empty() ? std::function<std::vector<std::int64_t>()>()
                                : [this] { return pointedAt(); });
    info.status = "completed";
    info.bytes = static_cast<std::int64_t>(a.bytes);
    m_rt.recordCheckpoint(info, kHistory);
    if (savepoint || a.manifest.final)
        m_rt.log(what + " written to " + (savepoint ? a.root : a.manifestPath) + " ("
                 + std::to_string(info.bytes) + " bytes, " + std::to_string(info.durationMs)
                 + " ms)");
    return {};
}

} // namespace tideline::checkpoint
