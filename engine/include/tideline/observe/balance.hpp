#pragma once
// The balance of one node's figures (observe/accounting.hpp): does every record that came in
// have a counted fate? Standard library only: the runner, the designer and the tests use it.

#include <tideline/observe/metrics.hpp>

#include <string>

namespace tideline::observe {

struct Balance
{
    bool holds = true;
    bool makesRows = false; ///< a window or join: out is made of new rows
    std::int64_t in = 0;
    std::int64_t accounted = 0; ///< passed + input fates + late + errors + held
    std::int64_t out = 0;
    std::int64_t outAccounted = 0; ///< makesRows: the sum of the output kinds
    std::string text;              ///< "in 84 = out 80 + late 2 + errors 2" (what was summed)
};

/// `isSource`: sources have no input; their out + errors is what they read (always holds).
inline Balance balanceOf(const NodeMetrics &m, bool isSource)
{
    Balance b;
    b.in = m.recordsIn;
    b.out = m.recordsOut;
    std::int64_t inputFates = 0;
    for (std::size_t i = 0; i < kFirstOutputFate; ++i)
        inputFates += m.fates[i];
    std::int64_t outputFates = 0;
    for (std::size_t i = kFirstOutputFate; i < kFateCount; ++i)
        outputFates += m.fates[i];
    const std::int64_t consumed = m.fate(Fate::Windowed) + m.fate(Fate::LateAccepted)
                                  + m.fate(Fate::JoinMatched) + m.fate(Fate::JoinUnmatched);
    b.makesRows = consumed > 0 || outputFates > 0;
    const std::int64_t late = total(m.lateCauses);
    const std::int64_t errors = total(m.errorCauses);
    std::string &t = b.text;
    t = "in " + std::to_string(b.in) + " =";
    bool first = true;
    auto term = [&](std::string_view name, std::int64_t n) {
        if (n == 0)
            return;
        t += first ? " " : " + ";
        t += std::string(name) + " " + std::to_string(n);
        first = false;
    };
    if (isSource) {
        b.accounted = b.in;
        t = "read " + std::to_string(b.out + errors) + " = out " + std::to_string(b.out)
            + " + errors " + std::to_string(errors);
        return b;
    }
    b.accounted = (b.makesRows ? 0 : b.out) + inputFates + late + errors + m.held;
    if (!b.makesRows)
        term("out", b.out);
    for (std::size_t i = 0; i < kFirstOutputFate; ++i)
        term(fateName(static_cast<Fate>(i)), m.fates[i]);
    term("late", late);
    term("errors", errors);
    term("held", m.held);
    if (first)
        t += " 0";
    b.holds = b.in == b.accounted;
    if (b.makesRows) {
        b.outAccounted = outputFates;
        t += "; out " + std::to_string(b.out) + " =";
        first = true;
        for (std::size_t i = kFirstOutputFate; i < kFateCount; ++i)
            term(fateName(static_cast<Fate>(i)), m.fates[i]);
        if (first)
            t += " 0";
        // top and window_join make rows without a breakdown of them: only the inputs balance.
        if (outputFates > 0 || b.out == 0)
            b.holds = b.holds && b.out == outputFates;
    }
    return b;
}

} // namespace tideline::observe
