#include "lab_panel.hpp"

#include "lab.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace tideline::designer {

LabPanel::LabPanel(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_task(new QTextBrowser(this))
    , m_check(
          new QPushButton(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("Check"), this))
    , m_verdictLabel(new QLabel(this))
{
    setObjectName(QStringLiteral("labPanel"));
    m_title->setObjectName(QStringLiteral("labTitle"));
    m_title->setWordWrap(true);
    QFont big = m_title->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.25);
    m_title->setFont(big);
    m_task->setObjectName(QStringLiteral("labTask"));
    m_task->setOpenLinks(false); // a link in a task names a doc; the task stays in view
    m_task->setFrameShape(QFrame::NoFrame);
    m_check->setObjectName(QStringLiteral("labCheckButton"));
    m_check->setToolTip(tr("Run the pipeline on the lab's input and compare each sink's output "
                           "with the lab's expected output (F7)"));
    m_check->setMinimumHeight(m_check->sizeHint().height() * 5 / 4);
    QFont bold = m_check->font();
    bold.setBold(true);
    m_check->setFont(bold);
    m_verdictLabel->setObjectName(QStringLiteral("labVerdict"));
    m_verdictLabel->setWordWrap(true);
    m_verdictLabel->setMargin(6);
    m_verdictLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 8);
    layout->addWidget(m_title);
    layout->addWidget(m_task, 1);
    auto *row = new QHBoxLayout;
    row->addWidget(m_check);
    row->addStretch();
    layout->addLayout(row);
    layout->addWidget(m_verdictLabel);
    connect(m_check, &QPushButton::clicked, this, &LabPanel::checkRequested);
    setVerdict(Verdict::NotChecked, {});
}

void LabPanel::showLab(const Lab &lab)
{
    m_title->setText(lab.title);
    m_task->setSearchPaths({lab.dir});
    // The heading is the panel's title already.
    QString body = lab.task;
    if (body.startsWith(QStringLiteral("# "))) {
        const qsizetype nl = body.indexOf('\n');
        body = nl < 0 ? QString() : body.mid(nl + 1);
    }
    m_task->document()->setBaseUrl(QUrl::fromLocalFile(lab.dir + '/'));
    m_task->setMarkdown(body);
    setVerdict(Verdict::NotChecked, {});
}

void LabPanel::setVerdict(Verdict verdict, const QString &text)
{
    m_verdict = verdict;
    QString head, colours;
    switch (verdict) {
    case Verdict::NotChecked:
        head = tr("Not checked yet.");
        colours = QStringLiteral("color: palette(text);");
        break;
    case Verdict::Running:
        head = tr("Checking…");
        colours = QStringLiteral("color: palette(text);");
        break;
    case Verdict::Passed:
        head = tr("✔ Solved.");
        colours = QStringLiteral("background: #1e7a3c; color: white; border-radius: 4px;");
        break;
    case Verdict::Failed:
        head = tr("✘ Not yet.");
        colours = QStringLiteral("background: #a3262b; color: white; border-radius: 4px;");
        break;
    case Verdict::Error:
        head = tr("The check could not run.");
        colours = QStringLiteral("background: #8a5a00; color: white; border-radius: 4px;");
        break;
    }
    m_verdictLabel->setStyleSheet(colours);
    m_verdictLabel->setText(text.isEmpty() ? head : head + QLatin1Char(' ') + text);
    m_check->setEnabled(verdict != Verdict::Running);
}

QString LabPanel::verdictText() const
{
    return m_verdictLabel->text();
}

QString LabPanel::title() const
{
    return m_title->text();
}

} // namespace tideline::designer
