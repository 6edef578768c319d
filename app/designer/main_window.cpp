#include "main_window.hpp"

#include "auto_layout.hpp"
#include "catalog_adapter.hpp"
#include "check/check_controller.hpp"
#include "labs/lab_controller.hpp"
#include "commands/add_nodes_command.hpp"
#include "commands/connect_command.hpp"
#include "commands/move_nodes_command.hpp"
#include "commands/remove_items_command.hpp"
#include "commands/rename_node_command.hpp"
#include "commands/set_param_command.hpp"
#include "commands/set_pipeline_settings_command.hpp"
#include "examples.hpp"
#include "export_dialog.hpp"
#include "graph/connection_item.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_style.hpp"
#include "graph/graph_view.hpp"
#include "graph/node_item.hpp"
#include "inspect/node_inspector.hpp"
#include "json_bridge.hpp"
#include "palette/node_palette.hpp"
#include "pipeline_document.hpp"
#include "pipeline_graph_model.hpp"
#include "pipeline_settings_dialog.hpp"
#include "problems/problems_panel.hpp"
#include "recent_files.hpp"
#include "secrets.hpp"
#include "subgraph.hpp"
#include "sweep/sweep_controller.hpp"
#include "compare/compare_controller.hpp"
#include "trace/trace_controller.hpp"
#include "ui_scale.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include <cmath>

