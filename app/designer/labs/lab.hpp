#pragma once
// A lab (issue 19, item 5): a folder under pipelines/labs/ holding a starting pipeline a
// student must fix (pipeline.json), its input, a task written for students (task.md), the
// expected outputs its Check compares with (expected/) and a solution (solution/, read only by
// the tests). A folder is a lab when it holds pipeline.json, task.md and expected/: opening
// such a pipeline.json, by File › Open Lab… or any other way, opens it as a lab.

#include <QList>
#include <QString>

#include <optional>

namespace tideline::designer {

struct Lab
{
    QString dir;         ///< the lab's folder, absolute and clean
    QString pipeline;    ///< dir/pipeline.json
    QString taskFile;    ///< dir/task.md
    QString expected;    ///< dir/expected
    QString title;       ///< task.md's first heading ("Lab 1 — Fire once: the watermark delay")
    QString conceptText; ///< its "**Concept:**" paragraph, as plain text ("" when it has none)
    QString task;        ///< task.md's text (Markdown)
};

/// The lab whose starting pipeline is `pipelinePath`; nullopt for any other file (a lab's
/// solution/pipeline.json is not a lab: it has no task).
[[nodiscard]] std::optional<Lab> labForPipeline(const QString &pipelinePath);

/// The folders labs are listed from: labs/ in each example folder (developer builds, an
/// installed share/tideline/pipelines).
QStringList labDirectories();

/// Every lab in labDirectories(), sorted by folder name (the labs are numbered), the first
/// folder winning per name.
QList<Lab> availableLabs();

/// True when `path` lies inside a labs folder (so Help › Examples does not offer the labs'
/// pipelines or their solutions as examples).
bool isInLabsDirectory(const QString &path);

} // namespace tideline::designer
