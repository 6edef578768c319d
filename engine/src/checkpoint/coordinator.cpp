#include "checkpoint/coordinator.hpp"

#include "checkpoint/checksum.hpp"
#include "checkpoint/crash_point.hpp"
#include "checkpoint/files.hpp"
#include "runtime/runtime.hpp"
#include "state/state_backend.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

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

std::string join(const std::string &a, const std::string &b)
{
    return (fs::path(a) / b).string();
}

/// TIDELINE_CHECKPOINT_SYNC=1 writes periodic checkpoints on the loop thread (deterministic
/// in-process tests with a ManualClock; debugging). Default: a writer thread.
bool synchronousWrites()
{
    static const bool sync = [] {
        const char *v = std::getenv("TIDELINE_CHECKPOINT_SYNC");
        return v && *v && std::string(v) != "0";
    }();
    return sync;
}

} // namespace

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
            dir = join(options.baseDir, dir);
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

Coordinator::Coordinator(Runtime &rt)
    : m_rt(rt)
{
}

Coordinator::~Coordinator()
{
    // A job dropped mid-run: let the writer finish (it only touches its own Pending).
    if (m_pending && m_pending->thread.joinable())
        m_pending->thread.join();
    std::vector<std::pair<std::string, SavepointDone>> pending;
    {
        std::lock_guard lock(m_requestMutex);
        pending.swap(m_requests);
    }
    for (auto &[dir, done] : pending)
        if (done)
            done(false, "the job ended before the savepoint to " + dir + " was taken");
}

void Coordinator::log(const std::string &line) const
{
    if (m_rt.options().log)
        m_rt.options().log(line);
}

void Coordinator::record(const observe::CheckpointInfo &info)
{
    m_rt.recordCheckpoint(info, kHistory);
}

std::vector<Coordinator::Candidate> Coordinator::scan(const std::string &dir) const
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

std::string Coordinator::init()
{
    const JobOptions &opt = m_rt.options();
    m_settings = resolveSettings(m_rt.spec(), opt);
    // A consumer group's members share the checkpoint dir: each checkpoints under its own
    // members/<member>/ and hands partitions over through tasks/ (task_pointer.hpp).
    if (m_rt.hasPartitionTasks() && m_settings.enabled)
        if (std::string err = enterMemberDir(); !err.empty())
            return err;
    // settings.state: before any restore, so that restored state already respects the budget.
    if (std::string err = state::configureStateBackends(
            m_rt, m_settings.enabled ? m_settings.dir : std::string(), m_rt.options().log);
        !err.empty())
        return err;

    for (const auto &id : opt.resetState)
        if (m_rt.spec().nodeIndex(id) < 0)
            return "--reset-state " + id + ": the pipeline has no node `" + id + "`";
    for (const auto &id : opt.discardOutput)
        if (std::find(opt.resetState.begin(), opt.resetState.end(), id) == opt.resetState.end())
            return "--discard-output " + id + ": only with --reset-state " + id
                   + " (it allows that reset to delete the sink's committed output)";

    if (m_settings.enabled) {
        std::error_code ec;
        fs::create_directories(m_settings.dir, ec);
        if (ec)
            return "settings.checkpoint.dir: cannot create " + m_settings.dir + ": "
                   + causeFromErrno(ec.value());
        auto existing = scan(m_settings.dir);
        for (const auto &c : existing)
            m_nextId = std::max(m_nextId, c.id + 1);
        if (opt.fresh && !existing.empty()) {
            discardAll(m_settings.dir);
            m_nextId = 1;
        }
        if (opt.fresh && !m_sharedDir.empty())
            if (int n = removeAllTaskPointers(m_sharedDir); n > 0)
                log("--fresh: discarding the group's " + std::to_string(n)
                    + " partition state pointer(s) in " + join(m_sharedDir, "tasks")
                    + " (partitions start from the group's committed offsets, or `start`)");
    }

    std::string error;
    if (!opt.restoreFrom.empty()) {
        std::error_code ec;
        if (fs::exists(join(opt.restoreFrom, "manifest.json"), ec))
            error = restoreFromSavepoint(opt.restoreFrom);
        else if (fs::is_directory(opt.restoreFrom, ec))
            error = restoreFromCheckpointDir(opt.restoreFrom, true);
        else
            error = "--restore " + opt.restoreFrom + ": no such folder";
    } else if (m_settings.enabled && !opt.fresh) {
        error = restoreFromCheckpointDir(m_settings.dir, false);
    } else if (!opt.resetState.empty()) {
        log("--reset-state has no effect: nothing is restored in this run");
    }
    if (!error.empty())
        return error;

    m_lastEndMs = m_rt.clock().nowMs();
    m_rt.onLoopTick = [this](std::int64_t now) {
        onTick(now);
    };
    m_rt.onBeforeFinish = [this](Job::Status s) {
        onBeforeFinish(s);
    };
    return {};
}

