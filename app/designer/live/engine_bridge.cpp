#include "engine_bridge.hpp"

#include "convert.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/job.hpp>
#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/time.hpp>

#include <QDir>
#include <QMetaEnum>
#include <QThread>

#include <chrono>
#include <ostream>
#include <set>

namespace tideline::designer::live {

namespace L = tideline::live;

namespace {
/// sink.console output has nowhere to go in the designer (the preview shows the records).
std::ostream &nullStream()
{
    static std::ostream s(nullptr);
    return s;
}
/// The watermark node a source feeds (directly or through filters and maps): where its event
/// time comes from, and so the field event-time pacing replays.
std::string timeFieldBelow(const PipelineSpec &spec, const std::string &source)
{
    std::vector<std::string> stack{source};
    std::set<std::string> seen;
    while (!stack.empty()) {
        const std::string id = stack.back();
        stack.pop_back();
        if (!seen.insert(id).second)
            continue;
        for (const auto &e : spec.edges) {
            if (e.from.node != id || e.from.port != "out")
                continue;
            const NodeSpec *n = spec.node(e.to.node);
            if (!n)
                continue;
            if (n->kind == "watermark") {
                if (n->params.is_object() && n->params.contains("time_field")
                    && n->params["time_field"].is_string())
                    return n->params["time_field"].get<std::string>();
                continue;
            }
            if (n->kind == "filter" || n->kind == "map")
                stack.push_back(n->id);
        }
    }
    return {};
}

std::int64_t steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

/// Processing time for the job: the system clock minus the time spent paused, or a replay's
/// virtual clock. Its waits hold the loop while the run is paused (see holdWhilePaused()).
class EngineBridge::LoopClock final : public Clock
{
public:
    LoopClock(EngineBridge &bridge, recording::ReplayClock *replay)
        : m_bridge(bridge)
        , m_replay(replay)
    {
    }
    std::int64_t nowMs() override
    {
        return m_replay ? m_replay->nowMs() : m_system.nowMs() - m_pausedMs.load();
    }
    void sleepMs(std::int64_t ms) override
    {
        const bool step = m_bridge.holdWhilePaused();
        if (!m_replay)
            m_system.sleepMs(ms);
        else if (step)
            m_replay->skipMs(ms); // Step: the next record now, not when the wall clock says
        else
            m_replay->sleepMs(ms);
    }
    /// The loop was held for `ms`: a live run's clock leaves that time out; a replay's virtual
    /// clock did not move meanwhile, only its pacing must not catch up on it.
    void addPaused(std::int64_t ms)
    {
        if (m_replay)
            m_replay->restartPacing();
        else
            m_pausedMs += ms;
    }

private:
    EngineBridge &m_bridge;
    recording::ReplayClock *m_replay;
    SystemClock m_system;
    std::atomic<std::int64_t> m_pausedMs{0};
};

EngineBridge::EngineBridge(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(33);
    connect(&m_timer, &QTimer::timeout, this, &EngineBridge::poll);
}

EngineBridge::~EngineBridge()
{
    shutdown();
}

bool EngineBridge::start(const PipelineSpec &spec,
                         const QString &baseDir,
                         Pace pace,
                         QString *error,
                         const Recording &rec)
{
    shutdown();
    m_replayer.reset();
    m_recorder.reset();
    m_spec = spec;
    m_recordingMode = rec.mode;
    m_recordingDir
        = rec.mode == Recording::None ? QString() : QDir(baseDir).absoluteFilePath(rec.dir);
    m_recordingTotal = 0;
    m_recordingNotes.clear();
    m_recordingCount = 0;
    m_speedRequest = -1;
    m_recordingFinished = false;
    m_recordingResult.clear();
    auto fail = [&](const std::string &why) {
        if (error)
            *error = QString::fromStdString(why);
        m_replayer.reset();
        m_recorder.reset();
        m_recordingMode = Recording::None;
        return false;
    };
    if (rec.mode == Recording::Replay) {
        // The recording decides what the sources read and when, not the pace setting; like
        // --replay, the run neither restores nor writes the pipeline's checkpoints.
        pace.mode = Pace::AsInFile;
        m_spec.settings.erase("checkpoint");
        std::string err;
        m_replayer = recording::Replayer::open(m_recordingDir.toStdString(), m_spec,
                                               rec.pipelineText, rec.speed, err);
        if (!m_replayer)
            return fail(err);
        m_recordingTotal = m_replayer->info().manifest.records;
        for (const auto &note : m_replayer->notes())
            m_recordingNotes << QString::fromStdString(note);
    }
    QStringList unpaced;
    if (pace.mode != Pace::AsInFile)
        for (auto &n : m_spec.nodes) {
            if (n.kind != "source.generator" && n.kind != "source.file")
                continue;
            if (pace.mode == Pace::FlatOut)
                n.params.erase("pace");
            else if (pace.mode == Pace::RecordsPerSecond)
                n.params["pace"] = Json{{"records_per_s", pace.value}};
            else {
                // A file's records have no event time until a watermark node reads it: replay
                // by the field that node reads (generators know their own event time).
                Json p{{"speed", pace.value}};
                if (n.kind == "source.file") {
                    const std::string field = timeFieldBelow(m_spec, n.id);
                    if (field.empty()) {
                        unpaced << QString::fromStdString(n.id);
                        continue;
                    }
                    p["time_field"] = field;
                }
                n.params["pace"] = p;
            }
        }
    if (!unpaced.isEmpty()) {
        if (error)
            *error = tr("event-time pacing needs the event time of %1: connect it to a watermark "
                        "node (its time_field is replayed), or choose a records/s pace")
                         .arg(unpaced.join(QStringLiteral(", ")));
        return false;
    }
    // Flat-out file and generator sources never wait inside runFor(): chunks of ~20 ms. Any
    // source that may wait (paced, Kafka, ...) is run one record at a time, so that Pause and
    // Step are exact.
    m_chunked = true;
    for (const auto &n : m_spec.nodes) {
        const NodeKind *k = findNodeKind(n.kind);
        if (!k || !k->isSource)
            continue;
        const bool paced = n.params.is_object() && n.params.contains("pace")
                           && n.params["pace"].is_object() && !n.params["pace"].empty();
        if (paced
            || (n.kind != "source.file" && n.kind != "source.generator"
                && n.kind != "source.nexmark"))
            m_chunked = false;
    }
    if (m_replayer)
        m_chunked = rec.speed <= 0; // every replayed source only waits for the virtual clock
    m_clock = std::make_unique<LoopClock>(*this, m_replayer ? &m_replayer->clock() : nullptr);
    JobOptions options;
    options.clock = m_clock.get();
    if (m_replayer)
        options.feed = m_replayer.get();
    if (rec.mode == Recording::Record) {
        std::string err;
        m_recorder = recording::Recorder::create(
            m_recordingDir.toStdString(), m_spec, rec.pipelineText,
            recording::Limits{rec.maxRecords, rec.maxBytes, rec.maxDurationMs}, *m_clock, err);
        if (!m_recorder)
            return fail(err);
        options.capture = m_recorder.get();
    }
    options.baseDir = baseDir.toStdString();
    options.console = &nullStream();
    options.fresh = true; // a designer run starts from the beginning, not from old state
    options.lineage.enabled = m_lineageOn;
    if (m_lineageRecords > 0)
        options.lineage.maxRecords = m_lineageRecords;
    std::string err;
    m_job = Job::create(m_spec, std::move(options), err);
    if (!m_job)
        return fail(err);
    // A limit reached, or the recording running out before its sources ended (the recorded
    // run was stopped): the run stops there too, as tideline-run's does. Loop thread.
    if (m_replayer)
        m_replayer->onExhausted = [this] {
            m_job->requestStop();
        };
    if (m_recorder) {
        m_recorder->onStopped = [this] {
            m_job->requestStop();
        };
        if (std::string e = m_recorder->begin(); !e.empty()) {
            m_job.reset();
            return fail(e);
        }
        m_lastRecordCheckpoint = steadyMs();
    }
    m_nodes = nodeInfos(m_spec);
    m_edges = edgeInfos(m_spec);
    m_checkpoints = m_spec.settings.is_object() && m_spec.settings.contains("checkpoint");
    m_failure.clear();
    m_frames = 0;
    {
        std::lock_guard lock(m_mutex);
        m_running = false;
        m_steps = 0;
        m_inStep = false;
        m_budget = 0;
        m_quit = false;
        m_tapsDirty = false;
        m_edgeNode.clear();
        m_edgePort.clear();
    }
    {
        std::lock_guard lock(m_tapMutex);
        m_records.clear();
        m_watermarks.clear();
    }
    m_workerDone = false;
    m_workerState = static_cast<int>(State::Paused);
    installTaps();
    m_snapshot = toLive(m_job->snapshot());
    m_thread = QThread::create([this] { workerLoop(); });
    m_thread->setObjectName(QStringLiteral("tideline-engine"));
    m_thread->start();
    setState(State::Paused);
    m_timer.start();
    return true;
}

void EngineBridge::installTaps()
{
    // Called before the worker starts, or by the worker between two chunks (loop thread).
    auto push = [this](const observe::TapEvent &e) {
        L::TappedRecord r = toLive(e);
        std::lock_guard lock(m_tapMutex);
        m_records.push_back(std::move(r));
    };
    for (const auto &n : m_spec.nodes) {
        const bool window = n.kind == "window";
        const bool sink = n.kind.rfind("sink.", 0) == 0;
        const bool edge = QString::fromStdString(n.id) == m_edgeNode;
        observe::TapFilter f;
        f.in = window || sink;
        f.dataOut = window || edge;
        f.lateAndErrors = true;
        m_job->setTap(n.id, push, f);
    }
    m_job->setWatermarkTap([this](const observe::WatermarkTapEvent &e) {
        // Only window nodes' input watermarks are drawn as records arrive (the timeline);
        // the charts use snapshots.
        if (e.which != observe::WatermarkTapEvent::Which::Input)
            return;
        const NodeSpec *n = m_spec.node(e.node);
        if (!n || n->kind != "window")
            return;
        L::WatermarkChange c = toLive(e);
        std::lock_guard lock(m_tapMutex);
        m_watermarks.push_back(std::move(c));
    });
}

void EngineBridge::watchEdge(const QString &node, const QString &port)
{
    std::lock_guard lock(m_mutex);
    m_edgeNode = node;
    m_edgePort = port;
    m_tapsDirty = true;
    m_wake.notify_all();
}

void EngineBridge::workerLoop()
{
    using clock = std::chrono::steady_clock;
    std::int64_t chunk = 1;
    while (true) {
        bool doStep = false;
        {
            std::unique_lock lock(m_mutex);
            const auto waitStart = clock::now();
            const bool paused = !m_running;
            m_wake.wait(lock, [this] {
                return m_quit || m_running || m_steps > 0 || m_tapsDirty || m_lineageFn
                       || m_job->stopRequested();
            });
            if (paused)
                m_clock->addPaused(
                    std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - waitStart)
                        .count());
            if (m_quit)
                break;
            if (m_lineageFn) {
                serveLineage(lock);
                continue;
            }
            if (m_tapsDirty) {
                m_tapsDirty = false;
                lock.unlock();
                installTaps();
                continue;
            }
            if (!m_running && m_steps > 0) {
                --m_steps;
                doStep = true;
            }
            applyReplaySpeed();
            m_inStep = doStep;
            m_budget = doStep || !m_chunked ? 1 : chunk;
        }
        // Let the UI catch up before producing more records (bounded memory).
        while (m_queueLimit > 0 && !m_job->stopRequested()) {
            std::unique_lock lock(m_tapMutex);
            if (m_records.size() < static_cast<std::size_t>(m_queueLimit))
                break;
            m_drained.wait_for(lock, std::chrono::milliseconds(20));
            lock.unlock(); // (the UI may be waiting in withLineage(), not draining)
            std::unique_lock q(m_mutex);
            serveLineage(q);
            if (m_quit)
                break;
        }
        const auto t0 = clock::now();
        Job::Status st = m_job->runFor(m_budget);
        bool stepped;
        {
            std::lock_guard lock(m_mutex);
            stepped = m_inStep; // also set when a paused wait was released by Step
            m_inStep = false;
        }
        if (stepped)
            m_job->publishMetrics(); // (the loop publishes by itself every 33 ms otherwise)
        if (m_replayer)
            m_recordingCount = m_replayer->replayed();
        if (m_recorder) {
            m_recordingCount = m_recorder->manifest().records;
            // What a crash of the designer would leave: at most a second of input lost.
            if (const std::int64_t now = steadyMs(); now - m_lastRecordCheckpoint >= 1000) {
                m_lastRecordCheckpoint = now;
                m_recorder->checkpoint();
            }
        }
        const auto ms
            = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t0).count()
              / 1000.0;
        // Aim for ~20 ms per chunk: quick to pause, cheap per record.
        if (!doStep && m_chunked) {
            if (ms < 10 && chunk < (1 << 16))
                chunk *= 2;
            else if (ms > 40 && chunk > 1)
                chunk /= 2;
        }
        if (st != Job::Status::Running) {
            State s = st == Job::Status::Finished  ? State::Finished
                      : st == Job::Status::Stopped ? State::Stopped
                                                   : State::Failed;
            finishRecording(st == Job::Status::Finished  ? "end of input"
                            : st == Job::Status::Stopped ? "stopped"
                                                         : "failed");
            m_workerState = static_cast<int>(s);
            m_workerDone = true;
            std::unique_lock lock(m_mutex);
            m_running = false;
            while (!m_quit) {
                m_wake.wait(lock, [this] { return m_quit || m_lineageFn; });
                serveLineage(lock);
            }
            break;
        }
        std::lock_guard lock(m_mutex);
        m_workerState = static_cast<int>(m_running ? State::Running : State::Paused);
    }
}

