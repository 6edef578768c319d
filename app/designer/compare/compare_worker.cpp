#include "compare/compare_worker.hpp"

#include <QThread>

namespace tideline::designer {

CompareWorker::CompareWorker(QObject *parent)
    : QObject(parent)
{
}

CompareWorker::~CompareWorker()
{
    if (m_thread) {
        m_cancel = true;
        m_thread->wait();
        delete m_thread;
    }
}

bool CompareWorker::start(const PipelineSpec &spec, const QString &baseDir, QString *error)
{
    if (m_thread) {
        *error = tr("a comparison is running already");
        return false;
    }
    compare::Options options;
    options.baseDir = baseDir.toStdString();
    if (std::string e = compare::check(spec, options, false); !e.empty()) {
        *error = QString::fromStdString(e);
        return false;
    }
    m_cancel = false;
    m_thread = QThread::create([this, spec, options]() mutable {
        options.cancel = &m_cancel;
        options.onRunFinished = [this](const compare::EngineRun &r) {
            const QString engine = QString::fromStdString(r.engine);
            const bool ran = r.ran();
            QMetaObject::invokeMethod(
                this, [this, engine, ran] { Q_EMIT engineFinished(engine, ran); },
                Qt::QueuedConnection);
        };
        m_workerReport = compare::run(spec, options);
    });
    m_thread->setObjectName(QStringLiteral("tideline-compare"));
    connect(m_thread, &QThread::finished, this, &CompareWorker::onWorkerDone, Qt::QueuedConnection);
    m_thread->start();
    return true;
}

void CompareWorker::cancel()
{
    m_cancel = true;
}

void CompareWorker::onWorkerDone()
{
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_report = std::move(m_workerReport);
    Q_EMIT finished();
}

} // namespace tideline::designer
