#pragma once

#include <QStringList>

namespace tideline::designer {

/// Most-recently-used pipeline files, kept in QSettings ("recentFiles"), newest first.
class RecentFiles
{
public:
    static constexpr int kMax = 8;
    static QStringList list();
    static void add(const QString &path);
    static void remove(const QString &path);
    static void clear();
};

} // namespace tideline::designer
