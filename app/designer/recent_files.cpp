#include "recent_files.hpp"

#include <QFileInfo>
#include <QSettings>

namespace tideline::designer {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

QStringList RecentFiles::list()
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString &path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = list();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMax)
        files.removeLast();
    QSettings().setValue(kKey, files);
}

void RecentFiles::remove(const QString &path)
{
    QStringList files = list();
    files.removeAll(path);
    QSettings().setValue(kKey, files);
}

void RecentFiles::clear()
{
    QSettings().remove(kKey);
}

} // namespace tideline::designer
