// filter: keeps the records for which the expression is true (null and false drop the record).
// The expression is compiled once in the factory; per record it is only evaluated.

#include "expr/schema.hpp"
#include "expr/validate_expr.hpp"
#include "operators/operators.hpp"

namespace tideline {

namespace {

class FilterOperator final : public Operator
{
public:
    explicit FilterOperator(std::unique_ptr<expr::Expression> e)
        : m_expr(std::move(e))
    {
    }

    void processRecord(int, Record &&record, Output &out) override
    {
        const std::uint64_t divisions = m_expr->divisionsByZero();
        if (m_expr->test(record))
            out.emit(std::move(record));
        else
            out.account(m_expr->divisionsByZero() == divisions ? observe::Fate::FilterFalse
                                                               : observe::Fate::FilterDivByZero);
    }

    void reportMetrics(observe::NodeMetrics &m) const override
    {
        // A division by zero gave null (the record was dropped): counted as an error.
        m.errors += static_cast<std::int64_t>(m_expr->divisionsByZero());
    }

private:
    std::unique_ptr<expr::Expression> m_expr;
};

} // namespace

std::unique_ptr<Operator> makeFilter(const OperatorContext &ctx)
{
    // References are resolved before compiling (the contract allows them in any string
    // param; validation warns that they become part of the program here).
    return std::make_unique<FilterOperator>(expr::compileOrThrow(
        "expr", ctx.resolve(ctx.spec.params.at("expr").get<std::string>()), expr::Want::Boolean));
}

void validateFilter(const NodeValidationContext &ctx)
{
    const NodeSpec &n = ctx.spec.nodes[static_cast<std::size_t>(ctx.nodeIndex)];
    auto it = n.params.find("expr");
    if (it == n.params.end() || !it->is_string() || it->get<std::string>().empty())
        return; // the param checker already reported it
    expr::checkExpression(ctx, "expr", it->get<std::string>(), expr::Want::Boolean,
                          expr::knownInputFields(ctx));
}

} // namespace tideline
