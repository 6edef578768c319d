#pragma once
// The files and folders a pipeline reads and writes, and the overlaps that destroy data: a
// sink.file writing the file a source.file (or an enrich table) reads, two sinks writing one
// file, and a folder the run writes (the checkpoint folder, a sink.upsert table) that is, holds
// or lies inside another node's file. Used by validate() (paths as written, or resolved
// against the pipeline file's folder when it is known) and by Job::create (resolved exactly
// as the operators resolve them: ${env:...} references, --checkpoint-dir).

#include <tideline/engine/spec.hpp>

#include <string>
#include <vector>

namespace tideline {

struct PathCheckOptions
{
    /// Folder of the pipeline file; "" compares relative paths lexically among themselves.
    /// When set, paths are made absolute against it and symlinks are resolved.
    std::string baseDir;
    /// --checkpoint-dir (overrides settings.checkpoint.dir; absolute or relative to the
    /// working directory, as the runner passes it).
    std::string checkpointDirOverride;
    /// Resolve ${env:NAME} / ${file:...} like the operators do (Job::create); otherwise paths
    /// holding a reference are left out.
    bool resolveReferences = false;
};

/// Errors for every overlapping pair, on the node whose param is at fault (the writer).
void checkPathConflicts(const PipelineSpec &spec,
                        const PathCheckOptions &options,
                        std::vector<Diagnostic> &out);

} // namespace tideline
