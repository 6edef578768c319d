#pragma once
// Engine observe:: figures -> the live widgets' Qt-side structs (the only place both meet).

#include "live/live_types.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/observe/metrics.hpp>
#include <tideline/observe/tap.hpp>

namespace tideline::designer::live {

tideline::live::Snapshot toLive(const observe::MetricsSnapshot &s);
tideline::live::TappedRecord toLive(const observe::TapEvent &e);
tideline::live::WatermarkChange toLive(const observe::WatermarkTapEvent &e);
/// Node ids, kinds, params and output ports of a pipeline, for the views' explanations.
QList<tideline::live::NodeInfo> nodeInfos(const PipelineSpec &spec);
QList<tideline::live::EdgeInfo> edgeInfos(const PipelineSpec &spec);

} // namespace tideline::designer::live
