#include "path_conflicts.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/operator.hpp>

#include <filesystem>
#include <sys/stat.h>

namespace tideline {

namespace fs = std::filesystem;

namespace {

enum class Access {
    Read,        ///< a file a node reads (source.file, enrich's table)
    WriteFile,   ///< a file a sink writes (sink.file)
    WriteFolder, ///< a folder a node or the run writes (sink.upsert's table, checkpoints)
};

struct Claim
{
    int node = -1;     ///< -1: the checkpoint folder
    std::string param; ///< "path", "table"; "" for the checkpoint folder
    std::string written;
    fs::path resolved;
    Access access = Access::Read;
    /// Device and inode when the path exists (with a base folder): hard links and bind
    /// mounts name one file under two paths.
    std::uint64_t dev = 0, ino = 0;
};

void identify(Claim &c)
{
    struct stat st
    {
    };
    if (::stat(c.resolved.c_str(), &st) == 0) {
        c.dev = static_cast<std::uint64_t>(st.st_dev);
        c.ino = static_cast<std::uint64_t>(st.st_ino);
    }
}

/// Normal form: `.`/`..` and doubled separators gone, no trailing separator; with a base
/// folder also absolute and through symlinks (of the part that exists).
fs::path normalise(fs::path p, const std::string &base)
{
    if (!base.empty()) {
        if (p.is_relative())
            p = fs::path(base) / p;
        std::error_code ec;
        fs::path c = fs::weakly_canonical(p, ec);
        p = ec ? p.lexically_normal() : c;
    } else {
        p = p.lexically_normal();
    }
    if (!p.has_filename() && p.has_relative_path())
        p = p.parent_path();
    return p;
}

/// Is `inner` equal to `outer` (0), strictly inside it (1), or neither (-1)?
int relation(const fs::path &inner, const fs::path &outer)
{
    if (inner.is_absolute() != outer.is_absolute())
        return -1; // cannot tell without the pipeline file's folder
    auto i = inner.begin(), o = outer.begin();
    for (; o != outer.end(); ++o, ++i)
        if (i == inner.end() || *i != *o)
            return -1;
    return i == inner.end() ? 0 : 1;
}

bool isReference(const std::string &s)
{
    return s.find("${") != std::string::npos;
}

class Checker
{
public:
    Checker(const PipelineSpec &spec, const PathCheckOptions &options, std::vector<Diagnostic> &out)
        : m_spec(spec)
        , m_options(options)
        , m_out(out)
    {
    }

    void run()
    {
        collect();
        for (std::size_t a = 0; a < m_claims.size(); ++a)
            for (std::size_t b = a + 1; b < m_claims.size(); ++b)
                check(m_claims[a], m_claims[b]);
    }

private:
    void collect()
    {
        for (std::size_t i = 0; i < m_spec.nodes.size(); ++i) {
            const NodeSpec &node = m_spec.nodes[i];
            const NodeKind *kind = findNodeKind(node.kind);
            if (!kind || !node.params.is_object())
                continue;
            for (const auto &d : kind->params) {
                if (d.type != ParamType::Path)
                    continue;
                auto it = node.params.find(d.name);
                if (it == node.params.end() || !it->is_string() || it->get<std::string>().empty())
                    continue;
                Claim c;
                c.node = static_cast<int>(i);
                c.param = d.name;
                c.written = it->get<std::string>();
                c.access = !kind->isSink        ? Access::Read
                           : kind->writesFolder ? Access::WriteFolder
                                                : Access::WriteFile;
                std::string value = c.written;
                if (m_options.resolveReferences) {
                    OperatorContext ctx{node, *kind, m_options.baseDir, SystemClock::instance()};
                    try {
                        value = ctx.resolve(value);
                    } catch (const std::exception &) {
                        continue; // the operator reports it when it opens
                    }
                } else if (isReference(value)) {
                    continue; // known only at run time (Job::create checks it)
                }
                if (value.empty())
                    continue;
                c.resolved = normalise(value, m_options.baseDir);
                if (!m_options.baseDir.empty())
                    identify(c);
                m_claims.push_back(std::move(c));
            }
        }
        // The checkpoint folder (its work/ subfolder holds the spilled state).
        Claim ck;
        ck.access = Access::WriteFolder;
        if (!m_options.checkpointDirOverride.empty()) {
            ck.written = m_options.checkpointDirOverride;
            ck.param = "--checkpoint-dir";
            std::error_code ec;
            fs::path p = fs::absolute(ck.written, ec);
            ck.resolved = normalise(ec ? fs::path(ck.written) : p, m_options.baseDir);
        } else {
            auto it = m_spec.settings.find("checkpoint");
            if (it == m_spec.settings.end() || !it->is_object())
                return;
            auto dir = it->find("dir");
            if (dir == it->end() || !dir->is_string() || dir->get<std::string>().empty())
                return;
            ck.written = dir->get<std::string>();
            ck.param = "settings.checkpoint.dir";
            ck.resolved = normalise(ck.written, m_options.baseDir);
        }
        if (!m_options.baseDir.empty())
            identify(ck);
        m_claims.push_back(std::move(ck));
    }

