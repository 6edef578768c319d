#pragma once
// ${env:NAME} / ${file:/path} references: found by validation (which warns outside the params
// the catalog marks as meant for them, ParamDesc::references) and resolved by the runtime.

#include <string>
#include <string_view>

namespace tideline::refs {

/// True when `text` contains a ${env:…} or ${file:…} reference anywhere.
bool containsReference(std::string_view text);

/// Replaces every ${env:NAME} by the variable's value and every ${file:/path} by the file's
/// contents (trailing newlines cut). What a reference yields is not scanned again. Throws
/// ConfigError when a variable is unset or a file cannot be read.
std::string resolveReferences(const std::string &value);

} // namespace tideline::refs
