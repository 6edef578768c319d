#pragma once

namespace tideline::designer {

/// QUndoCommand::id() values of commands that merge (one enum, as in Tiled).
enum CommandId {
    CmdMoveNodes = 1,
};

} // namespace tideline::designer
