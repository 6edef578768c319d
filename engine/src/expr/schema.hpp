#pragma once
// What validation can know statically about the fields reaching a node.
//
// In general nothing: a file or Kafka source carries whatever its records hold. Only when the
// stream comes from a `source.generator` (fixed schema), possibly through nodes that keep or
// reshape fields predictably (watermark, filter, dedup, map), are the field names known, and
// then an expression naming another field earns a warning.

#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tideline::expr {

/// The fields arriving on `input` of node `nodeIndex`, when they are knowable; nullopt if not.
std::optional<std::vector<std::string>>
knownInputFields(const PipelineSpec &spec, int nodeIndex, const std::string &input = "in");

/// The same during validation, with the graph index validate() built (linear overall).
std::optional<std::vector<std::string>> knownInputFields(const NodeValidationContext &ctx,
                                                         const std::string &input = "in");

/// Is `path` among `fields` (exactly, nested under one, or a parent of one)?
bool fieldKnown(const std::vector<std::string> &fields, const std::string &path);

/// "field 'vlaue' is not in the records arriving here (event_id, ...; did you mean 'value'?)"
std::string unknownFieldMessage(const std::vector<std::string> &fields, const std::string &path);

} // namespace tideline::expr
