#pragma once
// Example pipelines shipped with the app: pipelines/**/*.json next to the sources (developer
// builds, via the TIDELINE_EXAMPLES_DIR compile definition) and share/tideline/pipelines of
// an installed tree (relative to the executable).

#include <QStringList>

namespace tideline::designer {

QStringList exampleDirectories();
/// Every example file, sorted, without duplicates (the first directory wins per relative path);
/// not the labs in labs/ (a lab's solution is no example: labs/lab.hpp lists them).
QStringList exampleFiles();

} // namespace tideline::designer
