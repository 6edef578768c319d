// FieldProjection (record_json.hpp): which field names a record's reader needs. The test runs
// once per name the fast path meets for the first time (its answer is cached in the name's
// slot, json_fast_path.cpp), so it is a plain scan of a handful of paths.
#include <tideline/engine/record_json.hpp>

#include <atomic>

namespace tideline {

namespace {

/// `inner` is `outer` or a path under it: outer, then '.', then more segments.
bool within(std::string_view inner, std::string_view outer)
{
    return inner.size() >= outer.size() && inner.substr(0, outer.size()) == outer
           && (inner.size() == outer.size() || inner[outer.size()] == '.');
}

} // namespace

std::unique_ptr<FieldProjection> FieldProjection::of(const std::vector<std::string> &paths,
                                                     std::string &error)
{
    auto p = std::make_unique<FieldProjection>();
    for (const std::string &path : paths) {
        std::string canonical;
        if (!fieldpath::canonical(path, canonical, error)) {
            error = "field path `" + path + "`: " + error;
            return nullptr;
        }
        p->m_paths.push_back(std::move(canonical));
    }
    static std::atomic<std::uint32_t> made{0};
    do
        p->m_id = ++made;
    while (p->m_id == 0); // 0 is a slot's "not asked yet"
    return p;
}

bool FieldProjection::keeps(std::string_view name) const
{
    for (const std::string &path : m_paths)
        if (within(name, path) || within(path, name))
            return true;
    return false;
}

} // namespace tideline
