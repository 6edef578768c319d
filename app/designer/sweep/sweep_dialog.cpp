#include "sweep/sweep_dialog.hpp"

#include "commands/set_param_command.hpp"
#include "pipeline_document.hpp"
#include "sweep/sweep_worker.hpp"
#include "ui_scale.hpp"

#include <tideline/engine/catalog.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QTableWidget>
#include <QToolTip>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tideline::designer {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

/// The params a sweep can set: one value each (numbers, flags, strings), not secrets.
bool sweepable(const ParamDesc &d)
{
    switch (d.type) {
    case ParamType::Int:
    case ParamType::Number:
    case ParamType::Bool:
    case ParamType::Enum:
    case ParamType::String:
    case ParamType::Path:
    case ParamType::Expr:
        return !d.secret;
    default:
        return false;
    }
}

std::vector<const ParamDesc *> sweepableParams(const PipelineSpec &spec, const QString &node)
{
    std::vector<const ParamDesc *> params;
    const int i = spec.nodeIndex(node.toStdString());
    if (i < 0)
        return params;
    if (const NodeKind *kind = findNodeKind(spec.nodes[static_cast<std::size_t>(i)].kind))
        for (const auto &p : kind->params)
            if (sweepable(p))
                params.push_back(&p);
    return params;
}

QString valueText(const Json &v)
{
    return v.is_string() ? q(v.get<std::string>()) : q(v.dump());
}

/// Event-time params first: what a sweep is usually about (delays, lateness, gaps, timeouts).
int paramRank(const ParamDesc &d)
{
    const std::string &n = d.name;
    if (n.find("out_of_orderness") != std::string::npos || n.find("lateness") != std::string::npos
        || n.find("gap") != std::string::npos || n.find("idle") != std::string::npos
        || n.find("within") != std::string::npos || n.find("delay") != std::string::npos)
        return 0;
    return d.type == ParamType::Int || d.type == ParamType::Number ? 1 : 2;
}

void styleAxis(QValueAxis *axis, const QString &title)
{
    axis->setTitleText(title);
    axis->setTitleFont(widgets::relativeFont(2, true));
    axis->setLabelsFont(widgets::relativeFont(1));
}

} // namespace

