#include "check_panel.hpp"

#include "../graph/graph_style.hpp"
#include "check_style.hpp"
#include "ui_scale.hpp"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QResizeEvent>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace tideline::widgets {

namespace {

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString colour(const QColor &c)
{
    return c.name();
}

/// The tag in front of a finding, coloured by what it is.
std::pair<QString, QColor> tagOf(CheckFinding::Kind kind)
{
    using K = CheckFinding::Kind;
    switch (kind) {
    case K::Missing:
        return {CheckPanel::tr("missing"), style::errorColor()};
    case K::Extra:
        return {CheckPanel::tr("extra"), style::warningColor()};
    case K::Different:
        return {CheckPanel::tr("different"), QColor(0x4f, 0xb3, 0xe8)};
    case K::Corrupt:
        return {CheckPanel::tr("corrupt"), style::errorColor()};
    case K::Order:
        return {CheckPanel::tr("order"), style::warningColor()};
    case K::More:
        break;
    }
    return {QString(), style::textSecondary()};
}

QString formatSeconds(qint64 ms)
{
    return ms < 1000 ? CheckPanel::tr("%1 ms").arg(ms)
                     : CheckPanel::tr("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
}

} // namespace

CheckPanel::CheckPanel(QWidget *parent)
    : QWidget(parent)
    , m_marker(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_tools(new QToolBar(this))
    , m_folder(new QLabel(this))
    , m_split(new QSplitter(Qt::Horizontal, this))
    , m_sinks(new QTreeWidget(m_split))
    , m_findings(new QTextBrowser(m_split))
{
    setObjectName(QStringLiteral("checkPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 6);
    layout->setSpacing(2);

    // Row 1: the verdict, the full width (it is what one reads first). Row 2: the actions
    // and the folder they use.
    auto *top = new QHBoxLayout;
    top->setSpacing(6);
    m_marker->setObjectName(QStringLiteral("checkMarker"));
    m_marker->setFixedSize(18, 18); // updateSummary() sizes it to the verdict's font
    m_summary->setObjectName(QStringLiteral("checkSummary"));
    m_summary->setFont(relativeFont(0.5, true));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    top->addWidget(m_marker);
    top->addWidget(m_summary, 1);
    layout->addLayout(top);

    auto *actions = new QHBoxLayout;
    actions->setSpacing(8);
    m_tools->setObjectName(QStringLiteral("checkTools"));
    m_tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_tools->setIconSize(QSize(16, 16));
    m_folder->setObjectName(QStringLiteral("checkFolder"));
    m_folder->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    actions->addWidget(m_tools);
    actions->addWidget(m_folder, 1);
    layout->addLayout(actions);

    m_sinks->setObjectName(QStringLiteral("checkSinks"));
    m_sinks->setColumnCount(2);
    m_sinks->setHeaderLabels({tr("Sink"), tr("Result")});
    m_sinks->setRootIsDecorated(false);
    m_sinks->setHeaderHidden(true); // "Sink · Result" says nothing the rows do not
    m_sinks->setUniformRowHeights(true);
    m_sinks->header()->setStretchLastSection(true);
    m_sinks->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_sinks->setMinimumWidth(200);
    m_findings->setObjectName(QStringLiteral("checkFindings"));
    m_findings->setOpenLinks(false);
    m_findings->setMinimumWidth(240);
    m_split->addWidget(m_sinks);
    m_split->addWidget(m_findings);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 5);
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split, 1);

    auto select = [this] {
        showFindings();
        if (const QString id = selectedSink(); !id.isEmpty())
            Q_EMIT sinkSelected(id);
    };
    connect(m_sinks, &QTreeWidget::itemClicked, this, select);
    connect(m_sinks, &QTreeWidget::itemActivated, this, select);
    connect(m_sinks, &QTreeWidget::currentItemChanged, this, [this] { showFindings(); });
    clear();
}

void CheckPanel::setExpectedDir(const QString &dir)
{
    m_expectedDir = dir;
    updateSummary();
}

void CheckPanel::setRunning(const QString &text)
{
    m_running = text;
    updateSummary();
}

void CheckPanel::setReport(const CheckReport &report)
{
    m_report = report;
    m_hasReport = true;
    m_outdated = false;
    m_running.clear();
    m_expectedDir = report.expectedDir;
    const QString keep = selectedSink();
    m_sinks->clear();
    QTreeWidgetItem *pick = nullptr, *firstBad = nullptr;
    const qreal dpr = devicePixelRatioF();
    // Markers as tall as the text (they grow with the presentation scale).
    const int iconSize = std::max(12, fontMetrics().height() * 4 / 5);
    m_sinks->setIconSize(QSize(iconSize, iconSize));
    for (const auto &s : report.sinks) {
        auto *item = new QTreeWidgetItem(m_sinks);
        item->setText(0, s.sinkId);
        item->setData(0, Qt::UserRole, s.sinkId);
        item->setIcon(0, QIcon(check::markerPixmap(s.status, iconSize, dpr)));
        item->setText(1, check::sinkSummary(s));
        item->setForeground(1, check::statusColor(s.status));
        item->setToolTip(0, s.kind);
        item->setToolTip(1, s.expectedFile);
        if (s.sinkId == keep)
            pick = item;
        if (!firstBad && s.status != SinkCheckStatus::Ok && s.status != SinkCheckStatus::Written)
            firstBad = item;
    }
    // Show a failing sink first (that is what the check is for), the one shown before if it
    // still fails.
    auto fails = [&report](QTreeWidgetItem *item) {
        const auto i = item->treeWidget()->indexOfTopLevelItem(item);
        const auto st = report.sinks[i].status;
        return st != SinkCheckStatus::Ok && st != SinkCheckStatus::Written;
    };
    if (firstBad && (!pick || !fails(pick)))
        pick = firstBad;
    if (!pick && m_sinks->topLevelItemCount() > 0)
        pick = m_sinks->topLevelItem(0);
    if (pick)
        m_sinks->setCurrentItem(pick);
    updateSummary();
    showFindings();
    fitSinkList();
}

void CheckPanel::setOutdated(bool outdated)
{
    if (m_outdated == outdated)
        return;
    m_outdated = outdated;
    updateSummary();
}

void CheckPanel::clear()
{
    m_report = CheckReport();
    m_hasReport = false;
    m_outdated = false;
    m_running.clear();
    m_sinks->clear();
    updateSummary();
    showFindings();
}

QString CheckPanel::selectedSink() const
{
    const QTreeWidgetItem *item = m_sinks->currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void CheckPanel::selectSink(const QString &sinkId)
{
    for (int i = 0; i < m_sinks->topLevelItemCount(); ++i)
        if (m_sinks->topLevelItem(i)->data(0, Qt::UserRole).toString() == sinkId)
            m_sinks->setCurrentItem(m_sinks->topLevelItem(i));
}

QString CheckPanel::summaryText() const
{
    return m_summaryText;
}

QString CheckPanel::findingsText() const
{
    return m_findings->toPlainText();
}

QString CheckPanel::folderText() const
{
    return m_folderText;
}

void CheckPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Side by side when there is room for a sink's counts and a finding's window; stacked in
    // a narrow dock (the bottom dock between the side docks is ~580 px at 1024×768).
    const auto orientation = width() < 820 ? Qt::Vertical : Qt::Horizontal;
    if (orientation != m_split->orientation())
        m_split->setOrientation(orientation);
    fitSinkList();
    elideFolder();
}

void CheckPanel::fitSinkList()
{
    if (m_split->orientation() == Qt::Horizontal) {
        // Side by side: the list as wide as its longest counts (30–50 %), the findings the
        // rest.
        m_sinks->resizeColumnToContents(0);
        m_sinks->resizeColumnToContents(1);
        const int want = m_sinks->columnWidth(0) + m_sinks->columnWidth(1)
                         + 2 * m_sinks->frameWidth() + fontMetrics().height() * 2;
        const int w = m_split->width();
        const int list = std::clamp(want, w * 3 / 10, w / 2);
        m_split->setSizes({list, w - list});
        return;
    }
    // Stacked: the list as tall as its rows (at most half), the findings get the rest.
    const int rows = std::max(1, m_sinks->topLevelItemCount());
    int rowHeight = fontMetrics().height() + 6;
    if (m_sinks->topLevelItemCount() > 0)
        rowHeight = std::max(rowHeight, m_sinks->visualItemRect(m_sinks->topLevelItem(0)).height());
    const int want = rows * rowHeight + 2 * m_sinks->frameWidth() + rowHeight / 2;
    const int h = m_split->height();
    const int list = std::min(want, h / 2);
    m_split->setSizes({list, h - list});
}

void CheckPanel::elideFolder()
{
    // The folder's end says which pipeline it belongs to: keep the prefix and the tail.
    // When even that is too long the prefix goes (the Folder… button beside it says what it
    // is).
    const QString prefix = tr("Expected outputs: ");
    const QFontMetrics fm = m_folder->fontMetrics();
    const int w = m_folder->width();
    if (m_expectedDir.isEmpty() || fm.horizontalAdvance(m_folderText) <= w) {
        m_folder->setText(m_folderText);
        return;
    }
    const int room = w - fm.horizontalAdvance(prefix);
    const QString tail = QDir::toNativeSeparators(m_expectedDir);
    if (room >= fm.horizontalAdvance(QStringLiteral("…/") + QDir(m_expectedDir).dirName()) * 2)
        m_folder->setText(prefix + fm.elidedText(tail, Qt::ElideLeft, room));
    else
        m_folder->setText(fm.elidedText(tail, Qt::ElideLeft, w));
}

void CheckPanel::updateSummary()
{
    const qreal dpr = devicePixelRatioF();
    const int markerSize = std::max(16, QFontMetrics(m_summary->font()).height());
    m_marker->setFixedSize(markerSize, markerSize);
    QString text;
    QColor c = style::textPrimary();
    std::optional<SinkCheckStatus> marker;
    if (!m_running.isEmpty()) {
        text = m_running;
    } else if (!m_hasReport) {
        text = tr("Not checked yet: Check runs the pipeline and compares each sink's output with "
                  "its expected file.");
        c = style::textSecondary();
    } else if (!m_report.error.isEmpty()) {
        text = m_report.save ? tr("Cannot save the outputs") : tr("Cannot check");
        c = style::errorColor();
        marker = SinkCheckStatus::Error;
    } else {
        const auto total = m_report.sinks.size();
        qsizetype bad = 0;
        for (const auto &s : m_report.sinks)
            bad += s.status != SinkCheckStatus::Ok && s.status != SinkCheckStatus::Written;
        if (m_report.save) {
            text = bad ? tr("Saved %1 of %2 expected output files").arg(total - bad).arg(total)
                       : tr("Saved %n expected output file(s)", nullptr, int(total));
            marker = bad ? SinkCheckStatus::Error : SinkCheckStatus::Written;
        } else if (m_report.passed) {
            text = tr("Passed: all %n sink(s) match their expected outputs", nullptr, int(total));
            marker = SinkCheckStatus::Ok;
        } else if (bad == 0) {
            text = tr("Failed: the sinks match, but the folder holds files that match no sink");
            marker = SinkCheckStatus::Fail;
        } else {
            text = tr("Failed: %1 of %n sink(s) differ from their expected outputs", nullptr,
                      int(total))
                       .arg(bad);
            marker = SinkCheckStatus::Fail;
        }
        c = check::statusColor(*marker);
        text += QStringLiteral(" · ") + formatSeconds(m_report.elapsedMs);
    }
    // A verdict about the pipeline before an edit says so on its own line's end: it is the
    // verdict that is stale, and the first row has the whole width.
    m_summaryText = text;
    QString html = QStringLiteral("<span style='color:%1'>%2</span>").arg(colour(c), esc(text));
    if (m_outdated && m_running.isEmpty()) {
        const QString stale = tr("out of date: the pipeline changed since — check again");
        m_summaryText += QStringLiteral(" — ") + stale;
        html += QStringLiteral("<span style='color:%1'> — %2</span>")
                    .arg(colour(style::warningColor()), esc(stale));
    }
    m_summary->setText(html);
    m_summary->setToolTip(m_summaryText);
    if (marker)
        m_marker->setPixmap(check::markerPixmap(*marker, m_marker->height(), dpr));
    else
        m_marker->clear();

    QString folder = m_expectedDir.isEmpty()
                         ? tr("Expected outputs: (a folder is asked for at the first check)")
                         : tr("Expected outputs: %1").arg(m_expectedDir);
    m_folderText = folder;
    elideFolder();
    m_folder->setToolTip(m_expectedDir);
    m_folder->setStyleSheet(QStringLiteral("color: %1").arg(colour(style::textSecondary())));
}

void CheckPanel::showFindings()
{
    const QString dim = colour(style::textSecondary());
    QString html;
    if (!m_hasReport) {
        html = QStringLiteral("<p style='color:%1'>%2</p>")
                   .arg(dim, esc(tr("Each sink's output is compared with <folder>/<sink id>.jsonl "
                                    "(.csv for CSV sinks). The run writes into a temporary "
                                    "folder: the pipeline's own outputs and checkpoints are not "
                                    "touched.")));
    } else if (!m_report.error.isEmpty()) {
        html = QStringLiteral("<p style='color:%1'>%2</p>")
                   .arg(colour(style::errorColor()), esc(m_report.error));
    } else {
        const QString id = selectedSink();
        for (const auto &s : m_report.sinks) {
            if (s.sinkId != id)
                continue;
            // Two short lines before the findings (a 1024×768 dock shows a handful): what
            // the sink is and which file, then the verdict. The folder is above the list.
            QStringList where;
            if (!s.producer.isEmpty())
                where << tr("rows from %1").arg(s.producer);
            where << (s.status == SinkCheckStatus::Written ? tr("written to %1")
                                                           : tr("compared with %1"))
                         .arg(QFileInfo(s.expectedFile).fileName());
            html += QStringLiteral("<p style='margin:0'><b>%1</b>&nbsp;&nbsp;"
                                   "<span style='color:%2'>%3</span></p>")
                        .arg(esc(s.sinkId), dim, esc(where.join(QStringLiteral(" · "))));
            QString verdict = check::sinkSummary(s);
            if (s.status == SinkCheckStatus::Fail && !s.orderOnly)
                verdict += tr(" — expected %1 rows, got %2").arg(s.expectedRows).arg(s.actualRows);
            html += QStringLiteral("<p style='margin:2px 0 0 0; color:%1'><b>%2</b></p>")
                        .arg(colour(check::statusColor(s.status)), esc(verdict));
            if (s.status == SinkCheckStatus::Missing)
                html += QStringLiteral("<p>%1</p>")
                            .arg(esc(tr("There is no expected file for this sink yet: Save "
                                        "outputs as expected writes it from a run.")));
            for (const auto &f : s.findings) {
                const auto [tag, c] = tagOf(f.kind);
                if (f.kind == CheckFinding::Kind::More) {
                    html += QStringLiteral("<p style='color:%1'>%2</p>").arg(dim, esc(f.text));
                    continue;
                }
                // What differs is the news for a `different` row; for the others the detail
                // is only where the row was.
                const bool news = f.kind == CheckFinding::Kind::Different
                                  || f.kind == CheckFinding::Kind::Corrupt;
                html += QStringLiteral("<p style='margin:6px 0 0 0'><b style='color:%1'>%2</b>"
                                       "&nbsp;&nbsp;%3<br><span style='color:%4'>%5</span></p>")
                            .arg(colour(c), esc(tag), esc(f.row),
                                 news ? colour(style::textPrimary()) : dim, esc(f.detail));
            }
        }
        QString notes;
        for (const auto &f : m_report.staleFiles)
            notes += QStringLiteral("<li style='color:%1'>%2</li>")
                         .arg(colour(m_report.save ? style::textSecondary() : style::errorColor()),
                              esc(tr("%1 matches no sink of this pipeline (a renamed or removed "
                                     "sink?): delete it")
                                      .arg(f)));
        for (const auto &n : m_report.notes)
            notes += QStringLiteral("<li>%1</li>").arg(esc(n));
        if (!notes.isEmpty())
            html += QStringLiteral("<hr><ul style='color:%1'>%2</ul>").arg(dim, notes);
    }
    m_findings->setHtml(html);
}

} // namespace tideline::widgets
