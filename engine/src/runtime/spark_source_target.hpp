#pragma once
// Spark mode (settings.semantics "spark"): what a source's Output sends to, so that its data
// records pass between the micro-batch boundaries around them (semantics_hooks.cpp). Every
// other call goes straight to the runtime.

#include <tideline/engine/operator.hpp>

namespace tideline {

class Runtime;

class SparkSourceTarget final : public OutputTarget
{
public:
    explicit SparkSourceTarget(Runtime &rt)
        : m_rt(rt)
    {
    }
    void emit(int node, int port, Record &&record) override;
    void emitWrapped(int node,
                     PortRole role,
                     std::string_view reason,
                     Record &&record,
                     Timestamp watermark,
                     std::string_view raw,
                     std::string_view where) override;
    void emitWatermark(int node, Timestamp w) override;
    void emitIdle(int node, bool idle) override;
    bool connected(int node, int port) const override;
    void traceFate(int node, observe::Fate fate) override;

private:
    Runtime &m_rt;
};

} // namespace tideline