SweepDialog::SweepDialog(PipelineDocument &doc, QWidget *parent)
    : QDialog(parent)
    , m_doc(doc)
    , m_worker(new SweepWorker(this))
    , m_axes(new QTableWidget(0, 3, this))
    , m_count(new QLabel(this))
    , m_run(new QPushButton(tr("&Run sweep"), this))
    , m_cancel(new QPushButton(tr("&Stop"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
{
    setWindowTitle(tr("What-if sweep — %1").arg(doc.displayName()));
    setObjectName(QStringLiteral("sweepDialog"));
    auto *layout = new QVBoxLayout(this);

    auto *intro = new QLabel(
        tr("Run the pipeline once per combination of the values below (in parallel, each in a "
           "temporary folder: the pipeline's own outputs are not touched) and compare what each "
           "choice loses against how late its results come out."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_axes->setObjectName(QStringLiteral("sweepAxes"));
    m_axes->setHorizontalHeaderLabels(
        {tr("Node"), tr("Parameter"), tr("Values (comma-separated)")});
    m_axes->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_axes->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_axes->horizontalHeader()->setStretchLastSection(true);
    m_axes->verticalHeader()->hide();
    m_axes->setMinimumHeight(110);
    m_axes->setMaximumHeight(130);
    layout->addWidget(m_axes);

    auto *rowButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("&Add parameter"), this);
    auto *remove = new QPushButton(tr("Remo&ve"), this);
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addWidget(m_count, 1);
    rowButtons->addWidget(m_run);
    rowButtons->addWidget(m_cancel);
    layout->addLayout(rowButtons);
    connect(add, &QPushButton::clicked, this, [this] { addRow({}, {}, {}); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_axes->currentRow() >= 0)
            m_axes->removeRow(m_axes->currentRow());
        updateCount();
    });
    connect(m_axes, &QTableWidget::itemChanged, this, [this] { updateCount(); });

    m_progress->setVisible(false);
    layout->addWidget(m_progress);
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("sweepStatus"));
    layout->addWidget(m_status);

    buildCharts();
    auto *charts = new QHBoxLayout;
    charts->addWidget(m_latencyView, 1);
    charts->addWidget(m_stateView, 1);
    layout->addLayout(charts, 1);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("sweepLegend"));
    m_legend->setWordWrap(true);
    layout->addWidget(m_legend);
    auto *hint = new QLabel(tr("Hover a point to see its values and figures; click it to apply "
                               "its values to the pipeline (Edit > Undo puts them back)."),
                            this);
    hint->setWordWrap(true);
    layout->addWidget(hint);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(close);

    m_cancel->setEnabled(false);
    connect(m_run, &QPushButton::clicked, this, [this] { runSweep(); });
    connect(m_cancel, &QPushButton::clicked, m_worker, &SweepWorker::cancel);
    connect(m_worker, &SweepWorker::progress, this, [this](int done, int total) {
        m_progress->setMaximum(total);
        m_progress->setValue(done);
        m_status->setText(tr("%1 of %2 combinations done…").arg(done).arg(total));
    });
    connect(m_worker, &SweepWorker::finished, this, &SweepDialog::onFinished);

    // A first row for the watermark's delay, the usual question.
    for (const auto &n : doc.spec().nodes)
        if (const NodeKind *kind = findNodeKind(n.kind); kind && kind->assignsEventTime) {
            addRow(q(n.id), {}, {});
            break;
        }
    updateCount();
    resize(1100, 760);
}

SweepDialog::~SweepDialog() = default;

void SweepDialog::buildCharts()
{
    auto make = [this](QChart *&chart, QChartView *&view, QScatterSeries *&series,
                       std::vector<std::size_t> &rows, const QString &title, const QString &name) {
        chart = new QChart;
        chart->setTitle(title);
        chart->setTitleFont(widgets::relativeFont(3, true));
        chart->legend()->hide();
        series = new QScatterSeries;
        series->setName(name);
        series->setMarkerSize(16);
        series->setColor(QColor(0x25, 0x63, 0xeb));
        series->setBorderColor(QColor(0x1e, 0x3a, 0x8a));
        chart->addSeries(series);
        auto *x = new QValueAxis;
        auto *y = new QValueAxis;
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        styleAxis(y, tr("completeness (%)"));
        x->setLabelFormat(QStringLiteral("%.0f"));
        y->setLabelFormat(QStringLiteral("%.0f"));
        // Round completeness ticks (multiples of the interval) whatever the range.
        y->setTickType(QValueAxis::TicksDynamic);
        y->setTickAnchor(0);
        view = new QChartView(chart, this);
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(360, 300);
        connect(chart, &QChart::plotAreaChanged, this, [this, chart, series] {
            placeLabels(chart, series, chart == m_latencyChart ? m_latencyLabels : m_stateLabels);
        });
        const std::vector<std::size_t> *pointRows = &rows; // a member: lives as long as we do
        connect(series, &QScatterSeries::hovered, this,
                [this, series, pointRows](const QPointF &p, bool state) {
                    onHovered(series, *pointRows, p, state);
                });
        connect(series, &QScatterSeries::clicked, this,
                [this, series, pointRows](const QPointF &p) { onClicked(*pointRows, series, p); });
    };
    make(m_latencyChart, m_latencyView, m_latencySeries, m_latencyRows,
         tr("Completeness against latency"), tr("latency"));
    make(m_stateChart, m_stateView, m_stateSeries, m_stateRows,
         tr("Completeness against peak state"), tr("state"));
    m_latencyView->setObjectName(QStringLiteral("sweepLatencyChart"));
    m_stateView->setObjectName(QStringLiteral("sweepStateChart"));
    styleAxis(qobject_cast<QValueAxis *>(m_latencyChart->axes(Qt::Horizontal).first()),
              tr("latency p99 (ms, event time)"));
    styleAxis(qobject_cast<QValueAxis *>(m_stateChart->axes(Qt::Horizontal).first()),
              tr("peak state (entries)"));
}

void SweepDialog::addAxis(const QString &node, const QString &param, const QString &values)
{
    addRow(node, param, values);
    updateCount();
}

void SweepDialog::addRow(const QString &node, const QString &param, const QString &values)
{
    const int row = m_axes->rowCount();
    m_axes->insertRow(row);
    auto *nodes = new QComboBox(m_axes);
    for (const auto &n : m_doc.spec().nodes)
        if (!sweepableParams(m_doc.spec(), q(n.id)).empty())
            nodes->addItem(q(n.id));
    if (!node.isEmpty())
        nodes->setCurrentText(node);
    m_axes->setCellWidget(row, 0, nodes);
    m_axes->setCellWidget(row, 1, new QComboBox(m_axes));
    m_axes->setItem(row, 2, new QTableWidgetItem(values));
    fillParams(row);
    if (!param.isEmpty()) {
        auto *params = qobject_cast<QComboBox *>(m_axes->cellWidget(row, 1));
        params->setCurrentIndex(params->findData(param));
        if (values.isEmpty())
            fillParams(row); // the current value of the chosen param
    }
    if (!values.isEmpty())
        m_axes->item(row, 2)->setText(values);
    connect(nodes, &QComboBox::currentTextChanged, this, [this, nodes] {
        for (int r = 0; r < m_axes->rowCount(); ++r)
            if (m_axes->cellWidget(r, 0) == nodes)
                fillParams(r);
    });
}

void SweepDialog::fillParams(int row)
{
    auto *nodes = qobject_cast<QComboBox *>(m_axes->cellWidget(row, 0));
    auto *params = qobject_cast<QComboBox *>(m_axes->cellWidget(row, 1));
    const QString keep = params->currentData().toString();
    auto list = sweepableParams(m_doc.spec(), nodes->currentText());
    std::stable_sort(list.begin(), list.end(), [](const ParamDesc *a, const ParamDesc *b) {
        return paramRank(*a) < paramRank(*b);
    });
    params->blockSignals(true);
    params->clear();
    for (const ParamDesc *p : list) {
        params->addItem(q(p->name), q(p->name));
        params->setItemData(params->count() - 1, q(p->help), Qt::ToolTipRole);
    }
    if (const int i = params->findData(keep); i >= 0)
        params->setCurrentIndex(i);
    params->blockSignals(false);
    auto showCurrent = [this, row, nodes, params] {
        // The value the pipeline has now, as a start to type more values after.
        const int n = m_doc.spec().nodeIndex(nodes->currentText().toStdString());
        if (n < 0 || params->currentIndex() < 0)
            return;
        const NodeSpec &spec = m_doc.spec().nodes[static_cast<std::size_t>(n)];
        const std::string name = params->currentData().toString().toStdString();
        Json v;
        if (auto it = spec.params.find(name); it != spec.params.end())
            v = *it;
        else if (const NodeKind *k = findNodeKind(spec.kind); k && k->param(name))
            v = k->param(name)->defaultValue;
        if (QTableWidgetItem *item = m_axes->item(row, 2))
            item->setText(v.is_null() ? QString() : valueText(v));
    };
    disconnect(params, nullptr, this, nullptr);
    connect(params, &QComboBox::currentIndexChanged, this, showCurrent);
    showCurrent();
}

bool SweepDialog::readPlan(sweep::Plan &plan, QString *error) const
{
    plan = {};
    for (int r = 0; r < m_axes->rowCount(); ++r) {
        auto *nodes = qobject_cast<QComboBox *>(m_axes->cellWidget(r, 0));
        auto *params = qobject_cast<QComboBox *>(m_axes->cellWidget(r, 1));
        QString values = m_axes->item(r, 2) ? m_axes->item(r, 2)->text() : QString();
        values.remove(QLatin1Char(' '));
        const QString text = nodes->currentText() + QLatin1Char('.')
                             + params->currentData().toString() + QLatin1Char('=') + values;
        sweep::Axis axis;
        std::string e = sweep::parseAxis(text.toStdString(), m_doc.spec(), axis);
        if (e.empty())
            e = sweep::addAxis(plan, std::move(axis));
        if (!e.empty()) {
            // The runner's words start with the flag; here the row is the flag.
            if (e.rfind("--sweep ", 0) == 0)
                e = e.substr(8);
            *error = q(e);
            return false;
        }
    }
    if (plan.axes.empty()) {
        *error = tr("add a parameter and its values first");
        return false;
    }
    return true;
}

void SweepDialog::updateCount()
{
    sweep::Plan plan;
    QString error;
    if (readPlan(plan, &error))
        m_count->setText(tr("%n combination(s)", nullptr, static_cast<int>(plan.combinations())));
    else
        m_count->setText(QString());
}

bool SweepDialog::runSweep()
{
    sweep::Plan plan;
    QString error;
    if (m_doc.errorCount() > 0)
        error = tr("the pipeline has %n problem(s) — see the Problems panel.", nullptr,
                   m_doc.errorCount());
    else if (readPlan(plan, &error)) {
        const QString base = m_doc.filePath().isEmpty()
                                 ? QDir::currentPath()
                                 : QFileInfo(m_doc.filePath()).absolutePath();
        if (m_worker->start(m_doc.spec(), plan, base, &error)) {
            m_run->setEnabled(false);
            m_cancel->setEnabled(true);
            m_progress->setRange(0, static_cast<int>(plan.combinations()));
            m_progress->setValue(0);
            m_progress->setVisible(true);
            m_status->setText(
                tr("Running %n combination(s)…", nullptr, static_cast<int>(plan.combinations())));
            return true;
        }
    }
    m_status->setText(tr("Cannot sweep: %1").arg(error));
    return false;
}

bool SweepDialog::running() const
{
    return m_worker->running();
}

const sweep::Result &SweepDialog::result() const
{
    return m_worker->result();
}

void SweepDialog::onFinished()
{
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->setVisible(false);
    updateCount();
    plot();
    const sweep::Result &r = result();
    int failed = 0;
    QString firstError;
    for (const auto &row : r.rows)
        if (!row.error.empty()) {
            if (failed++ == 0)
                firstError = q(row.error);
        }
    QString text = tr("%n combination(s) in %1 s.", nullptr, static_cast<int>(r.rows.size()))
                       .arg(QLocale().toString(static_cast<double>(r.wallMs) / 1000.0, 'f', 1));
    if (r.cancelled)
        text += QLatin1Char(' ') + tr("Stopped before the end.");
    if (failed)
        text += QLatin1Char(' ') + tr("%n failed (first: %1).", nullptr, failed).arg(firstError);
    m_status->setText(text);
    Q_EMIT sweepFinished();
}

void SweepDialog::plot()
{
    const sweep::Result &r = result();
    m_latencySeries->clear();
    m_stateSeries->clear();
    m_latencyRows.clear();
    m_stateRows.clear();
    double maxLatency = 0, maxState = 0, minCompleteness = 100;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const sweep::Row &row = r.rows[i];
        if (!row.error.empty())
            continue;
        const double c = row.completeness * 100.0;
        minCompleteness = std::min(minCompleteness, c);
        if (row.latencyP99Ms) {
            m_latencySeries->append(*row.latencyP99Ms, c);
            m_latencyRows.push_back(i);
            maxLatency = std::max(maxLatency, *row.latencyP99Ms);
        }
        m_stateSeries->append(static_cast<double>(row.peakStateEntries), c);
        m_stateRows.push_back(i);
        maxState = std::max(maxState, static_cast<double>(row.peakStateEntries));
    }
    auto axisRange = [](QChart *chart, Qt::Orientation o, double lo, double hi) {
        auto *axis = qobject_cast<QValueAxis *>(chart->axes(o).first());
        axis->setRange(lo, hi);
        axis->applyNiceNumbers();
    };
    // Room around the points so none sits on an axis (labels go right of the points: more
    // room on the right); completeness in round steps up to just above 100 %.
    axisRange(m_latencyChart, Qt::Horizontal, 0, std::max(1.0, maxLatency * 1.3));
    axisRange(m_stateChart, Qt::Horizontal, 0, std::max(1.0, maxState * 1.3));
    const double span = 100.0 - minCompleteness;
    const double step = span <= 4 ? 1 : span <= 9 ? 2 : span <= 22 ? 5 : span <= 45 ? 10 : 20;
    const double yLow = std::max(0.0, std::floor((minCompleteness - step / 2) / step) * step);
    for (QChart *chart : {m_latencyChart, m_stateChart}) {
        auto *y = qobject_cast<QValueAxis *>(chart->axes(Qt::Vertical).first());
        y->setRange(yLow, 100.0 + step / 2);
        y->setTickInterval(step);
    }
    labelPoints(m_latencyChart, m_latencySeries, m_latencyRows, m_latencyLabels);
    labelPoints(m_stateChart, m_stateSeries, m_stateRows, m_stateLabels);
    std::string axes;
    for (const auto &a : r.axes)
        axes += (axes.empty() ? "" : " / ") + a;
    QString legend = axes.empty() ? QString() : tr("Point labels: %1.").arg(q(axes));
    if (const auto missing = m_stateRows.size() - m_latencyRows.size(); missing > 0)
        legend += QLatin1Char(' ')
                  + tr("%n combination(s) without a latency (every result came out only when "
                       "the input ended) are on the right plot only.",
                       nullptr, static_cast<int>(missing));
    m_legend->setText(legend);
}

