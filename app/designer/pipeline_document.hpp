#pragma once
// The open pipeline: owns the PipelineSpec, its undo history, file path and diagnostics.
//
// All editing goes through undo commands (commands/), which call the edit primitives below
// from redo()/undo() only; nothing else mutates the spec. Every change is announced as one
// DocumentChange and, except pure layout moves, triggers a fresh validate().

#include "document_change.hpp"

#include <tideline/engine/spec.hpp>

#include <QObject>

class QUndoStack;

namespace tideline::designer {

/// The pipeline-level part of the file: everything but nodes, edges and layout.
struct PipelineHeader
{
    std::string name;
    std::string description;
    Json settings = Json::object();
    bool operator==(const PipelineHeader &) const = default;
};

class PipelineDocument final : public QObject
{
    Q_OBJECT
public:
    explicit PipelineDocument(QObject *parent = nullptr);
    ~PipelineDocument() override;

    const PipelineSpec &spec() const { return m_spec; }
    QUndoStack *undoStack() const { return m_undo; }
    QString filePath() const { return m_path; }
    QString displayName() const;
    bool isModified() const;
    const std::vector<Diagnostic> &diagnostics() const { return m_diagnostics; }
    int errorCount() const;
    /// Time the last validate() took (ms), for the status bar and the benchmark.
    double lastValidationMs() const { return m_validationMs; }

    // --- whole-document operations (clear the history) ---
    void newDocument();
    /// Loads with the engine's loader; a file without layout is laid out left to right.
    /// Returns false (and a message) only when the file cannot be read as a pipeline at all.
    bool openFile(const QString &path, QString *error);
    bool openText(const std::string &text, const QString &path, QString *error);
    /// Writes writeSpec() output; marks the document clean.
    bool saveFile(const QString &path, QString *error);
    std::string toJson() const;

    // --- edit primitives: called by undo commands only ---
    void insertNode(int index, const NodeSpec &node);
    NodeSpec removeNodeAt(int index);
    void insertEdge(int index, const EdgeSpec &edge);
    void removeEdgeAt(int index);
    void setNodeUi(const std::string &id, const Json &ui);
    void setNodeParams(const std::string &id, const Json &params);
    void renameNode(const std::string &oldId, const std::string &newId);
    void setHeader(const PipelineHeader &header);
    PipelineHeader header() const;
    int edgeIndex(const EdgeSpec &edge) const;

    /// Groups many primitives: one validation at the end instead of one per primitive.
    void beginBatch();
    void endBatch();

    // --- helpers ---
    /// `base`, or `base_2`, `base_3`... whichever is free (also avoiding `taken`).
    std::string uniqueNodeId(const std::string &base,
                             const std::vector<std::string> &taken = {}) const;
    /// "" when `newId` may replace `oldId`, otherwise why not.
    QString checkRename(const QString &oldId, const QString &newId) const;

Q_SIGNALS:
    void changed(const tideline::designer::DocumentChange &change);
    void diagnosticsChanged();
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);

private:
    void notify(const DocumentChange &change);
    void revalidate();
    void resetTo(PipelineSpec spec, const QString &path, std::vector<Diagnostic> loadDiagnostics);

    PipelineSpec m_spec;
    QUndoStack *m_undo;
    QString m_path;
    std::vector<Diagnostic> m_diagnostics;
    double m_validationMs = 0;
    int m_batch = 0;
    bool m_batchDirty = false;
};

} // namespace tideline::designer
