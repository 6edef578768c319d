#pragma once
// The window's names for the keyed-state toolkit's group-key codec (operators/keys/).

#include "operators/keys/group_key_codec.hpp"

namespace tideline::window {

using KeyCodec = keys::GroupKeyCodec;
using keys::findField;
using keys::hashBytes;

} // namespace tideline::window