void Coordinator::discardAll(const std::string &dir)
{
    auto all = scan(dir);
    log("--fresh: discarding " + std::to_string(all.size()) + " checkpoint(s) in " + dir);
    // Manifests first: a checkpoint without a manifest is never used, whatever else remains.
    for (const auto &c : all)
        if (c.hasManifest)
            ::unlink(join(dir, checkpointManifestName(c.id)).c_str());
    fsyncDir(dir);
    std::error_code ec;
    for (const auto &c : all)
        fs::remove_all(join(dir, checkpointStateDirName(c.id)), ec);
}

bool Coordinator::load(const std::string &manifestPath,
                       const std::string &baseDir,
                       Manifest &m,
                       std::map<std::string, std::string> &blobs,
                       std::string &why) const
{
    std::string text, err;
    if (!readFile(manifestPath, text, err)) {
        why = "cannot read " + manifestPath + ": " + err;
        return false;
    }
    if (!parseManifest(text, m, err)) {
        why = manifestPath + ": " + err;
        return false;
    }
    std::vector<BlobSpec> specs;
    for (const auto &n : m.nodes)
        specs.push_back({n.id, n.bytes, n.chunks});
    if (!readStateDb(join(baseDir, m.stateDir), specs, blobs, err)) {
        why = err;
        return false;
    }
    for (const auto &n : m.nodes) {
        std::uint32_t crc = crc32c(blobs[n.id]);
        if (crc != n.crc) {
            why = "state of node `" + n.id + "` fails its checksum (crc32c " + std::to_string(crc)
                  + ", manifest says " + std::to_string(n.crc) + ")";
            return false;
        }
    }
    return true;
}

std::string Coordinator::restoreFromCheckpointDir(const std::string &dir, bool explicitRestore)
{
    auto candidates = scan(dir);
    if (candidates.empty()) {
        if (explicitRestore)
            return "--restore " + dir
                   + ": no checkpoint or savepoint there (expected manifest.json "
                     "or manifest-N.json)";
        log("no checkpoint in " + dir + ": starting from the beginning");
        return {};
    }
    int committed = 0;
    std::string lastWhy;
    for (const auto &c : candidates) {
        if (!c.hasManifest) {
            log("checkpoint " + std::to_string(c.id) + " in " + dir
                + " is incomplete (no manifest: the run stopped while writing it); skipping it");
            continue;
        }
        ++committed;
        Manifest m;
        std::map<std::string, std::string> blobs;
        std::string why;
        if (!load(join(dir, checkpointManifestName(c.id)), dir, m, blobs, why)) {
            log("checkpoint " + std::to_string(c.id) + " in " + dir + " is unusable: " + why
                + "; trying the previous one");
            lastWhy = why;
            continue;
        }
        std::string origin = "checkpoint " + std::to_string(c.id) + " ("
                             + join(dir, checkpointManifestName(c.id)) + ")";
        try {
            return apply(m, blobs, origin, explicitRestore);
        } catch (const EarlierCheckpointNeeded &e) {
            // A sink's downstream system holds only an earlier checkpoint's output (Kafka
            // aborted the latest transaction): that earlier checkpoint is the consistent one.
            log("checkpoint " + std::to_string(c.id) + " is ahead of what a sink committed: "
                + e.what() + "; restoring the one before it");
            lastWhy = e.what();
            m_stash.clear();
            if (std::string err = m_rt.reopenOperators(); !err.empty())
                return "cannot restore from the checkpoint before " + std::to_string(c.id) + ": "
                       + err;
            if (std::string err = state::configureStateBackends(
                    m_rt, m_settings.enabled ? m_settings.dir : std::string(), m_rt.options().log);
                !err.empty())
                return err;
        }
    }
    if (committed == 0) {
        if (explicitRestore)
            return "--restore " + dir + ": no complete checkpoint there";
        log("no complete checkpoint in " + dir + ": starting from the beginning");
        return {};
    }
    return "none of the " + std::to_string(committed) + " complete checkpoint(s) in " + dir
           + " is usable (last problem: " + lastWhy
           + "); start over with --fresh (discards them and the output they committed)";
}

