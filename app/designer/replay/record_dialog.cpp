#include "replay/record_dialog.hpp"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace tideline::designer {

namespace {

QSpinBox *limitBox(QWidget *parent, const QString &suffix, qint64 value)
{
    auto *b = new QSpinBox(parent);
    b->setRange(0, std::numeric_limits<int>::max());
    // 0 is "no limit", as for the command-line flags.
    b->setSpecialValueText(RecordDialog::tr("no limit"));
    b->setSuffix(suffix);
    b->setValue(static_cast<int>(std::min<qint64>(value, std::numeric_limits<int>::max())));
    return b;
}

} // namespace

RecordDialog::RecordDialog(const RecordSettings &initial, QWidget *parent)
    : QDialog(parent)
    , m_folder(new QLineEdit(initial.dir, this))
    , m_records(limitBox(this, tr(" records"), initial.maxRecords))
    , m_megabytes(limitBox(this, tr(" MiB"), initial.maxBytes / (1024 * 1024)))
    , m_seconds(limitBox(this, tr(" s"), initial.maxDurationMs / 1000))
{
    setObjectName(QStringLiteral("recordDialog"));
    setWindowTitle(tr("Record"));
    auto *intro = new QLabel(
        tr("The run captures every source's input as it arrives, with its arrival time, into a "
           "recording folder. Run › Replay Recording… replays it exactly, without the sources."),
        this);
    intro->setWordWrap(true);
    m_folder->setObjectName(QStringLiteral("recordFolder"));
    m_folder->setMinimumWidth(360);
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString parentDir = QFileInfo(m_folder->text()).absolutePath();
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Record into"), parentDir);
        if (!dir.isEmpty())
            m_folder->setText(QDir(dir).filePath(QFileInfo(m_folder->text()).fileName()));
    });
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    m_records->setObjectName(QStringLiteral("recordMaxRecords"));
    m_megabytes->setObjectName(QStringLiteral("recordMaxMegabytes"));
    m_seconds->setObjectName(QStringLiteral("recordMaxSeconds"));
    m_records->setToolTip(tr("Stop after this many records (--record-max-records)"));
    m_megabytes->setToolTip(tr("Stop before records.tsv grows past this (--record-max-bytes)"));
    m_seconds->setToolTip(tr("Stop after this much processing time (--record-max-duration)"));

    auto *form = new QFormLayout;
    auto *folderLabel = new QLabel(tr("&Folder (new):"), this);
    folderLabel->setBuddy(m_folder); // a row of a layout gets no buddy from addRow()
    form->addRow(folderLabel, folderRow);
    form->addRow(tr("Stop after &records:"), m_records);
    form->addRow(tr("Stop at &size:"), m_megabytes);
    form->addRow(tr("Stop after &time:"), m_seconds);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("&Record"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_folder, &QLineEdit::textChanged, this, &RecordDialog::updateOk);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(buttons);
    updateOk();
}

void RecordDialog::updateOk()
{
    m_ok->setEnabled(!m_folder->text().trimmed().isEmpty());
}

RecordSettings RecordDialog::settings() const
{
    RecordSettings s;
    s.dir = m_folder->text().trimmed();
    s.maxRecords = m_records->value();
    s.maxBytes = static_cast<qint64>(m_megabytes->value()) * 1024 * 1024;
    s.maxDurationMs = static_cast<qint64>(m_seconds->value()) * 1000;
    return s;
}

} // namespace tideline::designer
