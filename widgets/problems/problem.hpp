#pragma once

#include <QString>

namespace tideline::widgets {

/// One validation finding as the problems panel shows it.
struct Problem
{
    bool error = true;
    QString nodeId; ///< "" for file-level problems
    QString param;  ///< field to focus, or ""
    QString path;   ///< JSON path, e.g. nodes[2].params.size_ms
    QString message;
};

} // namespace tideline::widgets