namespace tideline::designer {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_doc(new PipelineDocument(this))
    , m_model(new PipelineGraphModel(*m_doc, this))
    , m_scene(new widgets::GraphScene(*m_model, this))
    , m_view(new widgets::GraphView(this))
    , m_palette(new widgets::NodePalette(this))
    , m_inspector(new widgets::NodeInspector(this))
    , m_problems(new widgets::ProblemsPanel(this))
    , m_zoomLabel(new QLabel(this))
    , m_problemLabel(new QLabel(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    m_view->setScene(m_scene);
    setCentralWidget(m_view);
    m_palette->setEntries(paletteEntries());
    m_inspector->setIdChecker([this](const QString &oldId, const QString &newId) {
        return m_doc->checkRename(oldId, newId);
    });
    m_inspector->setPathChooser(
        [this](const QString &kind, const QString &field, const QString &current) {
            return browseForPath(kind, field, current);
        });
    buildActions();
    buildMenus();
    buildDocks();
    connectViews();
    m_check = new CheckController(*this);
    m_sweep = new SweepController(*this); // Test > What-if Sweep… (after the Test menu exists)
    m_compare = new CompareController(*this); // Test > Compare Engines…
    m_labs = new LabController(*this);
    m_trace = new TraceController(*this);
    statusBar()->addPermanentWidget(m_problemLabel);
    statusBar()->addPermanentWidget(m_zoomLabel);
    m_zoomLabel->setText(QStringLiteral("100%"));
    refreshProblems();
    refreshInspector();
    updateTitle();
    connect(&widgets::UiScale::instance(), &widgets::UiScale::changed, this,
            &MainWindow::onUiScaleChanged);
    // As large as it likes to be, but never larger than the screen (1024×768 projectors).
    QSize size(1500, 920);
    if (const QScreen *s = screen())
        size = size.boundedTo(s->availableGeometry().size());
    resize(size);
}

void MainWindow::onUiScaleChanged(double factor, double previous)
{
    if (factor > 1.0)
        m_presentationScale = factor;
    if (auto *a = action(QStringLiteral("View.Presentation")))
        a->setChecked(factor > 1.0);
    // Fonts: the application's (inherited by most widgets) and those set explicitly. The style
    // sheet sets no sizes (re-applying one would restore every explicit font it saved).
    if (m_unscaledFontPt <= 0)
        m_unscaledFontPt = QApplication::font().pointSizeF() / previous;
    QFont f = QApplication::font();
    f.setPointSizeF(m_unscaledFontPt * factor);
    QApplication::setFont(f);
    widgets::rescaleExplicitFonts(this, previous, factor);
    // The application font reaches existing widgets unreliably: each resolves against its
    // parent, which may not have changed yet, and under a style sheet a parent does not pass
    // its font on. Resolve them again, parents first.
    QList<QWidget *> queue{this};
    for (qsizetype i = 0; i < queue.size(); ++i) {
        QEvent change(QEvent::ApplicationFontChange);
        QApplication::sendEvent(queue[i], &change);
        for (QObject *child : queue[i]->children())
            if (auto *w = qobject_cast<QWidget *>(child); w && !w->isWindow())
                queue << w;
    }
    for (auto *bar : findChildren<QToolBar *>())
        bar->setIconSize(QSize(18, 18) * factor);
    // Side docks grow with their text; the canvas keeps what is left.
    QList<QDockWidget *> side;
    QList<int> widths;
    for (auto *d : findChildren<QDockWidget *>())
        if (!d->isFloating() && d->isVisible()
            && (dockWidgetArea(d) == Qt::LeftDockWidgetArea
                || dockWidgetArea(d) == Qt::RightDockWidgetArea)) {
            side << d;
            widths << int(d->width() * factor / previous);
        }
    if (!side.isEmpty())
        resizeDocks(side, widths, Qt::Horizontal);
    m_view->setPresentationScale(factor);
}

MainWindow::~MainWindow()
{
    // Tear the views down before the document they observe (QObject children die in creation
    // order, and the scene emits selectionChanged while it deletes its items).
    m_scene->disconnect(this);
    m_doc->disconnect(this);
    m_view->setScene(nullptr);
    delete m_scene;
    delete m_model;
}

QAction *MainWindow::action(const QString &id) const
{
    if (QAction *a = m_actions.value(id))
        return a;
    return findChild<QAction *>(id);
}

// --- construction ---------------------------------------------------------------------------

void MainWindow::buildActions()
{
    auto make = [this](const QString &id, const QString &text, QKeySequence key,
                       QStyle::StandardPixmap icon, auto slot) {
        auto *a = new QAction(text, this);
        a->setObjectName(id);
        if (!key.isEmpty())
            a->setShortcut(key);
        if (icon != QStyle::SP_CustomBase)
            a->setIcon(style()->standardIcon(icon));
        connect(a, &QAction::triggered, this, slot);
        m_actions.insert(id, a);
        addAction(a);
        return a;
    };
    const auto none = QStyle::SP_CustomBase;
    make("File.New", tr("&New"), QKeySequence::New, QStyle::SP_FileIcon, [this] { newFile(); });
    make("File.Open", tr("&Open…"), QKeySequence::Open, QStyle::SP_DialogOpenButton,
         [this] { openDialog(); });
    make("File.Save", tr("&Save"), QKeySequence::Save, QStyle::SP_DialogSaveButton,
         [this] { save(); });
    make("File.SaveAs", tr("Save &As…"), QKeySequence::SaveAs, none, [this] { saveAs(); });
    make("File.Export", tr("&Export for Server…"), QKeySequence(tr("Ctrl+E")), QStyle::SP_ArrowUp,
         [this] { exportForServer(); });
    make("File.Settings", tr("Pipeline Se&ttings…"), QKeySequence(tr("Ctrl+Shift+P")),
         QStyle::SP_FileDialogDetailedView, [this] { editPipelineSettings(); });
    make("File.Quit", tr("&Quit"), QKeySequence::Quit, none, [this] { close(); });

    // The menu's Undo / Redo say what they undo ("Undo Add window"); the toolbar's keep a
    // fixed label (with the full text as tooltip) so its buttons never move after an edit.
    QUndoStack *stack = m_doc->undoStack();
    auto *undo = stack->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    undo->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    auto *redo = stack->createRedoAction(this, tr("&Redo"));
    // Ctrl+Y as well as the platform's redo key (Ctrl+Shift+Z on Linux desktops).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    for (const QKeySequence &k :
         {QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)})
        if (!redoKeys.contains(k))
            redoKeys << k;
    redo->setShortcuts(redoKeys);
    redo->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    m_actions.insert("Edit.Undo", undo);
    m_actions.insert("Edit.Redo", redo);
    addAction(undo);
    addAction(redo);
    auto toolbarTwin = [this, stack](const QString &id, const QString &text, QAction *full,
                                     bool isUndo) {
        auto *a = new QAction(full->icon(), text, this);
        a->setObjectName(id);
        a->setEnabled(full->isEnabled());
        a->setToolTip(full->text());
        connect(a, &QAction::triggered, stack, isUndo ? &QUndoStack::undo : &QUndoStack::redo);
        connect(full, &QAction::changed, a, [a, full] {
            a->setEnabled(full->isEnabled());
            a->setToolTip(full->text().remove(QLatin1Char('&')) + QStringLiteral(" (")
                          + full->shortcut().toString(QKeySequence::NativeText) + ')');
        });
        m_actions.insert(id, a);
        return a;
    };
    toolbarTwin(QStringLiteral("Edit.UndoButton"), tr("Undo"), undo, true);
    toolbarTwin(QStringLiteral("Edit.RedoButton"), tr("Redo"), redo, false);
    make("Edit.Cut", tr("Cu&t"), QKeySequence::Cut, none, [this] { cutSelection(); });
    make("Edit.Copy", tr("&Copy"), QKeySequence::Copy, none, [this] { copySelection(); });
    make("Edit.Paste", tr("&Paste"), QKeySequence::Paste, none, [this] { paste(); });
    make("Edit.Duplicate", tr("D&uplicate"), QKeySequence(tr("Ctrl+D")), none,
         [this] { duplicateSelection(); });
    auto *del = make("Edit.Delete", tr("&Delete"), QKeySequence::Delete, QStyle::SP_TrashIcon,
                     [this] { deleteSelection(); });
    del->setShortcuts({QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
    make("Edit.SelectAll", tr("Select &All"), QKeySequence::SelectAll, none, [this] {
        for (auto *item : m_scene->items())
            if (item->type() == widgets::NodeItem::Type)
                item->setSelected(true);
    });

    make("View.Fit", tr("&Fit to View"), QKeySequence(tr("Ctrl+0")), none,
         [this] { m_view->fitToContents(); });
    // Ctrl+= / Ctrl+− scale the whole window (presentation); the canvas alone zooms with the
    // wheel, Ctrl++ and Ctrl+_ (Ctrl+Shift+−).
    make("View.ZoomIn", tr("Zoom &In"), QKeySequence::ZoomIn, none,
         [this] { m_view->zoomBy(1.25); });
    auto *zoomOut = make("View.ZoomOut", tr("Zoom &Out"), QKeySequence(), none,
                         [this] { m_view->zoomBy(0.8); });
    zoomOut->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Underscore),
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Minus)});
    auto *presentation = make(
        "View.Presentation", tr("&Presentation Mode"), QKeySequence(), none, [this](bool on) {
            widgets::UiScale::instance().setFactor(on ? std::max(m_presentationScale, 1.25) : 1.0);
        });
    presentation->setCheckable(true);
    presentation->setToolTip(tr("Larger text everywhere, for a projector (Ctrl+= / Ctrl+−)"));
    make("View.ScaleUp", tr("&Larger Text"), QKeySequence(Qt::CTRL | Qt::Key_Equal), none,
         [] { widgets::UiScale::instance().setFactor(widgets::UiScale::factor() + 0.25); });
    make("View.ScaleDown", tr("&Smaller Text"), QKeySequence(Qt::CTRL | Qt::Key_Minus), none,
         [] { widgets::UiScale::instance().setFactor(widgets::UiScale::factor() - 0.25); });
    make("View.AutoLayout", tr("Auto &Layout"), QKeySequence(tr("Ctrl+L")), none,
         [this] { autoLayout(); });
    auto *snap = make("View.Snap", tr("&Snap to Grid"), QKeySequence(), none,
                      [this](bool on) { m_scene->setSnapToGrid(on); });
    snap->setCheckable(true);
    snap->setChecked(true);
    make("Help.About", tr("&About Tideline"), QKeySequence(), none, [this] {
        QMessageBox::about(this, tr("About Tideline"),
                           tr("<b>Tideline %1</b><br>Event-time stream pipelines: design them "
                              "here, run them with <code>tideline-run</code>.")
                               .arg(QStringLiteral(TIDELINE_VERSION)));
    });
}

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(action("File.New"));
    file->addAction(action("File.Open"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(action("File.Save"));
    file->addAction(action("File.SaveAs"));
    file->addAction(action("File.Export"));
    file->addSeparator();
    file->addAction(action("File.Settings"));
    file->addSeparator();
    file->addAction(action("File.Quit"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    for (const char *id : {"Edit.Undo", "Edit.Redo", "", "Edit.Cut", "Edit.Copy", "Edit.Paste",
                           "Edit.Duplicate", "Edit.Delete", "", "Edit.SelectAll"})
        *id ? (void)edit->addAction(action(id)) : (void)edit->addSeparator();

    auto *view = menuBar()->addMenu(tr("&View"));
    for (const char *id : {"View.Fit", "View.ZoomIn", "View.ZoomOut", "", "View.Presentation",
                           "View.ScaleUp", "View.ScaleDown", "", "View.AutoLayout", "View.Snap"})
        *id ? (void)view->addAction(action(id)) : (void)view->addSeparator();
    m_actions.insert("View.Menu", view->menuAction());

    auto *help = menuBar()->addMenu(tr("&Help"));
    m_examplesMenu = help->addMenu(tr("&Examples"));
    help->addSeparator();
    help->addAction(action("Help.About"));
    m_actions.insert("Help.Menu", help->menuAction());
    rebuildExamplesMenu();

    auto *tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setMovable(false);
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tools->setIconSize(QSize(18, 18));
    for (const char *id :
         {"File.New", "File.Open", "File.Save", "", "Edit.UndoButton", "Edit.RedoButton",
          "Edit.Delete", "", "View.Fit", "View.AutoLayout", "", "File.Settings", "File.Export"})
        *id ? (void)tools->addAction(action(id)) : (void)tools->addSeparator();
}

void MainWindow::buildDocks()
{
    auto dock
        = [this](const QString &title, const QString &name, QWidget *w, Qt::DockWidgetArea area) {
              auto *d = new QDockWidget(title, this);
              d->setObjectName(name);
              d->setWidget(w);
              d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
              addDockWidget(area, d);
              return d;
          };
    auto *p = dock(tr("Nodes"), QStringLiteral("paletteDock"), m_palette, Qt::LeftDockWidgetArea);
    auto *i = dock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspector,
                   Qt::RightDockWidgetArea);
    auto *pr = dock(tr("Problems"), QStringLiteral("problemsDock"), m_problems,
                    Qt::BottomDockWidgetArea);
    // Docks cannot be crushed (the canvas gives way), and take their width back when the
    // window grows again (restoreDockWidths()).
    p->setMinimumWidth(160);
    i->setMinimumWidth(250);
    resizeDocks({p, i}, {230, 360}, Qt::Horizontal);
    resizeDocks({pr}, {170}, Qt::Vertical);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

void MainWindow::connectViews()
{
    connect(m_palette, &widgets::NodePalette::kindActivated, this, [this](const QString &kind) {
        const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
        addNode(kind, freeSpotNear(centre));
    });
    connect(m_view, &widgets::GraphView::kindDropped, this,
            [this](const QString &kind, const QPointF &pos) { addNode(kind, pos); });
    connect(m_view, &widgets::GraphView::zoomChanged, this, [this](qreal z) {
        m_zoomLabel->setText(QStringLiteral("%1%").arg(std::lround(z * 100)));
    });
    connect(m_scene, &widgets::GraphScene::connectRequested, this, &MainWindow::onConnectRequested);
    connect(m_scene, &widgets::GraphScene::connectionRefused, this,
            &MainWindow::onConnectionRefused);
    connect(m_scene, &widgets::GraphScene::connectionFeedback, this,
            [this](const QString &message, bool) {
                if (message.isEmpty())
                    statusBar()->clearMessage();
                else
                    statusBar()->showMessage(message);
            });
    connect(m_scene, &widgets::GraphScene::nodesMoved, this, &MainWindow::onNodesMoved);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &MainWindow::refreshInspector);
    connect(m_scene, &widgets::GraphScene::nodeActivated, this, [this](const QString &id) {
        m_scene->selectNodes({id});
        m_inspector->focusField(QString());
    });
    connect(m_inspector, &widgets::NodeInspector::paramEdited, this, &MainWindow::onParamEdited);
    connect(m_inspector, &widgets::NodeInspector::renameRequested, this,
            &MainWindow::onRenameRequested);
    connect(m_problems, &widgets::ProblemsPanel::problemActivated, this,
            &MainWindow::onProblemActivated);
    connect(m_doc, &PipelineDocument::diagnosticsChanged, this, [this] {
        refreshProblems();
        refreshInspector();
    });
    connect(m_doc, &PipelineDocument::changed, this, [this](const DocumentChange &c) {
        using T = DocumentChange::Type;
        if (c.type == T::NodeParamsChanged || c.type == T::NodeRenamed)
            refreshInspector();
        if (c.type == T::Reset)
            m_pasteCount = 0;
        if (c.type == T::PipelineSettingsChanged)
            updateTitle(); // an unsaved document is named after the pipeline
    });
    connect(m_doc, &PipelineDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &PipelineDocument::filePathChanged, this, &MainWindow::updateTitle);
}

// --- views ----------------------------------------------------------------------------------

void MainWindow::refreshInspector()
{
    const QStringList selected = m_scene->selectedNodeIds();
    if (selected.size() != 1) {
        m_inspector->showNothing(
            selected.isEmpty()
                ? tr("Select a node to edit it.\n\nDrag a node kind from the palette onto the "
                     "canvas (or double-click it) to add one; drag from a port to another port "
                     "to connect.")
                : tr("%1 nodes selected.").arg(selected.size()));
        return;
    }
    const NodeSpec *node = m_doc->spec().node(sstr(selected.front()));
    if (!node)
        return;
    const NodeKind *kind = findNodeKind(node->kind);
    m_inspector->showNode(qstr(node->id), qstr(node->kind),
                          kind ? qstr(kind->displayName) : tr("Unknown kind"),
                          kind ? qstr(kind->help) : QString(),
                          kind ? fieldDescriptors(*kind) : QList<widgets::FieldDescriptor>{},
                          toQt(node->params).toObject());
    const NodeProblems problems = nodeProblems(m_doc->diagnostics(), qstr(node->id));
    m_inspector->setProblems(problems.byField, problems.node);
}

void MainWindow::refreshProblems()
{
    m_problems->setProblems(problems(m_doc->diagnostics()));
    const int e = m_problems->errorCount(), w = m_problems->warningCount();
    m_problemLabel->setText(e + w == 0 ? tr("Valid")
                                       : tr("%1 error(s), %2 warning(s)").arg(e).arg(w));
    m_problemLabel->setStyleSheet(QStringLiteral("color: %1")
                                      .arg((e   ? widgets::style::errorColor()
                                            : w ? widgets::style::warningColor()
                                                : widgets::style::accepted())
                                               .name()));
}

void MainWindow::updateTitle()
{
    setWindowTitle(QStringLiteral("%1[*] — Tideline").arg(m_doc->displayName()));
    setWindowModified(m_doc->isModified());
}

QPointF MainWindow::freeSpotNear(QPointF p) const
{
    // Nodes added by double-click land at the view centre; step diagonally past occupants.
    for (int i = 0; i < 50; ++i) {
        const QRectF r(p - QPointF(100, 40), QSizeF(widgets::style::kNodeWidth, 80));
        bool busy = false;
        for (const auto &id : m_model->nodeIds())
            if (auto *n = m_scene->nodeItem(id); n && n->sceneBoundingRect().intersects(r)) {
                busy = true;
                break;
            }
        if (!busy)
            return p;
        p += QPointF(40, 40);
    }
    return p;
}

// --- editing --------------------------------------------------------------------------------

QString MainWindow::addNode(const QString &kindName, const QPointF &scenePos)
{
    const NodeKind *kind = findNodeKind(sstr(kindName));
    if (!kind)
        return {};
    // "source.kafka" -> "kafka_source", "window" -> "window": ids that read well in files.
    std::string base = kind->kind;
    if (auto dot = base.find('.'); dot != std::string::npos)
        base = base.substr(dot + 1) + "_" + base.substr(0, dot);
    NodeSpec node;
    node.id = m_doc->uniqueNodeId(base);
    node.kind = kind->kind;
    node.params = defaultParams(*kind);
    const qreal g = widgets::style::kGrid;
    node.ui = Json::object();
    node.ui["x"]
        = std::int64_t(std::lround((scenePos.x() - widgets::style::kNodeWidth / 2) / g) * g);
    node.ui["y"] = std::int64_t(std::lround((scenePos.y() - 30) / g) * g);
    const QString id = qstr(node.id);
    m_doc->undoStack()->push(new AddNodesCommand(*m_doc, {node}, {}, tr("Add %1").arg(id)));
    m_scene->selectNodes({id});
    m_view->setFocus();
    return id;
}

void MainWindow::onConnectRequested(const widgets::ConnectionId &c)
{
    const EdgeSpec edge = PipelineGraphModel::toEdge(c);
    const std::string reason = checkNewEdge(m_doc->spec(), edge);
    if (!reason.empty()) {
        onConnectionRefused(c, qstr(reason));
        return;
    }
    m_lastRefusal.clear();
    m_doc->undoStack()->push(new ConnectCommand(*m_doc, edge));
}

void MainWindow::onConnectionRefused(const widgets::ConnectionId &c, const QString &reason)
{
    m_lastRefusal = reason;
    QString message = tr("Connection refused: %1").arg(reason);
    // An occupied single input: select the edge that is there, so Delete removes it.
    if (const NodeSpec *to = m_doc->spec().node(sstr(c.toNode))) {
        const NodeKind *kind = findNodeKind(to->kind);
        const PortDesc *port = kind ? kind->input(sstr(c.toPort)) : nullptr;
        if (port && !port->multi)
            for (const auto &e : m_doc->spec().edges)
                if (e.to.node == to->id && e.to.port == port->name
                    && !(e == PipelineGraphModel::toEdge(c))) {
                    if (auto *item = m_scene->connectionItem(PipelineGraphModel::toConnection(e))) {
                        m_scene->clearSelection();
                        item->setSelected(true);
                        message += tr(" (it is selected: press Delete)");
                    }
                    break;
                }
    }
    statusBar()->showMessage(message, 10000);
}

void MainWindow::onNodesMoved(const QStringList &ids, const QList<QPointF> &positions, int serial)
{
    std::vector<std::string> sids;
    for (const auto &id : ids)
        sids.push_back(sstr(id));
    m_doc->undoStack()->push(new MoveNodesCommand(
        *m_doc, std::move(sids), std::vector<QPointF>(positions.begin(), positions.end()), serial));
}

void MainWindow::onParamEdited(const QString &nodeId, const QString &name, const QJsonValue &value)
{
    const NodeSpec *node = m_doc->spec().node(sstr(nodeId));
    if (!node)
        return;
    const NodeKind *kind = findNodeKind(node->kind);
    const std::string key = sstr(name);
    const Json previous = node->params.contains(key) ? node->params[key] : Json();
    Json v = fromQt(value, previous, kind ? kind->param(key) : nullptr);
    if (v == previous)
        return;
    m_doc->undoStack()->push(new SetParamCommand(*m_doc, node->id, key, std::move(v)));
}

void MainWindow::onRenameRequested(const QString &oldId, const QString &newId)
{
    const QString problem = m_doc->checkRename(oldId, newId);
    if (!problem.isEmpty()) {
        statusBar()->showMessage(problem, 8000);
        return;
    }
    m_doc->undoStack()->push(new RenameNodeCommand(*m_doc, sstr(oldId), sstr(newId)));
    m_scene->selectNodes({newId});
}

void MainWindow::onProblemActivated(const QString &nodeId, const QString &param)
{
    if (nodeId.isEmpty()) {
        // File-level problems about settings are fixed in the settings dialog.
        if (param.startsWith(QLatin1String("settings")))
            editPipelineSettings();
        return;
    }
    m_scene->selectNodes({nodeId});
    if (auto *item = m_scene->nodeItem(nodeId))
        m_view->ensureVisible(item, 80, 80);
    refreshInspector();
    const QString field = param.section(QRegularExpression(QStringLiteral("[.\\[]")), 0, 0);
    m_inspector->focusField(field);
}

void MainWindow::deleteSelection()
{
    const QStringList ids = m_scene->selectedNodeIds();
    const auto conns = m_scene->selectedConnections();
    if (ids.isEmpty() && conns.isEmpty())
        return;
    std::vector<std::string> sids;
    for (const auto &id : ids)
        sids.push_back(sstr(id));
    std::vector<EdgeSpec> edges;
    for (const auto &c : conns)
        edges.push_back(PipelineGraphModel::toEdge(c));
    m_doc->undoStack()->push(new RemoveItemsCommand(*m_doc, std::move(sids), std::move(edges)));
}

void MainWindow::copySelection()
{
    const QStringList ids = m_scene->selectedNodeIds();
    if (ids.isEmpty())
        return;
    // Like Save and Export: a literal secret never leaves as text (the clipboard is readable
    // by every program); the copy carries ${env:NAME} references instead.
    const PipelineSpec sub = extractSubgraph(m_doc->spec(), ids);
    const auto secrets = findLiteralSecrets(sub);
    const std::string text = encodeSubgraph(replaceSecrets(sub, secrets));
    if (!secrets.empty())
        statusBar()->showMessage(
            tr("Copied with %1 literal secret(s) as ${env:…} references").arg(secrets.size()),
            8000);
    auto *mime = new QMimeData;
    mime->setData(kSubgraphMime, QByteArray::fromStdString(text));
    mime->setText(qstr(text));
    QApplication::clipboard()->setMimeData(mime);
    m_pasteCount = 0;
}

void MainWindow::cutSelection()
{
    copySelection();
    const QStringList ids = m_scene->selectedNodeIds();
    if (ids.isEmpty())
        return;
    std::vector<std::string> sids;
    for (const auto &id : ids)
        sids.push_back(sstr(id));
    auto *cmd = new RemoveItemsCommand(*m_doc, std::move(sids), {});
    cmd->setText(tr("Cut"));
    m_doc->undoStack()->push(cmd);
}

void MainWindow::paste()
{
    const QMimeData *mime = QApplication::clipboard()->mimeData();
    if (!mime)
        return;
    const QByteArray bytes
        = mime->hasFormat(kSubgraphMime) ? mime->data(kSubgraphMime) : mime->text().toUtf8();
    ++m_pasteCount;
    pasteText(bytes.toStdString(), QPointF(40, 40) * m_pasteCount);
}

void MainWindow::duplicateSelection()
{
    const QStringList ids = m_scene->selectedNodeIds();
    if (ids.isEmpty())
        return;
    pasteText(encodeSubgraph(extractSubgraph(m_doc->spec(), ids)), QPointF(40, 40));
}

void MainWindow::pasteText(const std::string &text, QPointF offset)
{
    const auto sub = decodeSubgraph(text);
    if (!sub) {
        statusBar()->showMessage(tr("The clipboard holds no Tideline nodes."), 5000);
        return;
    }
    PastePlan plan = planPaste(m_doc->spec(), *sub, offset);
    QStringList ids;
    for (const auto &n : plan.nodes)
        ids << qstr(n.id);
    m_doc->undoStack()->push(new AddNodesCommand(*m_doc, std::move(plan.nodes),
                                                 std::move(plan.edges),
                                                 tr("Paste %1 node(s)").arg(ids.size())));
    m_scene->selectNodes(ids);
}

void MainWindow::autoLayout()
{
    const auto pos = layeredLayout(m_doc->spec());
    std::vector<std::string> ids;
    std::vector<QPointF> positions;
    for (const auto &n : m_doc->spec().nodes) {
        ids.push_back(n.id);
        positions.push_back(pos.value(qstr(n.id)));
    }
    if (ids.empty())
        return;
    auto *cmd = new MoveNodesCommand(*m_doc, std::move(ids), std::move(positions), -1);
    cmd->setText(tr("Auto layout"));
    m_doc->undoStack()->push(cmd);
    m_view->fitToContents();
}

void MainWindow::editPipelineSettings()
{
    const QString dir = m_doc->filePath().isEmpty() ? QDir::currentPath()
                                                    : QFileInfo(m_doc->filePath()).absolutePath();
    PipelineSettingsDialog dialog(m_doc->header(), dir, this);
    if (dialog.exec() == QDialog::Accepted)
        applyPipelineSettings(dialog.header());
}

bool MainWindow::applyPipelineSettings(const PipelineHeader &header)
{
    if (header == m_doc->header())
        return false;
    m_doc->undoStack()->push(new SetPipelineSettingsCommand(*m_doc, header));
    return true;
}

// --- files ----------------------------------------------------------------------------------

bool MainWindow::maybeSave()
{
    if (!m_doc->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them first?").arg(m_doc->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newFile()
{
    if (!maybeSave())
        return;
    m_doc->newDocument();
    m_trusted = true; // made here
    m_view->setZoom(1.0);
    m_view->centerOn(0, 0);
}

void MainWindow::openDialog()
{
    if (!maybeSave())
        return;
    const QString dir = m_doc->filePath().isEmpty() ? QDir::currentPath()
                                                    : QFileInfo(m_doc->filePath()).absolutePath();
    const QString path
        = m_chooseFile ? m_chooseFile(false, dir)
                       : QFileDialog::getOpenFileName(this, tr("Open pipeline"), dir,
                                                      tr("Pipelines (*.json);;All files (*)"));
    if (!path.isEmpty())
        openPath(path);
}

bool MainWindow::openPath(const QString &path)
{
    QString error;
    if (!m_doc->openFile(path, &error)) {
        RecentFiles::remove(QFileInfo(path).absoluteFilePath());
        if (isVisible())
            QMessageBox::critical(this, tr("Cannot open"), error);
        else
            qWarning("%s", qPrintable(error));
        return false;
    }
    RecentFiles::add(path);
    // Opened from elsewhere (a file manager, a download): ask before its first run.
    m_trusted = isTrustedFile(path);
    m_view->fitToContents();
    statusBar()->showMessage(tr("Opened %1 (%2 nodes)").arg(path).arg(m_doc->spec().nodes.size()),
                             5000);
    return true;
}

bool MainWindow::save()
{
    if (m_doc->filePath().isEmpty())
        return saveAs();
    return savePath(m_doc->filePath());
}

bool MainWindow::saveAs()
{
    const QString suggested = m_doc->filePath().isEmpty()
                                  ? QDir::current().filePath(m_doc->displayName())
                                  : m_doc->filePath();
    const QString path = m_chooseFile
                             ? m_chooseFile(true, suggested)
                             : QFileDialog::getSaveFileName(this, tr("Save pipeline"), suggested,
                                                            tr("Pipelines (*.json)"));
    if (path.isEmpty())
        return false;
    // A new pipeline is called "untitled" until it is saved: it takes the file's name, so the
    // title, the file, the runner's log and savepoint folders all say the same.
    if (m_doc->spec().name == "untitled" || m_doc->spec().name.empty()) {
        PipelineHeader h = m_doc->header();
        h.name = sstr(QFileInfo(path).completeBaseName());
        applyPipelineSettings(h);
    }
    return savePath(path);
}

bool MainWindow::savePath(const QString &path)
{
    // Literal secrets never reach a file (as Export does it): they become ${env:NAME}
    // references in the document first, one undoable step, and the status bar names the
    // variables to set.
    const auto secrets = findLiteralSecrets(m_doc->spec());
    QStringList variables;
    if (!secrets.empty()) {
        const PipelineSpec replaced = replaceSecrets(m_doc->spec(), secrets);
        m_doc->undoStack()->beginMacro(tr("Replace literal secrets"));
        for (const auto &n : replaced.nodes)
            if (const NodeSpec *before = m_doc->spec().node(n.id);
                before && before->params != n.params)
                for (auto it = n.params.begin(); it != n.params.end(); ++it)
                    if (!before->params.contains(it.key())
                        || before->params[it.key()] != it.value())
                        m_doc->undoStack()->push(
                            new SetParamCommand(*m_doc, n.id, it.key(), it.value()));
        m_doc->undoStack()->endMacro();
        for (const auto &f : secrets)
            variables << qstr(f.envName);
    }
    QString error;
    if (!m_doc->saveFile(path, &error)) {
        QMessageBox::critical(this, tr("Cannot save"), error);
        return false;
    }
    RecentFiles::add(path);
    rememberTrusted(path);
    if (variables.isEmpty())
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    else
        statusBar()->showMessage(
            tr("Saved %1 — literal secrets were written as ${env:…} references: set %2 where "
               "it runs")
                .arg(path, variables.join(QStringLiteral(", "))),
            20000);
    return true;
}

// --- trust: a pipeline from elsewhere runs only once someone said so ------------------------

namespace {
QString fileDigest(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLatin1(
        QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex());
}
QString trustKey(const QString &path)
{
    return QStringLiteral("trustedPipelines/")
           + QString::fromLatin1(
               QCryptographicHash::hash(QFileInfo(path).absoluteFilePath().toUtf8(),
                                        QCryptographicHash::Sha1)
                   .toHex());
}
} // namespace

void MainWindow::rememberTrusted(const QString &path)
{
    m_trusted = true;
    QSettings().setValue(trustKey(path), fileDigest(path));
}

bool MainWindow::isTrustedFile(const QString &path) const
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    for (const QString &dir : exampleDirectories())
        if (abs.startsWith(QDir(dir).absolutePath() + QLatin1Char('/')))
            return true; // shipped with the designer
    const QString known = QSettings().value(trustKey(abs)).toString();
    return !known.isEmpty() && known == fileDigest(abs);
}

QString MainWindow::runSummary() const
{
    // What running it would touch: files read and written, brokers, references resolved.
    QStringList lines;
    for (const auto &n : m_doc->spec().nodes) {
        QStringList what;
        if (n.params.is_object())
            for (auto it = n.params.begin(); it != n.params.end(); ++it) {
                const NodeKind *kind = findNodeKind(n.kind);
                const ParamDesc *d = kind ? kind->param(it.key()) : nullptr;
                const bool path = d && d->type == ParamType::Path;
                const bool server = it.key() == "bootstrap_servers" || it.key() == "topic";
                const std::string text
                    = it.value().is_string() ? it.value().get<std::string>() : std::string();
                if ((path || server) && !text.empty())
                    what << qstr(it.key()) + QStringLiteral(" ") + qstr(text);
                else if (text.find("${") != std::string::npos)
                    what << qstr(it.key()) + QStringLiteral(" ") + qstr(text);
            }
        if (!what.isEmpty())
            lines << QStringLiteral("• %1 (%2): %3")
                         .arg(qstr(n.id), qstr(n.kind), what.join(QStringLiteral(", ")));
    }
    if (m_doc->spec().settings.is_object() && m_doc->spec().settings.contains("checkpoint"))
        lines << tr("• checkpoints: %1").arg(qstr(m_doc->spec().settings["checkpoint"].dump()));
    return lines.join('\n');
}

bool MainWindow::confirmRun()
{
    if (m_trusted)
        return true;
    const QString file = m_doc->filePath();
    const QString details
        = tr("%1 was not made or saved in this designer. Running it reads and writes what it "
             "names:\n\n%2\n\nRun it?")
              .arg(file.isEmpty() ? m_doc->displayName() : file,
                   runSummary().isEmpty() ? tr("(no files or servers)") : runSummary());
    bool yes;
    if (m_confirmRun)
        yes = m_confirmRun(details);
    else
        yes = QMessageBox::question(this, tr("Run a pipeline from elsewhere?"), details,
                                    QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
              == QMessageBox::Yes;
    if (yes) {
        m_trusted = true;
        if (!file.isEmpty() && !m_doc->isModified())
            QSettings().setValue(trustKey(file), fileDigest(file));
    }
    return yes;
}

void MainWindow::exportForServer()
{
    if (m_doc->errorCount() > 0) {
        const auto answer = QMessageBox::warning(
            this, tr("Export for server"),
            tr("The pipeline has %1 error(s); the server will refuse to run it (exit 2). "
               "Export anyway?")
                .arg(m_doc->errorCount()),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes)
            return;
    }
    QString suggested = m_doc->filePath();
    if (suggested.isEmpty())
        suggested = QDir::current().filePath(m_doc->displayName());
    suggested.replace(QRegularExpression(QStringLiteral("\\.json$")),
                      QStringLiteral(".server.json"));
    ExportDialog dialog(m_doc->spec(), suggested, this);
    dialog.exec();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = RecentFiles::list();
    for (const auto &f : files) {
        auto *a = m_recentMenu->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave())
                openPath(f);
        });
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        connect(m_recentMenu->addAction(tr("Clear")), &QAction::triggered, this,
                [] { RecentFiles::clear(); });
    }
}

void MainWindow::rebuildExamplesMenu()
{
    m_examplesMenu->clear();
    const QStringList dirs = exampleDirectories();
    const QStringList files = exampleFiles();
    for (const auto &f : files) {
        QString label = f;
        for (const auto &d : dirs)
            if (f.startsWith(d + '/'))
                label = f.mid(d.size() + 1);
        auto *a = m_examplesMenu->addAction(label);
        a->setData(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave())
                openPath(f);
        });
    }
    if (files.isEmpty())
        m_examplesMenu->addAction(tr("(no examples installed)"))->setEnabled(false);
}

