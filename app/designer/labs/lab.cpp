#include "lab.hpp"

#include "examples.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace tideline::designer {

namespace {

QString readText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// "**Concept:** a watermark is … (*Streaming 102*: …)" up to the blank line, without the
/// Markdown emphasis.
QString conceptOf(const QString &markdown)
{
    const qsizetype at = markdown.indexOf(QStringLiteral("**Concept:**"));
    if (at < 0)
        return {};
    qsizetype end = markdown.indexOf(QStringLiteral("\n\n"), at);
    if (end < 0)
        end = markdown.size();
    QString text = markdown.mid(at, end - at);
    text.remove(QStringLiteral("**Concept:**"));
    text.remove(QRegularExpression(QStringLiteral("[*`]")));
    return text.simplified();
}

} // namespace

std::optional<Lab> labForPipeline(const QString &pipelinePath)
{
    const QFileInfo fi(pipelinePath);
    if (fi.fileName() != QStringLiteral("pipeline.json"))
        return std::nullopt;
    const QDir dir(QDir::cleanPath(fi.absolutePath()));
    if (!QFileInfo(dir.filePath(QStringLiteral("task.md"))).isFile()
        || !QFileInfo(dir.filePath(QStringLiteral("expected"))).isDir())
        return std::nullopt;
    Lab lab;
    lab.dir = dir.absolutePath();
    lab.pipeline = dir.filePath(QStringLiteral("pipeline.json"));
    lab.taskFile = dir.filePath(QStringLiteral("task.md"));
    lab.expected = dir.filePath(QStringLiteral("expected"));
    lab.task = readText(lab.taskFile);
    const QRegularExpression heading(QStringLiteral("^#\\s+(.+)$"),
                                     QRegularExpression::MultilineOption);
    const auto m = heading.match(lab.task);
    lab.title = m.hasMatch() ? m.captured(1).trimmed() : dir.dirName();
    lab.conceptText = conceptOf(lab.task);
    return lab;
}

QStringList labDirectories()
{
    QStringList dirs;
    for (const QString &examples : exampleDirectories()) {
        const QString labs = QDir(examples).filePath(QStringLiteral("labs"));
        if (QFileInfo(labs).isDir())
            dirs << QDir::cleanPath(labs);
    }
    return dirs;
}

QList<Lab> availableLabs()
{
    QList<Lab> labs;
    QSet<QString> seen;
    for (const QString &root : labDirectories()) {
        QStringList names = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString &name : std::as_const(names)) {
            if (seen.contains(name))
                continue;
            if (auto lab
                = labForPipeline(QDir(root).filePath(name + QStringLiteral("/pipeline.json")))) {
                seen.insert(name);
                labs << *lab;
            }
        }
    }
    return labs;
}

bool isInLabsDirectory(const QString &path)
{
    const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    for (const QString &root : labDirectories())
        if (clean.startsWith(root + '/'))
            return true;
    return false;
}

} // namespace tideline::designer