std::string Coordinator::restoreFromSavepoint(const std::string &dir)
{
    Manifest m;
    std::map<std::string, std::string> blobs;
    std::string why;
    if (!load(join(dir, "manifest.json"), dir, m, blobs, why))
        return "--restore " + dir + ": the savepoint is unusable: " + why;
    return apply(m, blobs, m.kind + " " + dir, true);
}

std::string Coordinator::apply(const Manifest &m,
                               std::map<std::string, std::string> &blobs,
                               const std::string &origin,
                               bool verbose)
{
    auto &nodes = m_rt.nodes();
    const auto &reset = m_rt.options().resetState;
    auto isReset = [&](const std::string &id) {
        return std::find(reset.begin(), reset.end(), id) != reset.end();
    };
    enum class St { Restored, New, Reset, Incompatible, Skip };
    std::vector<St> status(nodes.size(), St::New);
    std::vector<std::string> lines, incompatible;
    int restored = 0, considered = 0;
    m_preferStash = verbose; // an explicit --restore wins over the group's pointers
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        auto &node = nodes[i];
        if (node.isTemplate) {
            status[i] = St::Skip;
            continue;
        }
        if (node.taskPartition >= 0) {
            // A partition task's state is restored when the partition is assigned here.
            status[i] = St::Skip;
            if (const NodeEntry *e = m.node(node.id))
                m_stash[{node.section, node.taskPartition}][node.id]
                    = StashedNode{*e, std::move(blobs[node.id])};
            continue;
        }
        ++considered;
        const std::string &id = node.id;
        const NodeEntry *e = m.node(id);
        std::string fp = node.op->stateFingerprint();
        if (!e) {
            status[i] = St::New;
            lines.push_back("node `" + id + "`: new (no saved state; starts empty)");
        } else if (e->kind != node.spec->kind || e->fingerprint != fp) {
            std::string diff = e->kind != node.spec->kind
                                   ? "kind " + e->kind + " -> " + node.spec->kind
                                   : "saved `" + e->fingerprint + "`, now `" + fp + "`";
            if (isReset(id)) {
                status[i] = St::Reset;
                lines.push_back("node `" + id + "`: incompatible (" + diff
                                + "); state discarded (--reset-state)");
            } else {
                status[i] = St::Incompatible;
                incompatible.push_back(id);
                lines.push_back("node `" + id + "`: incompatible (" + diff + ")");
            }
        } else if (isReset(id)) {
            status[i] = St::Reset;
            lines.push_back("node `" + id + "`: state discarded (--reset-state)");
        } else {
            status[i] = St::Restored;
            ++restored;
            if (verbose)
                lines.push_back("node `" + id + "`: restored (" + std::to_string(blobs[id].size())
                                + " bytes)");
        }
    }
    for (const auto &e : m.nodes)
        if (m_rt.spec().nodeIndex(e.id) < 0 && e.id.find('#') == std::string::npos)
            lines.push_back(
                "node `" + e.id + "` (" + e.kind
                + "): in the saved state but not in the pipeline; its state is ignored");

    log("restoring from " + origin + ": " + std::to_string(restored) + " of "
        + std::to_string(considered) + " node(s) restored"
        + (m_stash.empty() ? std::string()
                           : "; the state of " + std::to_string(m_stash.size())
                                 + " partition task(s) is restored when partitions are assigned"));
    for (const auto &l : lines)
        log("  " + l);
    // A sink that starts without its state starts its output over: what earlier runs committed
    // is deleted only when asked for separately (--discard-output), never as a side effect of
    // the fix a message suggested.
    auto outputAtRisk = [&](std::size_t i) -> std::string {
        const auto &node = nodes[i];
        if (!node.kind->isSink)
            return {};
        const auto &keep = m_rt.options().discardOutput;
        if (std::find(keep.begin(), keep.end(), node.id) != keep.end())
            return {};
        return node.op->outputLostWithoutState();
    };
    if (!incompatible.empty()) {
        std::string ids, flags, notes;
        for (const auto &id : incompatible) {
            ids += (ids.empty() ? "`" : ", `") + id + "`";
            flags += " --reset-state " + id;
            const auto i = static_cast<std::size_t>(m_rt.spec().nodeIndex(id));
            if (std::string lost = outputAtRisk(i); !lost.empty())
                notes += "; `" + id + "` is a sink and " + lost + ": add --discard-output " + id
                         + " to allow that, or move the file away first";
        }
        return "cannot restore from " + origin + ": the saved state of " + ids
               + " does not fit the edited node(s) (see above); rerun with" + flags
               + " to discard it, or with --fresh to start over" + notes;
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (status[i] != St::Reset)
            continue;
        if (std::string lost = outputAtRisk(i); !lost.empty())
            return "cannot restore from " + origin + ": --reset-state " + nodes[i].id
                   + " would start sink `" + nodes[i].id + "` over, and " + lost
                   + "; add --discard-output " + nodes[i].id
                   + " to allow that, move the file away first, or keep the sink's state "
                     "(leave out --reset-state "
                   + nodes[i].id + ")";
    }

    // Operators' state.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (status[i] != St::Restored)
            continue;
        auto &node = nodes[i];
        const std::string &blob = blobs[node.id];
        if (blob.empty())
            continue;
        try {
            StateReader r(blob);
            node.op->restoreState(r);
            if (r.failed())
                return "cannot restore from " + origin + ": the state of node `" + node.id
                       + "` is shorter than its operator expects (written by another version?)";
        } catch (const EarlierCheckpointNeeded &) {
            throw; // restoreFromCheckpointDir() starts over from the checkpoint before
        } catch (const std::exception &e) {
            return "cannot restore from " + origin + ": node `" + node.id + "`: " + e.what();
        }
    }
    // Runtime state: watermarks, idleness, figures.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (status[i] != St::Restored)
            continue;
        auto &node = nodes[i];
        const NodeEntry *e = m.node(node.id);
        node.outW = e->outW;
        node.combinedIn = e->combinedIn;
        node.outIdle = e->outIdle;
        node.sourceFinished = e->sourceFinished;
        node.metrics.recordsIn = e->recordsIn;
        node.metrics.recordsOut = e->recordsOut;
        node.metrics.late = e->late;
        node.metrics.errors = e->errors;
    }
    // An edge's watermark always equals its upstream node's output watermark (emitWatermark
    // updates both together), so the inbound side is derived rather than stored: that also
    // wires restored watermarks into nodes that are new in an edited graph.
    for (auto &node : nodes)
        for (auto &in : node.inbound) {
            const auto &from = nodes[static_cast<std::size_t>(in.fromNode)];
            in.watermark = from.outW;
            in.idle = from.outIdle;
        }
    // New and reset nodes learn the current watermark now (in topological order, so what they
    // forward reaches the nodes after them).
    for (int v : m_rt.topoOrder())
        if (status[static_cast<std::size_t>(v)] != St::Restored
            && status[static_cast<std::size_t>(v)] != St::Skip)
            m_rt.primeWatermark(v);
    m_rt.setRecordsRead(m.recordsRead);
    m_nextId = std::max(m_nextId, m.id + 1);
    if (m.final && m.endStatus == "finished")
        log("the " + m.kind
            + " was taken when the run had finished: the inputs are exhausted and "
              "nothing is left to replay (use --fresh to run the pipeline again)");
    return {};
}

