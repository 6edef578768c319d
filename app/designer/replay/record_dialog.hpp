#pragma once
// Run › Record…: where the recording goes and its limits, the same ones tideline-run offers
// (--record DIR, --record-max-records, --record-max-bytes, --record-max-duration). 0 = none.

#include <QDialog>

class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tideline::designer {

struct RecordSettings
{
    QString dir;
    qint64 maxRecords = 0;
    qint64 maxBytes = 0;
    qint64 maxDurationMs = 0;
};

class RecordDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit RecordDialog(const RecordSettings &initial, QWidget *parent = nullptr);
    RecordSettings settings() const;

    QLineEdit *folderEdit() const { return m_folder; }
    QSpinBox *maxRecordsBox() const { return m_records; }
    QSpinBox *maxMegabytesBox() const { return m_megabytes; }
    QSpinBox *maxSecondsBox() const { return m_seconds; }

private:
    void updateOk();

    QLineEdit *m_folder;
    QSpinBox *m_records;
    QSpinBox *m_megabytes;
    QSpinBox *m_seconds;
    QPushButton *m_ok = nullptr;
};

} // namespace tideline::designer
