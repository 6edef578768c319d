#include "checkpoint/crash_point.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace tideline::checkpoint {

namespace {
struct Config
{
    std::string point;
    long at = 1;
    long hits = 0;
};

Config &config()
{
    static Config c = [] {
        Config cfg;
        if (const char *v = std::getenv("TIDELINE_CRASH_AT")) {
            std::string s = v;
            if (auto colon = s.find(':'); colon != std::string::npos) {
                cfg.at = std::max(1L, std::strtol(s.c_str() + colon + 1, nullptr, 10));
                s.resize(colon);
            }
            cfg.point = s;
        }
        return cfg;
    }();
    return c;
}
std::mutex g_mutex;
} // namespace

void crashPoint(std::string_view point)
{
    Config &c = config();
    if (c.point.empty() || c.point != point)
        return;
    std::lock_guard lock(g_mutex);
    if (++c.hits < c.at)
        return;
    std::fprintf(stderr, "tideline: TIDELINE_CRASH_AT=%s: aborting at crash point (hit %ld)\n",
                 c.point.c_str(), c.hits);
    std::fflush(stderr);
    std::abort();
}

} // namespace tideline::checkpoint
