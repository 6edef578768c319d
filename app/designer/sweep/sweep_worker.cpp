#include "sweep_worker.hpp"

#include <QThread>

namespace tideline::designer {

SweepWorker::SweepWorker(QObject *parent)
    : QObject(parent)
{
}

SweepWorker::~SweepWorker()
{
    if (m_thread) {
        m_cancel = true;
        m_thread->wait();
        delete m_thread;
    }
}

bool SweepWorker::start(const PipelineSpec &spec,
                        const sweep::Plan &plan,
                        const QString &baseDir,
                        QString *error)
{
    if (m_thread) {
        *error = tr("a sweep is running already");
        return false;
    }
    if (plan.combinations() == 0) {
        *error = tr("add a parameter and its values first");
        return false;
    }
    if (std::string e = sweep::checkBounded(spec, "A sweep"); !e.empty()) {
        *error = QString::fromStdString(e);
        return false;
    }
    m_plan = plan;
    m_cancel = false;
    m_thread = QThread::create([this, spec, plan, base = baseDir.toStdString()] {
        sweep::Options options;
        options.baseDir = base;
        options.cancel = &m_cancel;
        options.onProgress = [this](const sweep::Progress &p) {
            const int done = static_cast<int>(p.done);
            const int total = static_cast<int>(p.total);
            QMetaObject::invokeMethod(
                this, [this, done, total] { Q_EMIT progress(done, total); }, Qt::QueuedConnection);
        };
        m_workerResult = sweep::run(spec, plan, options);
    });
    m_thread->setObjectName(QStringLiteral("tideline-sweep"));
    connect(m_thread, &QThread::finished, this, &SweepWorker::onWorkerDone, Qt::QueuedConnection);
    m_thread->start();
    return true;
}

void SweepWorker::cancel()
{
    m_cancel = true;
}

void SweepWorker::onWorkerDone()
{
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_result = std::move(m_workerResult);
    Q_EMIT finished();
}

} // namespace tideline::designer
