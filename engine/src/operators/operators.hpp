#pragma once
// Factories and semantic validators of every node kind. Each kind's operator lives in its own
// file under operators/ (or connectors/) and defines a make<Kind>() and, where the kind has
// rules beyond its param descriptors, a validate<Kind>(). registry.cpp maps kinds to them.

#include <tideline/engine/operator.hpp>
#include <tideline/engine/validate.hpp>

#include <memory>

namespace tideline {

using OperatorFactory = std::unique_ptr<Operator> (*)(const OperatorContext &);
using NodeValidator = void (*)(const NodeValidationContext &);

struct KindImpl
{
    const char *kind;
    OperatorFactory make;
    NodeValidator validate; ///< may be null
};

/// The implementation of a kind, or nullptr when the kind has none in this build.
const KindImpl *findKindImpl(std::string_view kind);

// --- one pair per kind (defined next to each operator) ---
std::unique_ptr<Operator> makeGeneratorSource(const OperatorContext &);
std::unique_ptr<Operator> makeFileSource(const OperatorContext &);
void validateFileSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeWatermark(const OperatorContext &);
std::unique_ptr<Operator> makeWindow(const OperatorContext &);
void validateWindow(const NodeValidationContext &);
std::unique_ptr<Operator> makeFileSink(const OperatorContext &);
std::unique_ptr<Operator> makeConsoleSink(const OperatorContext &);
std::unique_ptr<Operator> makeDiscardSink(const OperatorContext &);
void validateGenerator(const NodeValidationContext &);
void validateWatermark(const NodeValidationContext &);
std::unique_ptr<Operator> makeFilter(const OperatorContext &);
void validateFilter(const NodeValidationContext &);
std::unique_ptr<Operator> makeMap(const OperatorContext &);
void validateMap(const NodeValidationContext &);
std::unique_ptr<Operator> makeDedup(const OperatorContext &);
void validateDedup(const NodeValidationContext &);
std::unique_ptr<Operator> makeJoin(const OperatorContext &);
void validateJoin(const NodeValidationContext &);
std::unique_ptr<Operator> makeEnrich(const OperatorContext &);
void validateEnrich(const NodeValidationContext &);
std::unique_ptr<Operator> makeUpsertSink(const OperatorContext &);
void validateUpsertSink(const NodeValidationContext &);
std::unique_ptr<Operator> makeNexmarkSource(const OperatorContext &);
void validateNexmarkSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeTop(const OperatorContext &);
void validateTop(const NodeValidationContext &);
std::unique_ptr<Operator> makeWindowJoin(const OperatorContext &);
void validateWindowJoin(const NodeValidationContext &);
std::unique_ptr<Operator> makeKafkaSource(const OperatorContext &);
void validateKafkaSource(const NodeValidationContext &);
std::unique_ptr<Operator> makeKafkaSink(const OperatorContext &);
void validateKafkaSink(const NodeValidationContext &);

} // namespace tideline
