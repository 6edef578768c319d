#pragma once
// sink.postgres in the designer: a section under the node's form with "Test connection"
// (connects with the node's conninfo as edited, describes the table), and the output
// preview's read-back of the table's newest rows. The probes block on the network, so each
// runs on a thread of its own; the answer comes back to the GUI thread as a signal. The
// engine's probes (tideline/engine/postgres_probe.hpp) never show the password.

#include <tideline/engine/spec.hpp>

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QLabel;
class QPushButton;
class QWidget;

namespace tideline::widgets {
class NodeInspector;
}

namespace tideline::designer::live {

class PostgresInspector final : public QObject
{
    Q_OBJECT
public:
    PostgresInspector(widgets::NodeInspector *inspector, QObject *parent = nullptr);

    /// The node shown in the inspector (the section is visible only for sink.postgres); `spec`
    /// is the node as edited (null when none is shown).
    void showNode(const NodeSpec *spec);
    /// How the node shown is found when the button is pressed (its params as edited by then).
    void setLookup(std::function<const NodeSpec *(const std::string &id)> lookup)
    {
        m_lookup = std::move(lookup);
    }
    /// Runs "Test connection" for the node shown (what the button does).
    void testConnection();
    /// Reads the newest rows of `node`'s table; readBack() is emitted with them.
    void readNewestRows(const NodeSpec &node, int limit = 50);

    QWidget *section() const { return m_section; }
    QPushButton *testButton() const { return m_test; }
    QLabel *resultLabel() const { return m_result; }
    bool busy() const { return m_testsRunning > 0; }

Q_SIGNALS:
    /// "Test connection" finished: ok and the message shown.
    void tested(bool ok, const QString &message);
    /// Rows of `node`'s table (JSON objects, newest first) and a status line.
    void readBack(const QString &node, const QStringList &rows, const QString &status);

private:
    widgets::NodeInspector *m_inspector;
    QWidget *m_section;
    QPushButton *m_test;
    QLabel *m_result;
    NodeSpec m_node;
    std::function<const NodeSpec *(const std::string &id)> m_lookup;
    bool m_shown = false;
    int m_testsRunning = 0;
};

} // namespace tideline::designer::live