void Coordinator::onTick(std::int64_t nowMs)
{
    if (m_pending && m_pending->done.load(std::memory_order_acquire)) {
        drain();
        m_lastEndMs = nowMs;
    }
    serveSavepointRequests();
    if (m_settings.enabled && !m_pending && nowMs - m_lastEndMs >= m_settings.intervalMs) {
        // The interval runs from the end of the previous attempt, whatever its outcome: a
        // checkpoint that failed at once (a sink that cannot flush, a full disk) is retried
        // after interval_ms, not on the next tick. (Its result is logged and recorded.)
        (void)take(Kind::Checkpoint, m_settings.dir, {}, !synchronousWrites());
        if (!m_pending)
            m_lastEndMs = m_rt.clock().nowMs();
    }
}

void Coordinator::onBeforeFinish(Job::Status status)
{
    const std::string end = status == Job::Status::Finished ? "finished" : "stopped";
    drain();
    state::logSpillSummary(m_rt, m_rt.options().log);
    if (m_settings.enabled && !m_finalTaken) {
        m_finalTaken = true;
        // A failed final checkpoint is logged and recorded by complete(); nothing is lost by
        // it: the next start restores the last completed one and its sinks truncate back to
        // that commit point before the replay.
        (void)take(Kind::Checkpoint, m_settings.dir, end, false);
    }
    serveSavepointRequests();
    m_ended.store(true);
    const std::string &sp = m_rt.options().savepointOnStop;
    if (!sp.empty()) {
        std::string err = take(Kind::Savepoint, sp, end, false);
        if (!err.empty())
            throw std::runtime_error("savepoint to " + sp + " failed: " + err);
    }
}

