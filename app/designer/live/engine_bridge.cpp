#include "engine_bridge.hpp"

#include "convert.hpp"

#include <tideline/engine/job.hpp>

#include <QMetaEnum>
#include <QThread>

#include <chrono>
#include <ostream>

namespace tideline::designer::live {

namespace L = tideline::live;

namespace {
/// sink.console output has nowhere to go in the designer (the preview shows the records).
std::ostream &nullStream()
{
    static std::ostream s(nullptr);
    return s;
}
} // namespace

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
                         QString *error)
{
    shutdown();
    m_spec = spec;
    if (pace.mode != Pace::AsInFile)
        for (auto &n : m_spec.nodes) {
            if (n.kind != "source.generator" && n.kind != "source.file")
                continue;
            if (pace.mode == Pace::FlatOut)
                n.params.erase("pace");
            else if (pace.mode == Pace::RecordsPerSecond)
                n.params["pace"] = Json{{"records_per_s", pace.value}};
            else
                n.params["pace"] = Json{{"speed", pace.value}};
        }
    JobOptions options;
    options.baseDir = baseDir.toStdString();
    options.console = &nullStream();
    options.fresh = true; // a designer run starts from the beginning, not from old state
    std::string err;
    m_job = Job::create(m_spec, std::move(options), err);
    if (!m_job) {
        if (error)
            *error = QString::fromStdString(err);
        return false;
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
    std::int64_t chunk = 64;
    while (true) {
        bool doStep = false;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] {
                return m_quit || m_running || m_steps > 0 || m_tapsDirty || m_job->stopRequested();
            });
            if (m_quit)
                break;
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
        }
        // Let the UI catch up before producing more records (bounded memory).
        while (m_queueLimit > 0 && !m_job->stopRequested()) {
            std::unique_lock lock(m_tapMutex);
            if (m_records.size() < static_cast<std::size_t>(m_queueLimit))
                break;
            m_drained.wait_for(lock, std::chrono::milliseconds(20));
            std::lock_guard q(m_mutex);
            if (m_quit)
                break;
        }
        const auto t0 = clock::now();
        Job::Status st = m_job->runFor(doStep ? 1 : chunk);
        if (doStep)
            m_job->publishMetrics();
        const auto ms
            = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t0).count()
              / 1000.0;
        // Aim for ~20 ms per chunk: quick to pause, cheap per record.
        if (!doStep) {
            if (ms < 10 && chunk < (1 << 16))
                chunk *= 2;
            else if (ms > 40 && chunk > 1)
                chunk /= 2;
        }
        if (st != Job::Status::Running) {
            State s = st == Job::Status::Finished  ? State::Finished
                      : st == Job::Status::Stopped ? State::Stopped
                                                   : State::Failed;
            m_workerState = static_cast<int>(s);
            m_workerDone = true;
            std::unique_lock lock(m_mutex);
            m_running = false;
            m_wake.wait(lock, [this] { return m_quit; });
            break;
        }
        std::lock_guard lock(m_mutex);
        m_workerState = static_cast<int>(m_running ? State::Running : State::Paused);
    }
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
    m_job.reset();
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
