#pragma once
// Copies an example pipeline's folder for a test run, leaving out what earlier runs wrote
// (out/ and state/), so every test starts from the pipeline's inputs only.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QString>

inline bool copyPipelineFolder(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString rel = QDir(from).relativeFilePath(src);
        if (rel.startsWith(QLatin1String("out/")) || rel.startsWith(QLatin1String("state/")))
            continue;
        QDir().mkpath(QFileInfo(to + '/' + rel).absolutePath());
        if (!QFile::copy(src, to + '/' + rel))
            return false;
    }
    return true;
}