void Coordinator::requestSavepoint(const std::string &dir, SavepointDone done)
{
    if (m_ended.load()) {
        if (done)
            done(false, "the job has ended; a savepoint needs a running job");
        return;
    }
    std::lock_guard lock(m_requestMutex);
    m_requests.emplace_back(dir, std::move(done));
}

void Coordinator::serveSavepointRequests()
{
    std::vector<std::pair<std::string, SavepointDone>> pending;
    {
        std::lock_guard lock(m_requestMutex);
        pending.swap(m_requests);
    }
    if (!pending.empty())
        drain();
    for (auto &[dir, done] : pending) {
        std::string err = take(Kind::Savepoint, dir, {}, false);
        if (done)
            done(err.empty(), err.empty() ? "savepoint written to " + dir : err);
    }
}

std::string
Coordinator::take(Kind kind, const std::string &target, const std::string &endStatus, bool async)
{
    auto p = std::make_unique<Pending>();
    p->kind = kind;
    p->root = target;
    p->t0 = steadyMs();
    p->manifest.id = m_nextId++;
    if (!snapshot(*p, endStatus))
        return complete(*p);
    if (!async) {
        persist(*p);
        return complete(*p);
    }
    Pending *raw = p.get();
    m_pending = std::move(p);
    m_pending->thread = std::thread([raw] {
        persist(*raw);
        raw->done.store(true, std::memory_order_release);
    });
    return {};
}

void Coordinator::drain()
{
    if (!m_pending)
        return;
    if (m_pending->thread.joinable())
        m_pending->thread.join();
    std::unique_ptr<Pending> p = std::move(m_pending);
    // An asynchronous checkpoint's outcome is logged and recorded by complete(); a failure
    // leaves the previous completed one as the restore point.
    (void)complete(*p);
}

