#include "export_dialog.hpp"

#include "json_bridge.hpp"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tideline::designer {

ExportDialog::ExportDialog(const PipelineSpec &spec, const QString &suggestedPath, QWidget *parent)
    : QDialog(parent)
    , m_spec(spec)
    , m_findings(findLiteralSecrets(spec))
    , m_path(new QLineEdit(suggestedPath, this))
    , m_export(new QPushButton(tr("Export"), this))
    , m_status(new QLabel(this))
    , m_result(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Export for server"));
    resize(720, 460);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("Writes the pipeline as the server runs it. Secrets are never written as literals: "
           "each one becomes an <code>${env:NAME}</code> reference that the server resolves "
           "when the pipeline starts."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    if (m_findings.empty()) {
        auto *ok = new QLabel(tr("No literal secrets found."), this);
        ok->setObjectName(QStringLiteral("exportNoSecrets"));
        layout->addWidget(ok);
    } else {
        auto *warn = new QLabel(tr("%1 literal secret(s) will be replaced by environment "
                                   "variables (edit the names if you like):")
                                    .arg(m_findings.size()),
                                this);
        warn->setObjectName(QStringLiteral("renameWarning"));
        warn->setWordWrap(true);
        layout->addWidget(warn);
        m_table = new QTableWidget(int(m_findings.size()), 2, this);
        m_table->setHorizontalHeaderLabels({tr("Where"), tr("Environment variable")});
        m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        m_table->verticalHeader()->hide();
        for (int i = 0; i < int(m_findings.size()); ++i) {
            auto *where = new QTableWidgetItem(m_findings[std::size_t(i)].where());
            where->setFlags(Qt::ItemIsEnabled);
            m_table->setItem(i, 0, where);
            m_table->setItem(i, 1, new QTableWidgetItem(qstr(m_findings[std::size_t(i)].envName)));
        }
        layout->addWidget(m_table);
        m_export->setText(tr("Replace with ${env:…} and export"));
    }

    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("File:"), this));
    row->addWidget(m_path, 1);
    auto *browse = new QPushButton(tr("Browse…"), this);
    row->addWidget(browse);
    layout->addLayout(row);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_result->setReadOnly(true);
    m_result->setObjectName(QStringLiteral("exportCommand"));
    m_result->setVisible(false);
    layout->addWidget(m_result);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_export, QDialogButtonBox::AcceptRole);
    auto *copy = buttons->addButton(tr("Copy command"), QDialogButtonBox::ActionRole);
    copy->setEnabled(false);
    auto *close = buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Export for server"),
                                                       m_path->text(), tr("Pipelines (*.json)"));
        if (!p.isEmpty())
            m_path->setText(p);
    });
    connect(m_export, &QPushButton::clicked, this, [this, copy] {
        doExport();
        copy->setEnabled(!m_exported.isEmpty());
    });
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(command()); });
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
}

QString ExportDialog::command() const
{
    return m_exported.isEmpty() ? QString() : runCommand(m_exported);
}

void ExportDialog::doExport()
{
    std::vector<SecretFinding> findings = m_findings;
    for (int i = 0; m_table && i < m_table->rowCount(); ++i) {
        const QString name = m_table->item(i, 1)->text().trimmed();
        if (!name.isEmpty())
            findings[std::size_t(i)].envName = sstr(name);
    }
    // Two secrets, one variable: the server could only give both the same value.
    for (std::size_t i = 0; i < findings.size(); ++i)
        for (std::size_t j = i + 1; j < findings.size(); ++j)
            if (findings[i].envName == findings[j].envName) {
                m_status->setText(
                    tr("%1 and %2 both use ${env:%3}: give each secret its own "
                       "variable.")
                        .arg(findings[i].where(), findings[j].where(), qstr(findings[i].envName)));
                return;
            }
    QString error;
    const QString path = m_path->text().trimmed();
    if (path.isEmpty() || !exportForServer(m_spec, findings, path, &error)) {
        m_status->setText(path.isEmpty() ? tr("Choose a file.") : error);
        return;
    }
    m_exported = path;
    QString text = tr("# Run on the server:\n") + runCommand(path) + "\n";
    if (!findings.empty()) {
        text += tr("\n# with these variables set first:\n");
        for (const auto &f : findings)
            text += "export " + qstr(f.envName) + "=...\n";
    }
    m_result->setPlainText(text);
    m_result->setVisible(true);
    m_status->setText(tr("Written %1.").arg(path));
}

} // namespace tideline::designer