void SweepDialog::labelPoints(QChart *chart,
                              QScatterSeries *series,
                              const std::vector<std::size_t> &rows,
                              std::vector<QGraphicsSimpleTextItem *> &labels)
{
    for (auto *l : labels)
        delete l->parentItem(); // its backdrop, which owns it
    labels.clear();
    const sweep::Result &r = result();
    const auto pts = series->points();
    std::vector<bool> done(static_cast<std::size_t>(pts.size()), false);
    for (int i = 0; i < pts.size(); ++i) {
        if (done[static_cast<std::size_t>(i)])
            continue;
        // Every combination at this very point, one line each.
        QStringList lines;
        for (int j = i; j < pts.size(); ++j)
            if (pts[j] == pts[i] && static_cast<std::size_t>(j) < rows.size()) {
                done[static_cast<std::size_t>(j)] = true;
                QStringList values;
                for (const auto &v : r.rows[rows[static_cast<std::size_t>(j)]].values)
                    values << valueText(v);
                lines << values.join(QStringLiteral(" / "));
            }
        // On a light backdrop, so a grid line never runs through the text.
        auto *back = new QGraphicsRectItem(chart);
        auto *label = new QGraphicsSimpleTextItem(lines.join(QLatin1Char('\n')), back);
        label->setFont(widgets::relativeFont(1));
        label->setBrush(QColor(0x1f, 0x29, 0x37));
        label->setData(0, pts[i]);
        back->setRect(label->boundingRect().adjusted(-3, -1, 3, 1));
        back->setBrush(QColor(255, 255, 255, 225));
        back->setPen(Qt::NoPen);
        back->setZValue(1000);                       // above the grid and axes QtCharts draws
        back->setAcceptedMouseButtons(Qt::NoButton); // a click goes to the point below
        label->setAcceptedMouseButtons(Qt::NoButton);
        labels.push_back(label);
    }
    placeLabels(chart, series, labels);
}

