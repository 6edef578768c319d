#pragma once
// The window node's params, read once from the pipeline file (shared by validation and the
// operator factory so that both read the params the same way).

#include "operators/window/aggregates.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <string>
#include <vector>

namespace tideline::window {

enum class WindowType { Tumbling, Sliding, Session };

const char *windowTypeName(WindowType t);

struct WindowConfig
{
    WindowType type = WindowType::Tumbling;
    Timestamp size = 0;  ///< tumbling, sliding
    Timestamp slide = 0; ///< sliding (tumbling: == size)
    Timestamp gap = 0;   ///< session
    std::vector<std::string> key;
    std::vector<AggSpec> aggregates; ///< `as` filled with its default when absent
    Timestamp lateness = 0;
};

/// Reads params. On a problem returns false with `error` = "params.<name>: <what to fix>".
/// Validation reports the same problems with more detail; this is the factory's safety net.
bool readWindowConfig(const Json &params, WindowConfig &cfg, std::string &error);

/// Field names every window output carries besides the key fields and aggregates.
inline constexpr const char *kWindowStart = "window_start";
inline constexpr const char *kWindowEnd = "window_end";
inline constexpr const char *kEmit = "emit";

} // namespace tideline::window