QString MainWindow::browseForPath(const QString &kind, const QString &field, const QString &current)
{
    // Relative paths resolve against the pipeline file's folder; an unsaved pipeline has
    // none, so it gets absolute paths (and starts browsing at home).
    const QString base
        = m_doc->filePath().isEmpty() ? QString() : QFileInfo(m_doc->filePath()).absolutePath();
    const QString from = base.isEmpty() ? QDir::homePath() : base;
    const QString start = current.isEmpty() || current.startsWith(QLatin1String("${"))
                              ? from
                              : QDir(from).absoluteFilePath(current);
    const bool save = kind.startsWith(QLatin1String("sink."));
    const bool folder = kind == QLatin1String("sink.upsert") && field == QLatin1String("path");
    QString picked;
    if (m_choosePath)
        picked = m_choosePath(start, save, folder);
    else if (folder)
        picked = QFileDialog::getExistingDirectory(this, tr("Table folder"), start);
    else if (save)
        picked = QFileDialog::getSaveFileName(this, tr("File to write"), start);
    else
        picked = QFileDialog::getOpenFileName(this, tr("File to read"), start,
                                              tr("Data (*.jsonl *.json *.csv);;All files (*)"));
    if (picked.isEmpty())
        return {};
    picked = QDir::cleanPath(QFileInfo(picked).absoluteFilePath());
    if (!base.isEmpty()) {
        const QString rel = QDir(base).relativeFilePath(picked);
        if (!rel.startsWith(QLatin1String("..")) && !QDir::isAbsolutePath(rel))
            return rel;
    }
    return picked;
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    if (event->size().width() > event->oldSize().width())
        QTimer::singleShot(0, this, &MainWindow::restoreDockWidths);
}

void MainWindow::restoreDockWidths()
{
    // Side docks squeezed by a small window get their preferred width back as soon as the
    // canvas can spare it (Qt gives all new width to the central widget).
    const double scale = widgets::UiScale::factor();
    QList<QDockWidget *> docks;
    QList<int> widths;
    int want = 0;
    for (const auto &[name, preferred] : {std::pair{"paletteDock", 230}, {"inspectorDock", 360}}) {
        auto *d = findChild<QDockWidget *>(QLatin1String(name));
        const int target = int(preferred * scale);
        if (!d || d->isFloating() || d->width() >= target)
            continue;
        docks << d;
        widths << target;
        want += target - d->width();
    }
    if (!docks.isEmpty() && m_view->width() - want >= 480)
        resizeDocks(docks, widths, Qt::Horizontal);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (maybeSave())
        event->accept();
    else
        event->ignore();
}

} // namespace tideline::designer
