#pragma once
// readLines() for Qt tests that compare with QStringList literals: the same reader as
// tideline::testing::readLines (test_support.hpp), as a QStringList.

#include "test_support.hpp"

#include <QStringList>

namespace tideline::testing {

inline QStringList toQStringList(const std::vector<std::string> &lines)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(lines.size()));
    for (const auto &l : lines)
        out << QString::fromStdString(l);
    return out;
}

/// The file's non-empty lines (none when it does not exist).
inline QStringList readQLines(const std::string &path)
{
    return toQStringList(readLines(path));
}

} // namespace tideline::testing
