#include "output_preview.hpp"

#include "live_style.hpp"
#include "time_text.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace tideline::live {

OutputPreview::OutputPreview(QWidget *parent)
    : QWidget(parent)
    , m_place(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_text(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("outputPreview"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSize(11);
    m_text->setFont(mono);
    m_place->setMinimumContentsLength(24);
    m_status->setFont(style::font(11));
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_place);
    bar->addWidget(m_status, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
    connect(m_place, &QComboBox::currentIndexChanged, this, [this](int) {
        render();
        Q_EMIT currentChanged(currentKey());
    });
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

void OutputPreview::clear()
{
    m_rings.clear();
    m_seen.clear();
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
    const auto ring = m_rings.value(key);
    m_status->setText(key.isEmpty() ? tr("Click an edge on the canvas to preview its records")
                                    : tr("%1 records seen · latest %2 shown, newest first")
                                          .arg(m_seen.value(key))
                                          .arg(ring.size()));
    QString text;
    for (auto it = ring.crbegin(); it != ring.crend(); ++it) {
        text += it->eventTime ? eventTimeText(it->eventTime) : QStringLiteral("      —     ");
        text += QStringLiteral("  ");
        text += it->json;
        text += '\n';
    }
    m_text->setPlainText(text);
}

} // namespace tideline::live
