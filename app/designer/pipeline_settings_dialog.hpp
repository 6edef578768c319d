#pragma once
// Pipeline settings: name, description, checkpoints (interval, folder, how many to keep), state
// backend (with its memory budget) and delivery guarantee. Edits a copy; the window applies the
// result as one undoable SetPipelineSettingsCommand. Keys the dialog does not know are kept as they
// are.

#include "pipeline_document.hpp"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace tideline::designer {

class PipelineSettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    /// `pipelineDir`: the pipeline file's folder (relative checkpoint folders resolve there).
    PipelineSettingsDialog(const PipelineHeader &header,
                           const QString &pipelineDir,
                           QWidget *parent = nullptr);

    /// The edited header (the input with the dialog's fields applied).
    PipelineHeader header() const;

    QLineEdit *nameEdit() const { return m_name; }
    QPlainTextEdit *descriptionEdit() const { return m_description; }
    QGroupBox *checkpointGroup() const { return m_checkpoints; }
    QSpinBox *intervalBox() const { return m_interval; }
    QLineEdit *dirEdit() const { return m_dir; }
    QSpinBox *keepBox() const { return m_keep; }
    QComboBox *stateBox() const { return m_state; }
    /// settings.state_memory_mb: the in-memory budget per stateful node with "rocksdb".
    QSpinBox *memoryBudgetBox() const { return m_memoryMb; }
    QComboBox *deliveryBox() const { return m_delivery; }

private:
    void updateHints();

    PipelineHeader m_input;
    QString m_pipelineDir;
    QLineEdit *m_name;
    QPlainTextEdit *m_description;
    QGroupBox *m_checkpoints;
    QSpinBox *m_interval;
    QLineEdit *m_dir;
    QSpinBox *m_keep;
    QLabel *m_dirHint;
    QComboBox *m_state;
    QSpinBox *m_memoryMb;
    QLabel *m_stateHint;
    QComboBox *m_delivery;
};

} // namespace tideline::designer
