#pragma once
// sink.postgres: its node kind (descriptor), factory and validator. Registered by one line
// each in catalog.cpp and operators/registry.cpp.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/validate.hpp>

#include <memory>

namespace tideline {

NodeKind postgresSinkKind();
std::unique_ptr<Operator> makePostgresSink(const OperatorContext &ctx);
void validatePostgresSink(const NodeValidationContext &ctx);

} // namespace tideline