    std::string describe(const Claim &c) const
    {
        if (c.node < 0)
            return "the checkpoint folder (" + c.param + " `" + c.written + "`)";
        const NodeSpec &n = m_spec.nodes[static_cast<std::size_t>(c.node)];
        return "`" + n.id + "` (" + n.kind + ", nodes[" + std::to_string(c.node) + "].params."
               + c.param + ")";
    }
    static const char *verb(const Claim &c)
    {
        switch (c.access) {
        case Access::Read:
            return "reads";
        case Access::WriteFile:
            return "writes";
        case Access::WriteFolder:
            return "keeps its table in";
        }
        return "";
    }
    static const char *noun(const Claim &c)
    {
        if (c.node < 0)
            return "the checkpoint folder";
        switch (c.access) {
        case Access::Read:
            return "the file this node reads";
        case Access::WriteFile:
            return "the file this node writes";
        case Access::WriteFolder:
            return "this node's table folder";
        }
        return "";
    }
    /// Whether `inner`, inside the checkpoint folder `folder`, lies where the checkpoint
    /// module writes or deletes: chk-N/, manifest-N.json, manifest.json (a savepoint), LOCK,
    /// work/ (spilled state), members/ and tasks/ (consumer groups). Anything else there is
    /// left alone (the systemd unit's layout keeps a pipeline's output next to its
    /// checkpoints, under /var/lib/tideline/NAME/).
    static bool isCheckpointName(const Claim &inner, const Claim &folder)
    {
        const auto rel = inner.resolved.lexically_relative(folder.resolved);
        if (rel.empty() || rel.begin() == rel.end())
            return true;
        const std::string first = rel.begin()->string();
        return first.rfind("chk-", 0) == 0 || first.rfind("manifest", 0) == 0 || first == "LOCK"
               || first == "work" || first == "members" || first == "tasks" || first == "..";
    }

    std::string shown(const Claim &c) const
    {
        std::string s = "`" + c.written + "`";
        if (!m_options.baseDir.empty() && c.resolved.string() != c.written)
            s += " (" + c.resolved.string() + ")";
        return s;
    }

    void check(const Claim &a, const Claim &b)
    {
        if (a.access == Access::Read && b.access == Access::Read)
            return; // two readers of one file are fine
        int rel
            = a.ino != 0 && a.ino == b.ino && a.dev == b.dev ? 0 : relation(b.resolved, a.resolved);
        const Claim *inner = &b, *outer = &a;
        if (rel < 0) {
            rel = relation(a.resolved, b.resolved);
            inner = &a;
            outer = &b;
        }
        if (rel < 0)
            return;
        if (rel > 0 && outer->node < 0 && !isCheckpointName(*inner, *outer))
            return; // next to the checkpoints: retention and --fresh never touch it
        // The diagnostic goes on a node (never the settings), the writer if only one writes,
        // else the later one in the file.
        const Claim *me = &b, *other = &a;
        if (b.node < 0 || (a.node >= 0 && a.access != Access::Read && b.access == Access::Read))
            std::swap(me, other);
        std::string msg;
        if (rel == 0) {
            if (other->node < 0)
                msg = shown(*me) + " is also the checkpoint folder (" + other->param
                      + "): checkpoints would be written over " + noun(*me)
                      + ", or the other way round; give each its own path";
            else if (me->access == Access::WriteFile && other->access == Access::Read)
                msg = "writes " + shown(*me) + ", the file " + describe(*other)
                      + " reads: the sink would overwrite its own input (it empties the file "
                        "when it starts); write to another file";
            else if (me->access == Access::WriteFile && other->access == Access::WriteFile)
                msg = describe(*other) + " and this node both write " + shown(*me)
                      + ": their lines would interleave and cut each other; give each sink a "
                        "file of its own, or send both streams into one sink.file (its input "
                        "takes several edges)";
            else
                msg = shown(*me) + " is " + noun(*me) + ", and " + describe(*other) + " "
                      + verb(*other) + " it too: they would destroy each other's data; give "
                      + "each its own path";
        } else if (outer->access == Access::WriteFolder) {
            const std::string where
                = outer->node < 0
                      ? "the checkpoint folder (" + outer->param + " " + shown(*outer) + ")"
                  : outer == me ? "this node's table folder " + shown(*outer)
                                : "the table folder " + shown(*outer) + " of " + describe(*outer);
            const char *why = outer->node < 0 ? "the run writes, spills state and deletes files "
                                                "under that name there (retention, --fresh)"
                                              : "RocksDB owns that folder (it creates, renames "
                                                "and deletes files in it)";
            if (inner == me)
                msg = shown(*me) + ", " + noun(*me) + ", is inside " + where + ": " + why
                      + "; move one of them out of the other";
            else
                msg = shown(*inner) + ", which " + describe(*inner) + " " + verb(*inner)
                      + ", is inside " + where + ": " + why + "; move one of them out of the other";
        } else {
            // Something inside what is a file: one of the two cannot exist.
            msg = shown(*inner) + (inner->node < 0 ? ", " + describe(*inner) + "," : "")
                  + " is inside " + shown(*outer) + ", which "
                  + (outer == me ? std::string("this node") : describe(*outer)) + " "
                  + (outer->access == Access::Read ? "reads" : "writes")
                  + " as a file: a path cannot be both a file and a folder; choose another path";
        }
        Diagnostic d;
        d.nodeIndex = me->node;
        d.nodeId = m_spec.nodes[static_cast<std::size_t>(me->node)].id;
        d.path = "nodes[" + std::to_string(me->node) + "].params." + me->param;
        d.param = me->param;
        d.message = msg;
        m_out.push_back(std::move(d));
    }

    const PipelineSpec &m_spec;
    const PathCheckOptions &m_options;
    std::vector<Diagnostic> &m_out;
    std::vector<Claim> m_claims;
};

} // namespace

void checkPathConflicts(const PipelineSpec &spec,
                        const PathCheckOptions &options,
                        std::vector<Diagnostic> &out)
{
    Checker(spec, options, out).run();
}

} // namespace tideline
