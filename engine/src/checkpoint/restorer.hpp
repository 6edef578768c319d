#pragma once
// The restorer: starts a job from saved state. It finds the checkpoint to use (the newest
// complete and usable one in a folder, falling back to older ones; or a savepoint), matches
// the saved nodes to the job's by id, refuses state that does not fit an edited node (unless
// --reset-state), and restores. A partition task's instances are not restored here: their
// state is stashed with the consumer-group member (member.hpp) until the partition is
// assigned.
//
// restoreNode() is the one way a node's state goes back: the operator's bytes, then the
// runtime's side (RuntimePort::restoreNode). Both a whole-job restore and a partition's
// adoption use it.

#include "checkpoint/runtime_port.hpp"
#include "checkpoint/store.hpp"

#include <map>
#include <string>

namespace tideline::checkpoint {

class GroupMember;

/// "" when the saved entry fits the node as configured now (same kind and fingerprint), else
/// what differs ("kind a -> b", "saved `x`, now `y`").
std::string stateMismatch(const NodeEntry &saved, const NodeInfo &node, const std::string &fp);

/// Restores one node: `blob` into its operator (restoreState), then the runtime's side from
/// `saved`. Fails naming the node; EarlierCheckpointNeeded passes through to the caller.
[[nodiscard]] Status
restoreNode(RuntimePort &rt, int node, const NodeEntry &saved, const std::string &blob);

class Restorer
{
public:
    Restorer(RuntimePort &rt, const Settings &settings, GroupMember &member);

    /// The newest complete, usable checkpoint in `dir` (none: starts empty, unless
    /// `explicitRestore`, i.e. --restore named the folder).
    [[nodiscard]] Status fromCheckpointDir(const std::string &dir, bool explicitRestore);
    /// The savepoint in `dir` (--restore).
    [[nodiscard]] Status fromSavepoint(const std::string &dir);
    /// The id of the checkpoint or savepoint restored (0: none).
    std::int64_t restoredId() const { return m_restoredId; }

private:
    /// Matches state to nodes by id, reports restored/new/incompatible, restores.
    [[nodiscard]] Status apply(const Manifest &m,
                               std::map<std::string, std::string> &blobs,
                               const std::string &origin,
                               bool verbose);

    RuntimePort &m_rt;
    const Settings &m_settings;
    GroupMember &m_member;
    std::int64_t m_restoredId = 0;
};

} // namespace tideline::checkpoint