void EngineBridge::applyReplaySpeed()
{
    // Called with m_mutex held, between two runFor() calls: a flat-out chunk in progress ends
    // flat out, and the next runFor() is sized for the new speed.
    const double speed = m_speedRequest.exchange(-1);
    if (speed < 0 || !m_replayer)
        return;
    m_replayer->clock().setSpeed(speed);
    m_chunked = speed <= 0;
}

void EngineBridge::setReplaySpeed(double speed)
{
    if (!m_replayer)
        return;
    speed = std::max(0.0, speed);
    // A paced replay runs one record per runFor(): the clock may change at once (a long
    // wait at ×1 shortens now); from flat out, the worker applies it after its chunk.
    if (!m_chunked)
        m_replayer->clock().setSpeed(speed);
    {
        std::lock_guard lock(m_mutex);
        m_speedRequest = speed;
    }
    m_wake.notify_all();
}

void EngineBridge::finishRecording(const std::string &why)
{
    if (m_recordingFinished)
        return;
    m_recordingFinished = true;
    if (m_recorder) {
        std::string e = m_recorder->finish(why);
        const recording::Manifest m = m_recorder->manifest();
        m_recordingCount = m.records;
        m_recordingResult
            = !e.empty() ? e
                         : std::to_string(m.records) + " records (" + std::to_string(m.bytes)
                               + " bytes, " + std::to_string(m.durationMs) + " ms) recorded into "
                               + m_recordingDir.toStdString() + " (" + m.stoppedBy + ")";
    } else if (m_replayer) {
        m_recordingCount = m_replayer->replayed();
        m_recordingResult = std::to_string(m_replayer->replayed())
                            + " recorded records replayed from " + m_recordingDir.toStdString();
    }
}

