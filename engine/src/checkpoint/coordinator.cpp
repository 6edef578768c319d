#include "checkpoint/coordinator.hpp"

#include "checkpoint/files.hpp"
#include "checkpoint/task_pointer.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace tideline::checkpoint {

namespace fs = std::filesystem;

namespace {

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

Coordinator::Coordinator(RuntimePort &rt)
    : m_rt(rt)
    , m_member(rt)
    , m_writer(rt, m_settings, m_member.sharedDir())
{
}

Coordinator::~Coordinator()
{
    std::vector<std::pair<std::string, SavepointDone>> pending;
    {
        std::lock_guard lock(m_requestMutex);
        pending.swap(m_requests);
    }
    for (auto &[dir, done] : pending)
        if (done)
            done(false, "the job ended before the savepoint to " + dir + " was taken");
}

Status Coordinator::init()
{
    const JobOptions &opt = m_rt.options();
    m_settings = resolveSettings(m_rt.spec(), opt);
    // A consumer group's members share the checkpoint dir: each checkpoints under its own
    // members/<member>/ and hands partitions over through tasks/ (task_pointer.hpp).
    if (m_rt.sectionCount() > 0 && m_settings.enabled)
        if (Status s = m_member.enter(m_settings); !s.ok())
            return s;
    // settings.state: before any restore, so that restored state already respects the budget.
    if (Status s = m_rt.configureState(m_settings.enabled ? m_settings.dir : std::string());
        !s.ok())
        return s;

    for (const auto &id : opt.resetState)
        if (m_rt.spec().nodeIndex(id) < 0)
            return Status::error("--reset-state " + id + ": the pipeline has no node `" + id + "`");
    for (const auto &id : opt.discardOutput)
        if (std::find(opt.resetState.begin(), opt.resetState.end(), id) == opt.resetState.end())
            return Status::error("--discard-output " + id + ": only with --reset-state " + id
                                 + " (it allows that reset to delete the sink's committed "
                                   "output)");

    const std::string &shared = m_member.sharedDir();
    if (m_settings.enabled) {
        std::error_code ec;
        fs::create_directories(m_settings.dir, ec);
        if (ec)
            return Status::error("settings.checkpoint.dir: cannot create " + m_settings.dir + ": "
                                 + causeFromErrno(ec.value()));
        auto existing = scanCheckpoints(m_settings.dir);
        for (const auto &c : existing)
            m_nextId = std::max(m_nextId, c.id + 1);
        if (opt.fresh && !existing.empty()) {
            m_rt.log("--fresh: discarding " + std::to_string(existing.size()) + " checkpoint(s) in "
                     + m_settings.dir);
            (void)discardCheckpoints(m_settings.dir);
            m_nextId = 1;
        }
        if (opt.fresh && !shared.empty())
            if (int n = removeAllTaskPointers(shared); n > 0)
                m_rt.log("--fresh: discarding the group's " + std::to_string(n)
                         + " partition state pointer(s) in " + joinPath(shared, "tasks")
                         + " (partitions start from the group's committed offsets, or `start`)");
    }

    Restorer restorer(m_rt, m_settings, m_member);
    Status restored;
    if (!opt.restoreFrom.empty()) {
        std::error_code ec;
        if (fs::exists(joinPath(opt.restoreFrom, "manifest.json"), ec))
            restored = restorer.fromSavepoint(opt.restoreFrom);
        else if (fs::is_directory(opt.restoreFrom, ec))
            restored = restorer.fromCheckpointDir(opt.restoreFrom, true);
        else
            restored = Status::error("--restore " + opt.restoreFrom + ": no such folder");
    } else if (m_settings.enabled && !opt.fresh) {
        restored = restorer.fromCheckpointDir(m_settings.dir, false);
    } else if (!opt.resetState.empty()) {
        m_rt.log("--reset-state has no effect: nothing is restored in this run");
    }
    if (!restored.ok())
        return restored;
    m_nextId = std::max(m_nextId, restorer.restoredId() + 1);
    m_lastEndMs = m_rt.clock().nowMs();
    return {};
}

void Coordinator::onTick(std::int64_t nowMs)
{
    if (m_writer.written()) {
        drain();
        m_lastEndMs = nowMs;
    }
    serveSavepointRequests();
    if (m_settings.enabled && !m_writer.inFlight()
        && nowMs - m_lastEndMs >= m_settings.intervalMs) {
        // The interval runs from the end of the previous attempt, whatever its outcome: a
        // checkpoint that failed at once (a sink that cannot flush, a full disk) is retried
        // after interval_ms, not on the next tick. A periodic checkpoint's failure is logged
        // and recorded by the writer; the previous completed one stays the restore point.
        (void)take(Writer::Kind::Checkpoint, m_settings.dir, {}, !synchronousWrites());
        if (!m_writer.inFlight())
            m_lastEndMs = m_rt.clock().nowMs();
    }
}

Status Coordinator::onBeforeFinish(Job::Status status)
{
    const std::string end = status == Job::Status::Finished ? "finished" : "stopped";
    drain();
    m_rt.logSpillSummary();
    if (m_settings.enabled && !m_finalTaken) {
        m_finalTaken = true;
        m_final = take(Writer::Kind::Checkpoint, m_settings.dir, end, false);
    }
    serveSavepointRequests();
    m_ended.store(true);
    const std::string &sp = m_rt.options().savepointOnStop;
    if (!sp.empty())
        if (Status s = take(Writer::Kind::Savepoint, sp, end, false); !s.ok())
            return s.prefixed("savepoint to " + sp + " failed: ");
    return {};
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
        Status s = take(Writer::Kind::Savepoint, dir, {}, false);
        if (done)
            done(s.ok(), s.ok() ? "savepoint written to " + dir : s.message());
    }
}

Status Coordinator::take(Writer::Kind kind,
                         const std::string &target,
                         const std::string &endStatus,
                         bool async)
{
    // A consistent cut: also nothing on a parallel stage's workers. Outside the checkpoint's
    // duration: it is processing the loop would do anyway.
    m_rt.quiesce();
    return m_writer.take(kind, m_nextId++, target, endStatus, async);
}

void Coordinator::drain()
{
    // An asynchronous checkpoint's outcome is logged and recorded by the writer; a failure
    // leaves the previous completed one as the restore point.
    (void)m_writer.drain();
}

std::int64_t Coordinator::handOver(const std::vector<int> &partitions)
{
    if (!m_settings.enabled)
        return -1;
    drain();
    return m_member.handOver(partitions, [this](std::int64_t &id) {
        id = m_nextId;
        Status s = take(Writer::Kind::Checkpoint, m_settings.dir, {}, false);
        m_lastEndMs = m_rt.clock().nowMs();
        return s;
    });
}

} // namespace tideline::checkpoint
