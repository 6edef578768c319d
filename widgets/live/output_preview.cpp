#include "output_preview.hpp"

#include "json_text.hpp"
#include "live_style.hpp"
#include "time_text.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace tideline::live {

namespace {

} // namespace

OutputPreview::OutputPreview(QWidget *parent)
    : QWidget(parent)
    , m_place(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    setObjectName(QStringLiteral("outputPreview"));
    m_place->setMinimumContentsLength(14);
    m_place->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_search->setObjectName(QStringLiteral("previewSearch"));
    m_search->setPlaceholderText(tr("Search records…"));
    m_search->setClearButtonEnabled(true);
    m_status->setFont(style::font(11));
    m_status->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("previewTable"));
    m_table->setHorizontalHeaderLabels({tr("Event time"), tr("Window"), tr("emit"), tr("Fields")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int c = 0; c < Fields; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    m_table->setFont(style::font(11));
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_place);
    bar->addWidget(m_search, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    connect(m_place, &QComboBox::currentIndexChanged, this, [this](int) {
        render();
        Q_EMIT currentChanged(currentKey());
    });
    connect(m_search, &QLineEdit::textChanged, this, [this] { render(); });
    render();
}

void OutputPreview::setSinks(const QStringList &sinks)
{
    m_place->blockSignals(true);
    m_place->clear();
    for (const QString &s : sinks)
        m_place->addItem(tr("sink %1").arg(s), sinkKey(s));
    m_place->blockSignals(false);
    render();
}

void OutputPreview::watchEdge(const EdgeInfo &e)
{
    const QString key = edgeKey(e.fromNode, e.fromPort);
    int idx = m_place->findData(key);
    if (idx < 0) {
        m_place->addItem(tr("edge %1.%2 → %3.%4").arg(e.fromNode, e.fromPort, e.toNode, e.toPort),
                         key);
        idx = m_place->count() - 1;
    }
    m_place->setCurrentIndex(idx);
}

void OutputPreview::addTablePlace(const QString &node, const QString &table)
{
    const QString key = tableKey(node);
    if (m_place->findData(key) < 0)
        m_place->addItem(tr("table %1 (sink %2)").arg(table, node), key);
}

void OutputPreview::setReadBack(const QString &key,
                                const QStringList &rowsNewestFirst,
                                const QString &status)
{
    m_readBack[key] = rowsNewestFirst;
    m_readBackStatus[key] = status;
    if (key == currentKey())
        render();
}

void OutputPreview::clear()
{
    m_rings.clear();
    m_seen.clear();
    m_readBack.clear();
    m_readBackStatus.clear();
    render();
}

QString OutputPreview::currentKey() const
{
    return m_place->currentData().toString();
}

void OutputPreview::setCurrentKey(const QString &key)
{
    const int idx = m_place->findData(key);
    if (idx >= 0)
        m_place->setCurrentIndex(idx);
}

QStringList OutputPreview::latest(const QString &key) const
{
    QStringList out;
    for (const auto &s : m_rings.value(key))
        out << s.json;
    return out;
}

void OutputPreview::append(const QList<TappedRecord> &records)
{
    const QString current = currentKey();
    for (const auto &r : records) {
        QString key;
        if (r.input && r.role == TapRole::Data && r.port == QLatin1String("in"))
            key = sinkKey(r.node);
        else if (!r.input && r.role == TapRole::Data)
            key = edgeKey(r.node, r.port);
        else
            continue;
        auto &ring = m_rings[key];
        ring.push_back({r.eventTime, r.json});
        while (static_cast<int>(ring.size()) > m_depth)
            ring.pop_front();
        ++m_seen[key];
        if (key == current)
            m_dirty = true;
    }
    if (m_dirty && isVisible())
        render();
}

void OutputPreview::render()
{
    m_dirty = false;
    const QString key = currentKey();
    const bool table = key.startsWith(QLatin1String("table:"));
    std::deque<Seen> ring;
    if (table) {
        // Read back newest first: the ring is oldest first.
        const QStringList rows = m_readBack.value(key);
        for (auto r = rows.crbegin(); r != rows.crend(); ++r)
            ring.push_back({std::nullopt, *r});
    } else {
        ring = m_rings.value(key);
    }
    const QString needle = m_search->text().trimmed();
    m_table->setRowCount(0);
    int shown = 0;
    for (auto it = ring.crbegin(); it != ring.crend(); ++it) {
        const QJsonObject o = QJsonDocument::fromJson(it->json.toUtf8()).object();
        // Window bounds and emit get their own columns, as clock times: epoch milliseconds
        // do not read, and at the end of a long line `emit` was cut off.
        QString window, emit;
        QStringList fields;
        const bool windowed
            = o.contains(QLatin1String("window_start")) && o.contains(QLatin1String("window_end"));
        if (windowed)
            window = QStringLiteral("[%1, %2)")
                         .arg(eventTimeText(static_cast<qint64>(
                                  o.value(QLatin1String("window_start")).toDouble())),
                              eventTimeText(static_cast<qint64>(
                                  o.value(QLatin1String("window_end")).toDouble())));
        for (auto f = o.constBegin(); f != o.constEnd(); ++f) {
            if (windowed
                && (f.key() == QLatin1String("window_start")
                    || f.key() == QLatin1String("window_end")))
                continue;
            if (f.key() == QLatin1String("emit")) {
                emit = jsonValueText(f.value());
                continue;
            }
            fields << f.key() + QStringLiteral(": ") + jsonValueText(f.value());
        }
        const QString time = it->eventTime ? eventTimeText(it->eventTime) : QStringLiteral("—");
        const QString fieldText = fields.join(QStringLiteral(" · "));
        if (!needle.isEmpty()
            && !(it->json.contains(needle, Qt::CaseInsensitive)
                 || time.contains(needle, Qt::CaseInsensitive)
                 || window.contains(needle, Qt::CaseInsensitive)
                 || fieldText.contains(needle, Qt::CaseInsensitive)))
            continue;
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        // The whole record, pretty-printed, on hover over any cell of its row.
        const QString tip
            = o.isEmpty()
                  ? it->json
                  : QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)).trimmed();
        const QString cells[] = {time, window, emit, fieldText};
        for (int c = 0; c < ColumnCount; ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setToolTip(tip);
            if (c == Emit && emit == QLatin1String("update"))
                item->setForeground(style::windowUpdated());
            m_table->setItem(row, c, item);
        }
        ++shown;
    }
    QString status;
    if (key.isEmpty())
        status = tr("Click an edge on the canvas to preview its records");
    else if (table) {
        status = m_readBackStatus.value(key, tr("Reading the table…"));
        if (!needle.isEmpty())
            status += tr(" · %1 match “%2”").arg(shown).arg(needle);
    } else {
        status = tr("%1 seen · latest %2 kept, newest first")
                     .arg(countNoun(m_seen.value(key), tr("record"), tr("records")))
                     .arg(ring.size());
        if (!needle.isEmpty())
            status += tr(" · %1 match “%2”").arg(shown).arg(needle);
    }
    m_status->setText(status);
}

} // namespace tideline::live