QString EngineBridge::recordingResult() const
{
    return m_workerDone.load() || !m_thread ? QString::fromStdString(m_recordingResult) : QString();
}

bool EngineBridge::holdWhilePaused()
{
    // Only a one-record runFor() can stop exactly between two records; chunks never wait.
    std::unique_lock lock(m_mutex);
    serveLineage(lock); // a source waits: between two records
    if (m_inStep)
        return true;
    if (m_running || m_budget != 1 || m_quit || m_job->stopRequested())
        return false;
    const auto t0 = std::chrono::steady_clock::now();
    while (true) {
        m_wake.wait(lock, [this] {
            return m_running || m_steps > 0 || m_quit || m_lineageFn || m_job->stopRequested();
        });
        if (!m_lineageFn)
            break;
        serveLineage(lock);
    }
    m_clock->addPaused(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    // Released by Step: the record this runFor() is waiting for is the step's record.
    if (!m_running && m_steps > 0 && !m_quit) {
        --m_steps;
        m_inStep = true;
    }
    return m_inStep;
}

void EngineBridge::serveLineage(std::unique_lock<std::mutex> &lock)
{
    if (!m_lineageFn)
        return;
    const auto *fn = m_lineageFn;
    m_lineageBusy = true;
    lock.unlock();
    (*fn)(*m_job->lineage());
    lock.lock();
    m_lineageBusy = false;
    m_lineageFn = nullptr;
    m_lineageServed.notify_all();
}

bool EngineBridge::withLineage(const std::function<void(const lineage::Store &)> &fn, int timeoutMs)
{
    if (!m_job || !m_job->lineage() || !m_thread)
        return false;
    std::unique_lock lock(m_mutex);
    if (m_lineageFn)
        return false; // (one at a time: the UI thread is the only caller)
    m_lineageFn = &fn;
    m_wake.notify_all();
    if (!m_lineageServed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                  [this] { return !m_lineageFn; })) {
        if (!m_lineageBusy) {
            m_lineageFn = nullptr; // the loop is inside a long wait: withdrawn
            return false;
        }
        m_lineageServed.wait(lock, [this] { return !m_lineageFn; });
    }
    return true;
}

