#pragma once
// "Export for server": lists literal secrets with the environment variable each becomes,
// writes the pipeline with ${env:...} references only, and shows the tideline-run command.

#include "secrets.hpp"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace tideline::designer {

class ExportDialog final : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(const PipelineSpec &spec, const QString &suggestedPath, QWidget *parent = nullptr);

    QLineEdit *pathEdit() const { return m_path; }
    QPushButton *exportButton() const { return m_export; }
    /// After a successful export: the command line shown to the user.
    QString command() const;
    QString exportedPath() const { return m_exported; }

private:
    void doExport();

    PipelineSpec m_spec;
    std::vector<SecretFinding> m_findings;
    QTableWidget *m_table = nullptr;
    QLineEdit *m_path;
    QPushButton *m_export;
    QLabel *m_status;
    QPlainTextEdit *m_result;
    QString m_exported;
};

} // namespace tideline::designer
