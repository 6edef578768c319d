#include "connectors/kafka/eos.hpp"

#include <algorithm>

namespace tideline::kafka {

namespace {
thread_local std::vector<OffsetSource *> t_sources;

bool matches(const PartitionOffsets &expected, const PartitionOffsets &committed)
{
    for (const auto &[p, off] : expected) {
        auto it = committed.find(p);
        if (it == committed.end() || it->second != off)
            return false;
    }
    return true;
}
} // namespace

void registerOffsetSource(OffsetSource *s)
{
    t_sources.push_back(s);
}
void unregisterOffsetSource(OffsetSource *s)
{
    t_sources.erase(std::remove(t_sources.begin(), t_sources.end(), s), t_sources.end());
}
OffsetSource *latestOffsetSource()
{
    return t_sources.empty() ? nullptr : t_sources.back();
}

std::string formatOffsets(const PartitionOffsets &o)
{
    std::string s = "{";
    for (const auto &[p, off] : o) {
        if (s.size() > 1)
            s += ", ";
        s += std::to_string(p) + ":" + std::to_string(off);
    }
    return s + "}";
}

RecoveryDecision decideRecovery(const PartitionOffsets &latest,
                                const std::optional<PartitionOffsets> &previous,
                                const PartitionOffsets &committed)
{
    // Only partitions the transaction touched matter; others may belong to other members.
    PartitionOffsets relevant;
    for (const auto &[p, off] : committed)
        if (latest.count(p) || (previous && previous->count(p)))
            relevant[p] = off;
    if (!latest.empty() && matches(latest, relevant))
        return {Recovery::UseLatest, "group offsets " + formatOffsets(relevant)
                                         + " equal the latest checkpoint's transaction"};
    if (previous) {
        if (matches(*previous, relevant))
            return {Recovery::UsePrevious,
                    "group offsets " + formatOffsets(relevant)
                        + " equal the previous checkpoint's: the latest transaction ("
                        + formatOffsets(latest) + ") was aborted"};
    } else if (relevant.empty()) {
        return {Recovery::UsePrevious, "no offsets committed for the group: the first "
                                       "transaction ("
                                           + formatOffsets(latest)
                                           + ") was aborted; start from the beginning"};
    }
    const std::string neither
        = " match neither the latest checkpoint " + formatOffsets(latest)
          + (previous ? " nor the previous one " + formatOffsets(*previous) : std::string());
    if (relevant.empty())
        return {Recovery::Inconsistent,
                "the broker has no committed offsets for the group on these partitions, so"
                " offsets {}"
                    + neither
                    + ": the group's offsets expired (offsets.retention.minutes) or were deleted,"
                      " or the broker did not store the transaction's offsets"};
    return {Recovery::Inconsistent,
            "group offsets " + formatOffsets(relevant) + neither
                + ": a consumer outside this run committed offsets for the group (another run of"
                  " the pipeline with its own checkpoint folder, or any client using the same"
                  " group.id), or the checkpoint that matches them was deleted"};
}

} // namespace tideline::kafka