bool Coordinator::snapshot(Pending &p, const std::string &endStatus)
{
    const bool savepoint = p.kind == Kind::Savepoint;
    Manifest &m = p.manifest;
    m.kind = savepoint ? "savepoint" : "checkpoint";
    m.pipeline = m_rt.spec().name;
    m.createdMs = m_rt.clock().nowMs();
    m.final = !endStatus.empty();
    m.endStatus = endStatus;
    m.recordsRead = m_rt.recordsRead();
    m.stateDir = savepoint ? "state" : checkpointStateDirName(m.id);
    auto &nodes = m_rt.nodes();
    auto &tasks = m_rt.tasks();
    p.blobs.clear();
    m.nodes.clear();
    p.nodeOf.clear();
    for (int v : m_rt.topoOrder()) {
        auto &node = nodes[static_cast<std::size_t>(v)];
        // A partition task's instances are saved only while this member owns the partition.
        if (node.taskPartition >= 0
            && !tasks[static_cast<std::size_t>(node.section)]
                    .owned[static_cast<std::size_t>(node.taskPartition)])
            continue;
        // A recycled buffer: large state is serialised into memory that is already mapped.
        std::string reuse;
        if (static_cast<std::size_t>(v) < m_spare.size())
            reuse = std::move(m_spare[static_cast<std::size_t>(v)]);
        auto w = std::make_unique<StateWriter>(std::move(reuse));
        try {
            node.op->snapshotState(*w);
        } catch (const std::exception &e) {
            p.error = "node `" + node.id + "`: " + e.what();
            p.cause = causeFromMessage(e.what());
            return false;
        }
        const std::size_t k = p.blobs.size();
        p.blobs.emplace_back();
        m.nodes.emplace_back();
        p.nodeOf.push_back(v);
        NodeEntry &e = m.nodes[k];
        NodeBlob &b = p.blobs[k];
        b.nodeId = node.id;
        if (w->hasDeferred()) {
            // Finished by persist() (spilled keys read through a RocksDB snapshot).
            p.deferred.resize(k + 1);
            p.deferred[k] = std::move(w);
        } else {
            b.data = w->take();
        }
        e.id = node.id;
        e.kind = node.spec->kind;
        e.fingerprint = node.op->stateFingerprint();
        e.outW = node.outW;
        e.combinedIn = node.combinedIn;
        if (node.mergedWatermark) {
            // Its own partition's watermark, not the merge it passes on: a partition restarts
            // where it was, so one that gets no new records cannot hold the others back.
            e.hasOwnW = true;
            e.ownW = node.ownW;
        }
        e.outIdle = node.outIdle;
        e.sourceFinished = node.sourceFinished;
        e.recordsIn = node.metrics.recordsIn;
        e.recordsOut = node.metrics.recordsOut;
        e.late = node.metrics.late;
        e.errors = node.metrics.errors;
    }
    // Partition tasks: a pointer per owned partition, written once the manifest is durable.
    if (!savepoint && !m_sharedDir.empty()) {
        p.sharedDir = m_sharedDir;
        const std::string manifestRel
            = fs::path(m_settings.dir).lexically_relative(m_sharedDir).string() + "/"
              + checkpointManifestName(m.id);
        for (const auto &section : tasks) {
            const auto &src = nodes[static_cast<std::size_t>(section.source)];
            const auto positions = src.source->taskPositions();
            for (int part = 0; part < section.partitions; ++part) {
                auto pos = positions.find(part);
                if (!section.owned[static_cast<std::size_t>(part)] || pos == positions.end())
                    continue;
                TaskPointer tp;
                tp.source = src.id;
                tp.partition = part;
                tp.member = m_rt.options().member;
                tp.checkpoint = m.id;
                tp.manifest = manifestRel;
                tp.offset = pos->second;
                tp.writtenMs = m.createdMs;
                p.pointers.push_back(std::move(tp));
            }
        }
    }
    return true;
}

void Coordinator::persist(Pending &p)
{
    const bool savepoint = p.kind == Kind::Savepoint;
    Manifest &m = p.manifest;
    auto failed = [&](const std::string &detail, const std::string &cause) {
        p.error = detail;
        p.cause = cause.empty() ? detail : cause;
        p.t1 = steadyMs();
    };
    for (std::size_t i = 0; i < p.deferred.size(); ++i) {
        if (!p.deferred[i])
            continue;
        try {
            p.blobs[i].data = p.deferred[i]->take();
        } catch (const std::exception &e) {
            return failed("node `" + p.blobs[i].nodeId + "`: " + e.what(),
                          causeFromMessage(e.what()));
        }
        p.deferred[i].reset();
    }
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        m.nodes[i].bytes = p.blobs[i].data.size();
        m.nodes[i].chunks = chunkCount(p.blobs[i].data.size());
        m.nodes[i].crc = crc32c(p.blobs[i].data);
    }
    std::error_code ec;
    if (savepoint) {
        fs::create_directories(p.root, ec);
        if (ec)
            return failed("cannot create savepoint folder " + p.root + ": " + ec.message(),
                          causeFromErrno(ec.value()));
        if (!fs::is_empty(p.root, ec))
            return failed("savepoint folder " + p.root + " is not empty (choose a new folder)",
                          "folder not empty");
    }
    crashPoint("before_state_write");
    p.stateDir = join(p.root, m.stateDir);
    StateWriteResult wr = writeStateDb(p.stateDir, p.blobs);
    if (!wr.error.empty())
        return failed(wr.error, wr.cause);
    crashPoint("after_state_write");
    if (std::string e = fsyncDir(p.root); !e.empty())
        return failed(e, causeFromMessage(e));

    // The manifest makes it complete.
    crashPoint("before_manifest");
    p.manifestPath = join(p.root, savepoint ? "manifest.json" : checkpointManifestName(m.id));
    const std::string text = writeManifest(m);
    int err = 0;
    if (std::string e = writeFileDurably(p.manifestPath, text, &err); !e.empty()) {
        fs::remove_all(p.stateDir, ec);
        return failed(e, err ? causeFromErrno(err) : causeFromMessage(e));
    }
    crashPoint("after_manifest");
    for (const auto &tp : p.pointers)
        if (std::string e = writeTaskPointer(p.sharedDir, tp); !e.empty())
            return failed("checkpoint " + std::to_string(m.id)
                              + " is durable but its pointer for partition "
                              + std::to_string(tp.partition) + " is not: " + e,
                          causeFromMessage(e));
    p.bytes = treeBytes(p.stateDir) + text.size();
    p.t1 = steadyMs();
}

