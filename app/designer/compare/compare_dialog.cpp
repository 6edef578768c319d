#include "compare/compare_dialog.hpp"

#include "commands/set_pipeline_settings_command.hpp"
#include "compare/compare_worker.hpp"
#include "document_change.hpp"
#include "live/engine_timelines.hpp"
#include "pipeline_document.hpp"
#include "ui_scale.hpp"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <set>

namespace tideline::designer {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString title(const std::string &engine)
{
    return q(compare::engineTitle(engine));
}

QTableWidget *makeTable(const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

void addRow(QTableWidget *t, const QStringList &cells, const QString &tip = {})
{
    const int r = t->rowCount();
    t->insertRow(r);
    for (int c = 0; c < cells.size(); ++c) {
        auto *item = new QTableWidgetItem(cells[c]);
        if (!tip.isEmpty())
            item->setToolTip(tip);
        t->setItem(r, c, item);
    }
}

/// The identity fields of `sink`'s rows in the report's first engine that ran.
std::vector<std::string> identityOf(const compare::Report &report, const std::string &sink)
{
    for (const auto &r : report.runs)
        for (const auto &c : r.plan.captures)
            if (c.sinkId == sink)
                return c.identity.fields;
    return {};
}

bool isBound(const std::string &f)
{
    return f == "window_start" || f == "window_end";
}

QString valueText(const nlohmann::json &v)
{
    return v.is_string() ? q(v.get<std::string>()) : q(v.dump());
}

/// "user = \"u7\"": the key part of a row (identity fields without the window bounds).
QString keyOf(const nlohmann::json &row, const std::vector<std::string> &identity)
{
    QStringList parts;
    for (const auto &f : identity)
        if (!isBound(f))
            parts << q(f) + QStringLiteral(" = ")
                         + (row.contains(f) ? q(row[f].dump()) : QStringLiteral("<absent>"));
    return parts.join(QStringLiteral(", "));
}

} // namespace

CompareDialog::CompareDialog(PipelineDocument &doc, QWidget *parent)
    : QDialog(parent)
    , m_doc(doc)
    , m_worker(new CompareWorker(this))
{
    setObjectName(QStringLiteral("compareEnginesDialog"));
    setWindowTitle(tr("Compare Engines — %1").arg(q(doc.spec().name)));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("Runs this pipeline on the same input as Flink, Spark Structured Streaming and "
           "Kafka Streams would (settings.semantics), and shows where their results and "
           "drops differ. See docs/reference/semantics.md for each engine's rules."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("&Run all three"), this);
    m_run->setObjectName(QStringLiteral("compareRun"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_status = new QLabel(tr("Not run yet."), this);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setWordWrap(true);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_status, 1);
    layout->addLayout(buttons);

    // One card per engine: what it did, and the button that makes it the document's mode.
    auto *cards = new QHBoxLayout;
    for (const auto &e : compare::allEngines()) {
        const QString engine = q(e);
        auto *box = new QGroupBox(title(e), this);
        box->setObjectName(QStringLiteral("card-") + engine);
        auto *v = new QVBoxLayout(box);
        auto *text = new QLabel(tr("—"), box);
        text->setWordWrap(true);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto *use = new QPushButton(tr("Use %1").arg(title(e)), box);
        use->setObjectName(QStringLiteral("use-") + engine);
        use->setToolTip(tr("Make %1 the pipeline's semantics (Edit › Undo takes it back) and "
                           "run the live views in it")
                            .arg(title(e)));
        connect(use, &QPushButton::clicked, this, [this, engine] { useEngine(engine); });
        v->addWidget(text, 1);
        v->addWidget(use);
        cards->addWidget(box, 1);
        m_cards[engine] = text;
        m_use[engine] = use;
    }
    layout->addLayout(cards);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_diffs = makeTable(
        {tr("Sink"), tr("Engines"), tr("Compared"), tr("What"), tr("Row"), tr("Detail")}, split);
    m_diffs->setObjectName(QStringLiteral("compareDifferences"));
    m_drops = makeTable({tr("Node")}, split);
    m_drops->setObjectName(QStringLiteral("compareDrops"));

    auto *timelineBox = new QWidget(split);
    auto *tl = new QVBoxLayout(timelineBox);
    tl->setContentsMargins(0, 0, 0, 0);
    auto *pick = new QHBoxLayout;
    m_sink = new QComboBox(timelineBox);
    m_sink->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_sink->setObjectName(QStringLiteral("compareSink"));
    m_key = new QComboBox(timelineBox);
    m_key->setObjectName(QStringLiteral("compareKey"));
    m_key->setMinimumContentsLength(24);
    pick->addWidget(new QLabel(tr("Windows of sink"), timelineBox));
    pick->addWidget(m_sink);
    pick->addWidget(new QLabel(tr("for key"), timelineBox));
    pick->addWidget(m_key, 1);
    tl->addLayout(pick);
    m_timelines = new live::EngineTimelines(timelineBox);
    auto *scroll = new QScrollArea(timelineBox);
    scroll->setWidget(m_timelines);
    scroll->setWidgetResizable(true);
    tl->addWidget(scroll, 1);
    split->addWidget(m_diffs);
    split->addWidget(m_drops);
    split->addWidget(timelineBox);
    // The timeline gets as much room as the differences: it is what a class looks at.
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 2);
    split->setSizes({400, 160, 400});
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { runCompare(); });
    connect(m_cancel, &QPushButton::clicked, m_worker, &CompareWorker::cancel);
    connect(m_worker, &CompareWorker::engineFinished, this, [this](const QString &e, bool ran) {
        m_cards[e]->setText(ran ? tr("ran; comparing when all are done…") : tr("did not run"));
    });
    connect(m_worker, &CompareWorker::finished, this, &CompareDialog::onFinished);
    connect(m_sink, &QComboBox::currentIndexChanged, this, [this] { fillKeys(); });
    connect(m_key, &QComboBox::currentIndexChanged, this, [this] { showKey(); });
    // The document's own signal, not the undo stack's: the stack also signals while the
    // document is being destroyed, when its settings are gone.
    connect(&m_doc, &PipelineDocument::changed, this, [this] { updateCards(); });
    updateCards();
    resize(1100, 800);
}

