#include "postgres_inspector.hpp"

#include "inspect/node_inspector.hpp"

#include <tideline/engine/postgres_probe.hpp>

#include <QDateTime>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace tideline::designer::live {

namespace {

/// Runs `work` on a new thread and `done` with its result on `owner`'s thread (not at all
/// when `owner` is gone by then).
template<typename Work, typename Done>
void runOffThread(QObject *owner, Work work, Done done)
{
    auto result = std::make_shared<PostgresProbe>();
    QThread *t = QThread::create([result, work] { *result = work(); });
    QPointer<QObject> guard(owner);
    QObject::connect(t, &QThread::finished, owner, [t, result, done, guard] {
        t->deleteLater();
        if (guard)
            done(*result);
    });
    t->start();
}

} // namespace

PostgresInspector::PostgresInspector(widgets::NodeInspector *inspector, QObject *parent)
    : QObject(parent)
    , m_inspector(inspector)
    , m_section(new QWidget)
    , m_test(new QPushButton(tr("Test connection"), m_section))
    , m_result(new QLabel(m_section))
{
    m_section->setObjectName(QStringLiteral("postgresSection"));
    m_test->setObjectName(QStringLiteral("postgresTestConnection"));
    m_test->setToolTip(tr("Connect with this node's conninfo (references resolved from the "
                          "environment) and check its table"));
    m_result->setObjectName(QStringLiteral("postgresTestResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(m_section);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addWidget(m_test, 0, Qt::AlignLeft);
    layout->addWidget(m_result);
    inspector->addSection(m_section);
    m_section->setVisible(false);
    connect(m_test, &QPushButton::clicked, this, &PostgresInspector::testConnection);
}

void PostgresInspector::showNode(const NodeSpec *spec)
{
    const bool pg = spec && spec->kind == "sink.postgres";
    const bool other = !pg || !m_shown || spec->id != m_node.id;
    m_shown = pg;
    if (pg)
        m_node = *spec;
    m_section->setVisible(pg);
    if (other)
        m_result->clear();
}

void PostgresInspector::testConnection()
{
    if (!m_shown)
        return;
    ++m_testsRunning;
    m_test->setEnabled(false);
    m_result->setText(tr("Connecting…"));
    if (m_lookup)
        if (const NodeSpec *now = m_lookup(m_node.id))
            m_node = *now;
    const NodeSpec node = m_node;
    runOffThread(
        this, [node] { return testPostgresConnection(node); },
        [this, id = node.id](const PostgresProbe &p) {
            --m_testsRunning;
            m_test->setEnabled(true);
            const QString text = QString::fromStdString(p.message);
            if (m_shown && m_node.id == id)
                m_result->setText((p.ok ? QStringLiteral("✓ ") : QStringLiteral("✗ ")) + text);
            Q_EMIT tested(p.ok, text);
        });
}

void PostgresInspector::readNewestRows(const NodeSpec &node, int limit)
{
    runOffThread(
        this, [node, limit] { return readNewestPostgresRows(node, limit); },
        [this, id = QString::fromStdString(node.id)](const PostgresProbe &p) {
            QStringList rows;
            for (const auto &r : p.rows)
                rows << QString::fromStdString(r);
            const QString when = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
            Q_EMIT readBack(
                id, rows,
                p.ok ? tr("Read back at %1: %2").arg(when, QString::fromStdString(p.message))
                     : tr("Cannot read the table (%1): %2")
                           .arg(when, QString::fromStdString(p.message)));
        });
}

} // namespace tideline::designer::live