void Coordinator::recycle(Pending &p)
{
    // Keep the large buffers for the next checkpoint (small ones are not worth holding).
    m_spare.resize(m_rt.nodes().size());
    for (std::size_t i = 0; i < p.blobs.size() && i < p.nodeOf.size(); ++i)
        if (p.blobs[i].data.capacity() >= kRecycleBytes)
            m_spare[static_cast<std::size_t>(p.nodeOf[i])] = std::move(p.blobs[i].data);
    p.blobs.clear();
}

std::string Coordinator::complete(Pending &p)
{
    recycle(p);
    const bool savepoint = p.kind == Kind::Savepoint;
    const std::int64_t id = p.manifest.id;
    const std::string what = (savepoint ? "savepoint " : "checkpoint ") + std::to_string(id);
    observe::CheckpointInfo info;
    info.id = id;
    info.kind = savepoint ? "savepoint" : "checkpoint";
    info.timeMs = m_rt.clock().nowMs();
    info.durationMs = (p.t1 ? p.t1 : steadyMs()) - p.t0;
    if (!p.error.empty()) {
        info.status = "failed";
        info.failureCause = p.cause.empty() ? p.error : p.cause;
        record(info);
        log(what + " failed: " + info.failureCause
            + (info.failureCause == p.error ? "" : " (" + p.error + ")"));
        return p.error;
    }
    // Durable: let operators commit (sinks, Kafka offsets).
    auto &nodes = m_rt.nodes();
    bool sinkSeen = false;
    for (int v : m_rt.topoOrder()) {
        auto &node = nodes[static_cast<std::size_t>(v)];
        try {
            node.op->notifyCheckpointComplete(id);
        } catch (const std::exception &e) {
            log(what + " is complete but node `" + node.id + "` failed to commit: " + e.what());
        }
        if (node.kind->isSink && !sinkSeen) {
            sinkSeen = true;
            crashPoint("during_sink_commit");
        }
    }
    if (!savepoint)
        deleteOldCheckpoints(id);
    info.status = "completed";
    info.bytes = static_cast<std::int64_t>(p.bytes);
    record(info);
    if (savepoint || p.manifest.final)
        log(what + " written to " + (savepoint ? p.root : p.manifestPath) + " ("
            + std::to_string(info.bytes) + " bytes, " + std::to_string(info.durationMs) + " ms)");
    return {};
}

void Coordinator::deleteOldCheckpoints(std::int64_t newest)
{
    const std::string &dir = m_settings.dir;
    auto all = scan(dir);
    int kept = 0;
    std::vector<std::int64_t> drop;
    for (const auto &c : all) {
        if (c.id > newest)
            continue; // not ours to judge
        if (c.hasManifest) {
            if (++kept > m_settings.keep)
                drop.push_back(c.id);
        } else if (c.id < newest) {
            drop.push_back(c.id); // abandoned by a crash: never completed
        }
    }
    if (!drop.empty() && !m_sharedDir.empty()) {
        // Never delete a checkpoint that a partition's pointer still names: the partition's
        // next owner restores from it.
        std::set<std::int64_t> named;
        for (const auto &tp : readAllTaskPointers(m_sharedDir))
            if (tp.member == m_rt.options().member)
                named.insert(tp.checkpoint);
        drop.erase(std::remove_if(drop.begin(), drop.end(),
                                  [&](std::int64_t id) { return named.count(id) > 0; }),
                   drop.end());
    }
    if (drop.empty())
        return;
    for (auto id : drop)
        ::unlink(join(dir, checkpointManifestName(id)).c_str());
    fsyncDir(dir);
    std::error_code ec;
    for (auto id : drop)
        fs::remove_all(join(dir, checkpointStateDirName(id)), ec);
}

} // namespace tideline::checkpoint