CompareDialog::~CompareDialog() = default;

bool CompareDialog::runCompare()
{
    QString error;
    if (m_doc.errorCount() > 0) {
        error = tr("the pipeline has %n problem(s) — see the Problems panel.", nullptr,
                   m_doc.errorCount());
    } else {
        const QString base = m_doc.filePath().isEmpty()
                                 ? QDir::currentPath()
                                 : QFileInfo(m_doc.filePath()).absolutePath();
        if (m_worker->start(m_doc.spec(), base, &error)) {
            m_run->setEnabled(false);
            m_cancel->setEnabled(true);
            m_status->setText(tr("Running the pipeline under each engine…"));
            for (auto &[engine, card] : m_cards)
                card->setText(tr("running…"));
            return true;
        }
    }
    m_status->setText(tr("Cannot compare: %1").arg(error));
    return false;
}

bool CompareDialog::running() const
{
    return m_worker->running();
}

const compare::Report &CompareDialog::report() const
{
    return m_worker->report();
}

QString CompareDialog::status() const
{
    return m_status->text();
}

QString CompareDialog::cardText(const QString &engine) const
{
    auto it = m_cards.find(engine);
    return it == m_cards.end() ? QString() : it->second->text();
}

QString CompareDialog::currentEngine() const
{
    const auto &s = m_doc.spec().settings;
    if (auto it = s.find("semantics"); it != s.end() && it->is_string())
        return q(it->get<std::string>());
    return QStringLiteral("flink");
}

bool CompareDialog::useEngine(const QString &engine)
{
    if (engine == currentEngine())
        return false;
    PipelineHeader header = m_doc.header();
    if (engine == QLatin1String("flink"))
        header.settings.erase("semantics"); // the default: the file says nothing
    else
        header.settings["semantics"] = engine.toStdString();
    auto *cmd = new SetPipelineSettingsCommand(m_doc, header);
    cmd->setText(tr("Use %1 semantics").arg(title(engine.toStdString())));
    m_doc.undoStack()->push(cmd);
    updateCards();
    if (m_liveRun)
        m_liveRun();
    return true;
}

void CompareDialog::updateCards()
{
    const QString current = currentEngine();
    for (auto &[engine, button] : m_use) {
        const bool inUse = engine == current;
        button->setEnabled(!inUse);
        button->setText(inUse ? tr("In use") : tr("Use %1").arg(title(engine.toStdString())));
    }
}

