#include "pipeline_document.hpp"

#include "auto_layout.hpp"
#include "json_bridge.hpp"

#include <tideline/engine/validate.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QUndoStack>

namespace tideline::designer {

PipelineDocument::PipelineDocument(QObject *parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this,
            [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
    newDocument();
}

PipelineDocument::~PipelineDocument() = default;

QString PipelineDocument::displayName() const
{
    if (!m_path.isEmpty())
        return QFileInfo(m_path).fileName();
    return m_spec.name.empty() ? tr("untitled.json") : qstr(m_spec.name) + ".json";
}

bool PipelineDocument::isModified() const
{
    return !m_undo->isClean();
}

int PipelineDocument::errorCount() const
{
    return int(std::count_if(m_diagnostics.begin(), m_diagnostics.end(),
                             [](const Diagnostic &d) { return d.isError(); }));
}

void PipelineDocument::newDocument()
{
    PipelineSpec spec;
    spec.name = "untitled";
    resetTo(std::move(spec), QString(), {});
}

bool PipelineDocument::openFile(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = tr("Cannot read %1: %2").arg(path, f.errorString());
        return false;
    }
    const QByteArray bytes = f.readAll();
    return openText(bytes.toStdString(), QFileInfo(path).absoluteFilePath(), error);
}

bool PipelineDocument::openText(const std::string &text, const QString &path, QString *error)
{
    LoadResult r = loadSpec(text);
    if (!r.spec) {
        QStringList lines;
        for (const auto &d : r.diagnostics)
            lines << qstr(d.format());
        *error = tr("%1 is not a Tideline pipeline:\n%2")
                     .arg(path.isEmpty() ? tr("The text") : path, lines.join('\n'));
        return false;
    }
    PipelineSpec spec = std::move(*r.spec);
    applyAutoLayout(spec, /*onlyMissing=*/true);
    resetTo(std::move(spec), path, std::move(r.diagnostics));
    return true;
}

bool PipelineDocument::saveFile(const QString &path, QString *error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    const std::string text = toJson();
    f.write(text.data(), qint64(text.size()));
    if (!f.commit()) {
        *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != m_path) {
        m_path = abs;
        Q_EMIT filePathChanged(m_path);
    }
    m_undo->setClean();
    return true;
}

std::string PipelineDocument::toJson() const
{
    return writeSpec(m_spec);
}

void PipelineDocument::resetTo(PipelineSpec spec,
                               const QString &path,
                               std::vector<Diagnostic> loadDiagnostics)
{
    m_undo->clear();
    m_spec = std::move(spec);
    m_path = path;
    Q_EMIT filePathChanged(m_path);
    notify({DocumentChange::Type::Reset, {}, {}, {}});
    // Keep file-shape problems the loader found (validate() alone would not repeat them).
    if (!loadDiagnostics.empty()) {
        m_diagnostics = std::move(loadDiagnostics);
        Q_EMIT diagnosticsChanged();
    }
    m_undo->setClean();
    Q_EMIT modifiedChanged(false);
}

// --- edit primitives ------------------------------------------------------------------------

void PipelineDocument::insertNode(int index, const NodeSpec &node)
{
    index = std::clamp(index, 0, int(m_spec.nodes.size()));
    m_spec.nodes.insert(m_spec.nodes.begin() + index, node);
    notify({DocumentChange::Type::NodeAdded, qstr(node.id), {}, {}});
}

NodeSpec PipelineDocument::removeNodeAt(int index)
{
    NodeSpec node = m_spec.nodes.at(std::size_t(index));
    m_spec.nodes.erase(m_spec.nodes.begin() + index);
    notify({DocumentChange::Type::NodeRemoved, qstr(node.id), {}, {}});
    return node;
}

void PipelineDocument::insertEdge(int index, const EdgeSpec &edge)
{
    index = std::clamp(index, 0, int(m_spec.edges.size()));
    m_spec.edges.insert(m_spec.edges.begin() + index, edge);
    notify({DocumentChange::Type::EdgeAdded, {}, {}, edge});
}

void PipelineDocument::removeEdgeAt(int index)
{
    const EdgeSpec edge = m_spec.edges.at(std::size_t(index));
    m_spec.edges.erase(m_spec.edges.begin() + index);
    notify({DocumentChange::Type::EdgeRemoved, {}, {}, edge});
}

void PipelineDocument::setNodeUi(const std::string &id, const Json &ui)
{
    if (NodeSpec *n = m_spec.node(id)) {
        n->ui = ui;
        notify({DocumentChange::Type::NodeMoved, qstr(id), {}, {}});
    }
}

void PipelineDocument::setNodeParams(const std::string &id, const Json &params)
{
    if (NodeSpec *n = m_spec.node(id)) {
        n->params = params;
        notify({DocumentChange::Type::NodeParamsChanged, qstr(id), {}, {}});
    }
}

void PipelineDocument::renameNode(const std::string &oldId, const std::string &newId)
{
    NodeSpec *n = m_spec.node(oldId);
    if (!n)
        return;
    n->id = newId;
    for (auto &e : m_spec.edges) {
        if (e.from.node == oldId)
            e.from.node = newId;
        if (e.to.node == oldId)
            e.to.node = newId;
    }
    notify({DocumentChange::Type::NodeRenamed, qstr(newId), qstr(oldId), {}});
}

void PipelineDocument::setHeader(const PipelineHeader &header)
{
    m_spec.name = header.name;
    m_spec.description = header.description;
    m_spec.settings = header.settings.is_object() ? header.settings : Json::object();
    notify({DocumentChange::Type::PipelineSettingsChanged, {}, {}, {}});
}

PipelineHeader PipelineDocument::header() const
{
    return {m_spec.name, m_spec.description, m_spec.settings};
}

int PipelineDocument::edgeIndex(const EdgeSpec &edge) const
{
    for (std::size_t i = m_spec.edges.size(); i-- > 0;)
        if (m_spec.edges[i] == edge)
            return int(i);
    return -1;
}

// --- notification and validation ------------------------------------------------------------

void PipelineDocument::beginBatch()
{
    ++m_batch;
}

void PipelineDocument::endBatch()
{
    if (--m_batch == 0 && m_batchDirty) {
        m_batchDirty = false;
        revalidate();
    }
}

void PipelineDocument::notify(const DocumentChange &change)
{
    Q_EMIT changed(change);
    if (change.type == DocumentChange::Type::NodeMoved)
        return; // layout never changes validity
    if (m_batch > 0) {
        m_batchDirty = true;
        return;
    }
    revalidate();
}

void PipelineDocument::revalidate()
{
    QElapsedTimer t;
    t.start();
    m_diagnostics = validate(m_spec);
    m_validationMs = double(t.nsecsElapsed()) / 1e6;
    Q_EMIT diagnosticsChanged();
}

// --- helpers --------------------------------------------------------------------------------

std::string PipelineDocument::uniqueNodeId(const std::string &base,
                                           const std::vector<std::string> &taken) const
{
    auto used = [&](const std::string &id) {
        return m_spec.node(id) != nullptr
               || std::find(taken.begin(), taken.end(), id) != taken.end();
    };
    if (!base.empty() && !used(base))
        return base;
    // "window_3" -> stem "window"; ids from kinds like "sink.file" -> "sink_file".
    QString stem = qstr(base.empty() ? std::string("node") : base);
    stem.replace('.', '_');
    stem.remove(QRegularExpression(QStringLiteral("_\\d+$")));
    if (!used(sstr(stem)))
        return sstr(stem);
    for (int i = 2;; ++i) {
        const std::string candidate = sstr(stem) + "_" + std::to_string(i);
        if (!used(candidate))
            return candidate;
    }
}

QString PipelineDocument::checkRename(const QString &oldId, const QString &newId) const
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_-]*$"));
    if (newId.isEmpty())
        return tr("A node id cannot be empty.");
    if (!pattern.match(newId).hasMatch())
        return tr("An id starts with a letter or _ and contains only letters, digits, _ and -.");
    if (newId != oldId && m_spec.node(sstr(newId)))
        return tr("Another node is already called \"%1\".").arg(newId);
    return {};
}

} // namespace tideline::designer
