#pragma once
// The catalog as Markdown: the node reference in pipelines/README.md is generated from the
// same descriptors that validate pipelines and build the designer's forms (and a test checks
// that the committed file matches).

#include <string>

namespace tideline {

std::string catalogMarkdown();

} // namespace tideline