void CompareDialog::onFinished()
{
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    const compare::Report &r = report();
    std::size_t ran = 0;
    for (const auto &run : r.runs) {
        QString text;
        if (!run.ran()) {
            text = tr("Did not run: %1").arg(q(run.error));
        } else {
            ++ran;
            std::size_t rows = 0;
            for (const auto &o : run.outputs)
                rows += o.lines.size();
            std::int64_t late = 0, dups = 0, unmatched = 0, errors = 0;
            for (const auto &d : run.drops) {
                late += d.late;
                dups += d.duplicates;
                unmatched += d.unmatched;
                errors += d.errors;
            }
            text = tr("%1 records read · %2 rows written\n%3 late · %4 duplicates · %5 "
                      "unmatched · %6 error(s)")
                       .arg(run.recordsRead)
                       .arg(rows)
                       .arg(late)
                       .arg(dups)
                       .arg(unmatched)
                       .arg(errors);
            // The first sentence of each note, without the validator's "warning: nodes[2]"
            // prefix; the whole text in the tooltip.
            QStringList full;
            for (const auto &n : run.notes) {
                QString note = q(n);
                full << note;
                note.remove(QRegularExpression(QStringLiteral("^warning: nodes\\[\\d+\\] ")));
                if (const int stop = note.indexOf(QStringLiteral(": it ")); stop > 0)
                    note = note.left(stop);
                else if (const int dot = note.indexOf(QStringLiteral(". ")); dot > 0)
                    note = note.left(dot);
                text += QStringLiteral("\n") + tr("Note: %1").arg(note);
            }
            m_cards[q(run.engine)]->setToolTip(full.join(QStringLiteral("\n\n")));
        }
        m_cards[q(run.engine)]->setText(text);
    }
    int differing = 0;
    for (const auto &p : r.pairs)
        differing += p.diff.equal ? 0 : 1;
    if (r.cancelled)
        m_status->setText(tr("Cancelled."));
    else if (ran < r.runs.size())
        m_status->setText(tr("%1 of %2 engines ran; the cards say why the others did not.")
                              .arg(ran)
                              .arg(r.runs.size()));
    else if (r.allAgree())
        m_status->setText(tr("All three engines give the same results on this input."));
    else
        m_status->setText(
            tr("The engines differ on %n sink comparison(s): see below.", nullptr, differing));
    fillDifferences();
    fillDrops();
    fillSinks();
    Q_EMIT compareFinished();
}

void CompareDialog::fillDifferences()
{
    m_diffs->setRowCount(0);
    using K = expected::Finding::Kind;
    auto add = [this](const compare::PairDiff &p, const expected::SinkDiff &diff,
                      const QString &which) {
        const QString pair = title(p.a) + QStringLiteral(" vs ") + title(p.b);
        for (const auto &f : diff.findings) {
            QString what;
            switch (f.kind) {
            case K::Missing:
                what = tr("only in %1").arg(title(p.a));
                break;
            case K::Extra:
                what = tr("only in %1").arg(title(p.b));
                break;
            case K::Different:
                what = tr("values differ");
                break;
            case K::Order:
                what = tr("other order");
                break;
            case K::Corrupt:
                what = tr("unreadable");
                break;
            case K::More:
                what = tr("more");
                break;
            }
            addRow(m_diffs,
                   {q(p.sinkId), pair, which, what, q(f.row), q(compare::describeDetail(p, f))},
                   q(f.text));
        }
    };
    for (const auto &p : report().pairs) {
        const QString pair = title(p.a) + QStringLiteral(" vs ") + title(p.b);
        if (p.diff.equal) {
            addRow(m_diffs, {q(p.sinkId),
                             pair,
                             tr("all rows"),
                             tr("same"),
                             tr("%n row(s)", nullptr, int(p.rowsA)),
                             {}});
            continue;
        }
        if (p.finalDiff.equal || p.finalDiff.orderOnly)
            addRow(m_diffs, {q(p.sinkId),
                             pair,
                             tr("final results"),
                             tr("same"),
                             tr("they differ only in how the rows were emitted"),
                             {}});
        else
            add(p, p.finalDiff, tr("final results"));
        add(p, p.diff, tr("as emitted"));
    }
    if (m_diffs->rowCount() == 0)
        addRow(m_diffs, {{},
                         {},
                         {},
                         tr("nothing to compare"),
                         tr("fewer than two engines ran: the cards above say why"),
                         {}});
    m_diffs->resizeColumnsToContents();
}

