#pragma once
// Keyed state that a parallel stage (runtime/parallel.hpp) can checkpoint as ONE node and
// restore at any parallelism (issue 22). A stage's N instances hold disjoint sets of keys (a
// key's key group picks its instance); a checkpoint must not depend on N, or a run could not
// be restarted on a machine with other cores, nor after `--parallelism` changed. So a stage
// saves what the single-instance node would have saved, in that operator's own snapshot
// format: the instances' state merged (snapshotMerged), and a restore at M splits that one
// state again by key (restoreKeyed, each instance keeping its key groups' keys). The format
// stays the operator's, so a state saved at N restores at 1 with plain restoreState and a
// state saved at 1 restores at M, with no conversion and no parallelism in the manifest or
// the state fingerprint.
//
// Why the operator and not the stage does the merge: only the operator knows its format (its
// accumulators' compact encoding, its timers), and it can read its sibling instances' memory
// directly (they are its own class), so a merge costs what one snapshot costs, not a parse and
// a rewrite of N blobs.
//
// An operator that does not implement it runs single-threaded when checkpoints or savepoints
// are on (parallel_plan.cpp says so in the run's log).

#include <tideline/engine/operator.hpp>
#include <tideline/engine/state_io.hpp>

#include <functional>
#include <string_view>
#include <vector>

namespace tideline::checkpoint {

/// Does this instance keep the key (bytes as the operator encodes keys in its state)?
using KeepKey = std::function<bool(std::string_view encodedKey)>;

class KeyedState
{
public:
    virtual ~KeyedState() = default;

    /// Writes, in snapshotState()'s format, the state of `instances` (this operator among
    /// them; all of its class and params, with disjoint keys, at the same watermark: the
    /// stage calls it with no round in flight) as one instance holding all their keys would.
    /// Loop thread; the instances are idle. Throws when it cannot (the checkpoint fails).
    virtual void snapshotMerged(const std::vector<const Operator *> &instances,
                                StateWriter &w) const = 0;

    /// restoreState(), keeping only the keys `keep` accepts. Everything not keyed (the
    /// watermark, timers' times) is restored by every instance; node-wide counters that the
    /// stage's metrics add up over its instances (duplicates dropped) only where `first`,
    /// so that they are not counted M times.
    virtual void restoreKeyed(StateReader &r, const KeepKey &keep, bool first) = 0;
};

} // namespace tideline::checkpoint