void SweepDialog::placeLabels(QChart *chart,
                              QScatterSeries *series,
                              const std::vector<QGraphicsSimpleTextItem *> &labels)
{
    const QRectF area = chart->plotArea();
    for (auto *label : labels) {
        const QPointF at = chart->mapToPosition(label->data(0).toPointF(), series);
        const QRectF box = label->boundingRect();
        // Right of the marker, vertically centred (into the chart's right margin if need be);
        // left of it only when it would leave the chart.
        QPointF pos(at.x() + 12, at.y() - box.height() / 2);
        if (pos.x() + box.width() > chart->rect().right() - 4)
            pos.setX(at.x() - 12 - box.width());
        pos.setY(
            std::clamp(pos.y(), area.top(), std::max(area.top(), area.bottom() - box.height())));
        label->parentItem()->setPos(pos);
    }
}

QString SweepDialog::describe(std::size_t row) const
{
    const sweep::Result &r = result();
    if (row >= r.rows.size())
        return {};
    const sweep::Row &x = r.rows[row];
    QStringList lines;
    for (std::size_t k = 0; k < r.axes.size() && k < x.values.size(); ++k)
        lines << QStringLiteral("<b>%1 = %2</b>").arg(q(r.axes[k]), valueText(x.values[k]));
    const QLocale l;
    lines << tr("completeness %1 %").arg(l.toString(x.completeness * 100.0, 'f', 1))
          << tr("latency p50 %1 ms, p99 %2 ms")
                 .arg(x.latencyP50Ms ? l.toString(*x.latencyP50Ms, 'f', 0) : QStringLiteral("–"),
                      x.latencyP99Ms ? l.toString(*x.latencyP99Ms, 'f', 0) : QStringLiteral("–"))
          << tr("peak state %1 entries, %2 bytes")
                 .arg(l.toString(static_cast<qlonglong>(x.peakStateEntries)),
                      l.toString(static_cast<qlonglong>(x.peakStateBytes)))
          << tr("%1 results; %2 late dropped, %3 late accepted")
                 .arg(l.toString(static_cast<qlonglong>(x.results)),
                      l.toString(static_cast<qlonglong>(x.lateDropped)),
                      l.toString(static_cast<qlonglong>(x.lateAccepted)))
          << tr("<i>click to apply these values</i>");
    return lines.join(QStringLiteral("<br>"));
}