void CompareDialog::fillDrops()
{
    const compare::Report &r = report();
    QStringList headers{tr("Node")};
    for (const auto &run : r.runs)
        headers << title(run.engine);
    m_drops->clear();
    m_drops->setColumnCount(static_cast<int>(headers.size()));
    m_drops->setHorizontalHeaderLabels(headers);
    m_drops->setRowCount(0);
    std::vector<std::string> nodes; // in the pipeline's order
    for (const auto &n : m_doc.spec().nodes)
        for (const auto &run : r.runs)
            if (std::any_of(run.drops.begin(), run.drops.end(),
                            [&](const compare::NodeDrops &d) { return d.node == n.id; })) {
                nodes.push_back(n.id);
                break;
            }
    for (const auto &node : nodes) {
        QStringList cells{q(node)};
        QString tip;
        for (const auto &run : r.runs) {
            QStringList parts;
            for (const auto &d : run.drops) {
                if (d.node != node)
                    continue;
                if (d.late)
                    parts << tr("%1 late").arg(d.late);
                if (d.duplicates)
                    parts << tr("%1 duplicates").arg(d.duplicates);
                if (d.unmatched)
                    parts << tr("%1 unmatched").arg(d.unmatched);
                if (d.errors)
                    parts << tr("%n error(s)", nullptr, int(d.errors));
                for (const auto &[why, n] : d.lateCauses)
                    tip += title(run.engine) + QStringLiteral(": ") + q(why)
                           + QStringLiteral(" × %1\n").arg(n);
            }
            cells << (run.ran()
                          ? (parts.isEmpty() ? tr("nothing") : parts.join(QStringLiteral(", ")))
                          : tr("did not run"));
        }
        addRow(m_drops, cells, tip.trimmed());
    }
    m_drops->resizeColumnsToContents();
}

void CompareDialog::fillSinks()
{
    const QString was = m_sink->currentText();
    QSignalBlocker block(m_sink);
    m_sink->clear();
    std::set<std::string> seen;
    for (const auto &run : report().runs)
        for (const auto &c : run.plan.captures)
            if (!c.identity.fields.empty() && seen.insert(c.sinkId).second)
                m_sink->addItem(q(c.sinkId));
    if (int i = m_sink->findText(was); i >= 0)
        m_sink->setCurrentIndex(i);
    fillKeys();
}

void CompareDialog::fillKeys()
{
    const std::string sink = m_sink->currentText().toStdString();
    const auto identity = identityOf(report(), sink);
    QSignalBlocker block(m_key);
    m_key->clear();
    std::set<QString> keys;
    for (const auto &run : report().runs)
        if (const auto *rows = run.rowsOf(sink))
            for (const auto &line : *rows) {
                const auto j = nlohmann::json::parse(line, nullptr, false);
                if (j.is_object())
                    keys.insert(keyOf(j, identity));
                if (keys.size() >= 500) // a combo box, not a table: the first 500 keys
                    break;
            }
    // A key whose windows differ between engines first: that is what one came to see.
    std::set<QString> differing;
    for (const auto &p : report().pairs)
        if (p.sinkId == sink)
            for (const auto &f : p.diff.findings)
                for (const auto &k : keys)
                    if (!k.isEmpty() && q(f.row).contains(k.section(QStringLiteral(" = "), 1)))
                        differing.insert(k);
    for (const auto &k : differing)
        m_key->addItem(k + QStringLiteral("  ≠"), k);
    for (const auto &k : keys)
        if (!differing.contains(k))
            m_key->addItem(k.isEmpty() ? tr("(all: the window has no key)") : k, k);
    showKey();
}

void CompareDialog::showKey()
{
    const std::string sink = m_sink->currentText().toStdString();
    const QString key = m_key->currentData().toString();
    const auto identity = identityOf(report(), sink);
    std::vector<live::EngineLane> lanes;
    for (const auto &run : report().runs) {
        live::EngineLane lane;
        lane.title = title(run.engine);
        if (!run.ran())
            lane.note = tr("did not run: %1").arg(q(run.error));
        if (const auto *rows = run.rowsOf(sink))
            for (const auto &line : *rows) {
                const auto j = nlohmann::json::parse(line, nullptr, false);
                if (!j.is_object() || keyOf(j, identity) != key)
                    continue;
                const auto start = j.find("window_start");
                const auto end = j.find("window_end");
                if (start == j.end() || end == j.end() || !start->is_number_integer()
                    || !end->is_number_integer())
                    continue;
                live::EnginePane pane;
                pane.start = start->get<qint64>();
                pane.end = end->get<qint64>();
                pane.update = j.value("emit", std::string()) == "update";
                QStringList parts;
                for (const auto &[field, value] : j.items())
                    if (field != "emit"
                        && std::find(identity.begin(), identity.end(), field) == identity.end())
                        parts << q(field) + QStringLiteral("=") + valueText(value);
                pane.label = parts.join(QStringLiteral(" "));
                lane.panes.push_back(std::move(pane));
            }
        lanes.push_back(std::move(lane));
    }
    m_timelines->setLanes(std::move(lanes), key);
}

} // namespace tideline::designer