void EngineBridge::run()
{
    if (!m_job || m_workerDone)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_running = true;
    }
    m_wake.notify_all();
    setState(State::Running);
}

void EngineBridge::pause()
{
    if (!m_job || m_workerDone)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_running = false;
    }
    m_wake.notify_all();
    setState(State::Paused);
}

void EngineBridge::step()
{
    if (!m_job || m_workerDone)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_running = false;
        ++m_steps;
    }
    m_wake.notify_all();
    setState(State::Paused);
}

void EngineBridge::stop()
{
    if (!m_job || m_workerDone)
        return;
    m_job->requestStop();
    {
        std::lock_guard lock(m_mutex);
        m_running = true; // let the loop see the stop flag and flush
    }
    m_wake.notify_all();
}

void EngineBridge::shutdown()
{
    m_timer.stop();
    if (m_thread) {
        if (m_job)
            m_job->requestStop();
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_wake.notify_all();
        m_drained.notify_all();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    // A run shut down before it ended (a new document, closing the window) still leaves a
    // complete recording of what it read; the worker is gone, so this thread may close it.
    if (m_job)
        finishRecording("stopped");
    m_job.reset();
    m_recorder.reset();
    m_replayer.reset();
    m_clock.reset();
}

void EngineBridge::reset()
{
    shutdown();
    m_spec = {};
    m_nodes.clear();
    m_edges.clear();
    m_snapshot = {};
    m_failure.clear();
    {
        std::lock_guard lock(m_tapMutex);
        m_records.clear();
        m_watermarks.clear();
    }
    setState(State::Idle);
}

bool EngineBridge::requestSavepoint(const QString &dir)
{
    if (!m_job || m_workerDone)
        return false;
    m_job->requestSavepoint(dir.toStdString(), [this, dir](bool ok, const std::string &msg) {
        // Runs on the loop thread, or on the UI thread when the request was refused outright
        // (job ended) or the job is being destroyed; the history labels savepoints itself.
        QMetaObject::invokeMethod(
            this,
            [this, ok, dir, message = QString::fromStdString(msg)] {
                Q_EMIT savepointFinished(ok, message, dir);
            },
            Qt::QueuedConnection);
    });
    if (m_state == State::Paused)
        step();
    return true;
}

QList<L::TappedRecord> EngineBridge::takeRecords(int max)
{
    QList<L::TappedRecord> out;
    {
        std::lock_guard lock(m_tapMutex);
        const auto n = std::min<std::size_t>(m_records.size(), static_cast<std::size_t>(max));
        out.reserve(static_cast<qsizetype>(n));
        for (std::size_t i = 0; i < n; ++i) {
            out.push_back(std::move(m_records.front()));
            m_records.pop_front();
        }
    }
    m_drained.notify_all();
    return out;
}

QList<L::TappedRecord> EngineBridge::takeRecordsUpTo(qint64 recordsRead, int max)
{
    QList<L::TappedRecord> out;
    {
        std::lock_guard lock(m_tapMutex);
        while (!m_records.empty() && out.size() < max
               && m_records.front().recordsRead <= recordsRead) {
            out.push_back(std::move(m_records.front()));
            m_records.pop_front();
        }
    }
    m_drained.notify_all();
    return out;
}

bool EngineBridge::hasRecordsUpTo(qint64 recordsRead)
{
    std::lock_guard lock(m_tapMutex);
    return !m_records.empty() && m_records.front().recordsRead <= recordsRead;
}

qsizetype EngineBridge::queuedRecords()
{
    std::lock_guard lock(m_tapMutex);
    return static_cast<qsizetype>(m_records.size());
}

QList<L::WatermarkChange> EngineBridge::takeWatermarks()
{
    std::lock_guard lock(m_tapMutex);
    QList<L::WatermarkChange> out;
    out.swap(m_watermarks);
    return out;
}

void EngineBridge::poll()
{
    if (!m_job)
        return;
    m_snapshot = toLive(m_job->snapshot());
    const bool done = m_workerDone.load();
    const auto ws = static_cast<State>(m_workerState.load());
    if (done) {
        m_failure = QString::fromStdString(m_job->failure());
        // The final snapshot is published before the worker reports done: take it now.
        m_snapshot = toLive(m_job->snapshot());
    }
    m_snapshot.state = QString::fromLatin1(
        QMetaEnum::fromType<State>().valueToKey(static_cast<int>(done ? ws : m_state)));
    ++m_frames;
    Q_EMIT frame();
    // The run is over once the UI has taken every tapped record (frames take them in slices).
    if (done && queuedRecords() == 0) {
        m_timer.stop();
        if (m_state != ws)
            setState(ws);
    }
}

void EngineBridge::setState(State s)
{
    if (m_state == s)
        return;
    m_state = s;
    Q_EMIT stateChanged(s);
}

} // namespace tideline::designer::live