void SweepDialog::onHovered(QScatterSeries *series,
                            const std::vector<std::size_t> &rows,
                            const QPointF &point,
                            bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    QStringList parts;
    const auto pts = series->points();
    for (int i = 0; i < pts.size() && static_cast<std::size_t>(i) < rows.size(); ++i)
        if (pts[i] == point)
            parts << describe(rows[static_cast<std::size_t>(i)]);
    QToolTip::showText(QCursor::pos(), parts.join(QStringLiteral("<hr>")));
}

void SweepDialog::onClicked(const std::vector<std::size_t> &rows,
                            QScatterSeries *series,
                            const QPointF &point)
{
    // The nearest point: QtCharts passes the point's own coordinates, but be lenient.
    const auto pts = series->points();
    int best = -1;
    double bestDistance = 0;
    for (int i = 0; i < pts.size(); ++i) {
        const double d = std::hypot(pts[i].x() - point.x(), pts[i].y() - point.y());
        if (best < 0 || d < bestDistance) {
            best = i;
            bestDistance = d;
        }
    }
    if (best >= 0 && static_cast<std::size_t>(best) < rows.size())
        applyCombination(rows[static_cast<std::size_t>(best)]);
}

bool SweepDialog::applyCombination(std::size_t row)
{
    const sweep::Result &r = result();
    const sweep::Plan &plan = m_worker->plan();
    if (row >= r.rows.size() || plan.axes.size() != r.rows[row].values.size())
        return false;
    const auto &values = r.rows[row].values;
    std::vector<std::size_t> changes;
    for (std::size_t k = 0; k < plan.axes.size(); ++k) {
        const int n = m_doc.spec().nodeIndex(plan.axes[k].node);
        if (n < 0)
            continue; // removed or renamed since the sweep
        // What the node runs with now: its param, or the catalog's default when it has none.
        const NodeSpec &node = m_doc.spec().nodes[static_cast<std::size_t>(n)];
        Json now;
        if (auto it = node.params.find(plan.axes[k].param); it != node.params.end())
            now = *it;
        else if (const NodeKind *kind = findNodeKind(node.kind);
                 kind && kind->param(plan.axes[k].param))
            now = kind->param(plan.axes[k].param)->defaultValue;
        if (now != values[k])
            changes.push_back(k);
    }
    if (changes.empty()) {
        m_status->setText(tr("The pipeline has these values already."));
        return false;
    }
    QStringList what;
    for (std::size_t k : changes)
        what << QStringLiteral("%1 = %2").arg(q(plan.axes[k].label()), valueText(values[k]));
    QUndoStack *undo = m_doc.undoStack();
    undo->beginMacro(tr("Apply sweep values (%1)").arg(what.join(QStringLiteral(", "))));
    for (std::size_t k : changes)
        undo->push(new SetParamCommand(m_doc, plan.axes[k].node, plan.axes[k].param, values[k]));
    undo->endMacro();
    m_status->setText(tr("Applied %1 (Edit > Undo puts the previous values back).")
                          .arg(what.join(QStringLiteral(", "))));
    Q_EMIT combinationApplied(static_cast<int>(row));
    return true;
}

} // namespace tideline::designer
