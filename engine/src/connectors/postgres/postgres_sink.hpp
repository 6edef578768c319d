#pragma once
// sink.postgres: its node kind (descriptor), factory and validator; postgres_kind.cpp's
// postgresKind() puts them together for operators/kind_list.cpp.

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/validate.hpp>

#include <memory>

namespace tideline {

NodeKind postgresSinkKind();
std::unique_ptr<Operator> makePostgresSink(const OperatorContext &ctx);
void validatePostgresSink(const NodeValidationContext &ctx);

} // namespace tideline
