#include "examples.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>

namespace tideline::designer {

QStringList exampleDirectories()
{
    QStringList dirs;
    const QString app = QCoreApplication::applicationDirPath();
    const QStringList candidates = {
        QDir(app).absoluteFilePath(QStringLiteral("../share/tideline/pipelines")),
#ifdef TIDELINE_EXAMPLES_DIR
        QStringLiteral(TIDELINE_EXAMPLES_DIR),
#endif
    };
    for (const auto &c : candidates) {
        const QString clean = QDir::cleanPath(c);
        if (QFileInfo(clean).isDir() && !dirs.contains(clean))
            dirs << clean;
    }
    return dirs;
}

QStringList exampleFiles()
{
    QStringList files;
    QSet<QString> seen;
    const QStringList dirs = exampleDirectories();
    for (const auto &dir : dirs) {
        QDirIterator it(dir, {QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
        QStringList here;
        while (it.hasNext()) {
            const QString f = it.next();
            // The labs' starting pipelines and solutions are not examples: File › Open Lab….
            if (QDir(dir).relativeFilePath(f).startsWith(QStringLiteral("labs/")))
                continue;
            // Data files (lookup tables, inputs) may live next to the pipelines.
            QFile file(f);
            if (file.open(QIODevice::ReadOnly) && file.read(4096).contains("\"tideline/1\""))
                here << f;
        }
        here.sort();
        for (const auto &f : std::as_const(here)) {
            const QString rel = QDir(dir).relativeFilePath(f);
            if (!seen.contains(rel)) {
                seen.insert(rel);
                files << f;
            }
        }
    }
    return files;
}

} // namespace tideline::designer
