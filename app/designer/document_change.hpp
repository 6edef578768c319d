#pragma once
// One typed change notification from PipelineDocument (Tiled's ChangeEvent idea): views
// update incrementally instead of reloading the whole document.

#include <tideline/engine/spec.hpp>

#include <QString>

namespace tideline::designer {

struct DocumentChange
{
    enum class Type {
        Reset,                   ///< new/open: everything changed
        NodeAdded,               ///< nodeId
        NodeRemoved,             ///< nodeId
        NodeMoved,               ///< nodeId (layout only, no revalidation)
        NodeParamsChanged,       ///< nodeId
        NodeRenamed,             ///< oldNodeId -> nodeId
        EdgeAdded,               ///< edge
        EdgeRemoved,             ///< edge
        PipelineSettingsChanged, ///< name, description or settings
    };
    Type type = Type::Reset;
    QString nodeId;
    QString oldNodeId;
    EdgeSpec edge;
};

} // namespace tideline::designer
