#pragma once
// The checks validate() runs on each node's params (against the kind's descriptors) and on the
// file's settings.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <vector>

namespace tideline {

/// Each param in `params` against `descs` (type, range, choices, nested fields, references),
/// and every required one present; problems go to ctx as errors (references as warnings).
void checkParams(const NodeValidationContext &ctx,
                 const std::vector<ParamDesc> &descs,
                 const Json &params);

/// The `settings` object: known keys, delivery, state, state_memory_mb, checkpoint.
void checkSettings(const Json &settings, std::vector<Diagnostic> &out);

} // namespace tideline
