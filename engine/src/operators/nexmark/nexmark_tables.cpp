// The Nexmark generator's process-wide tables (the `extra` pool, hot URLs, the channel cache,
// card groups), built once from fixed seeds; cold code, apart from the per-event generator.
#include "operators/nexmark/nexmark_tables.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tideline::nexmark {

namespace {

std::string baseUrl(Generator::Rng &rng)
{
    std::string u = "https://www.nexmark.com/";
    tableString(rng, 5, '_', u);
    u += '/';
    tableString(rng, 5, '_', u);
    u += '/';
    tableString(rng, 5, '_', u);
    u += "/item.htm?query=1";
    return u;
}

} // namespace

Tables buildTables()
{
    Tables x;
    Generator::Rng rng(0x6e65786d61726bULL); // "nexmark"
    x.extraPool.resize(kExtraPool);
    for (auto &c : x.extraPool)
        c = static_cast<char>('a' + rng.nextInt(26));
    for (auto &u : x.hotUrls)
        u = baseUrl(rng);
    x.channelNames.resize(kChannels);
    x.channelUrls.resize(kChannels);
    for (int c = 0; c < kChannels; ++c) {
        x.channelNames[static_cast<std::size_t>(c)] = "channel-" + std::to_string(c);
        std::string url = baseUrl(rng);
        if (rng.nextInt(10) > 0) {
            // Java: Math.abs(Integer.reverse(c)); abs(MIN_VALUE) stays MIN_VALUE.
            std::uint32_t r = 0;
            for (int b = 0; b < 32; ++b)
                if (static_cast<std::uint32_t>(c) & (1u << b))
                    r |= 1u << (31 - b);
            auto v = static_cast<std::int32_t>(r);
            std::int64_t a = v == INT32_MIN ? v : std::abs(v);
            url += "&channel_id=" + std::to_string(a);
        }
        x.channelUrls[static_cast<std::size_t>(c)] = std::move(url);
    }
    std::size_t total = 0;
    for (int c = 0; c < kChannels; ++c)
        total += x.channelNames[static_cast<std::size_t>(c)].size()
                 + x.channelUrls[static_cast<std::size_t>(c)].size();
    x.packed.reserve(total);
    std::vector<std::pair<std::size_t, std::size_t>> offs;
    for (int c = 0; c < kChannels; ++c) {
        offs.push_back({x.packed.size(), x.channelNames[static_cast<std::size_t>(c)].size()});
        x.packed += x.channelNames[static_cast<std::size_t>(c)];
        offs.push_back({x.packed.size(), x.channelUrls[static_cast<std::size_t>(c)].size()});
        x.packed += x.channelUrls[static_cast<std::size_t>(c)];
    }
    for (std::size_t i = 0; i < offs.size(); i += 2) {
        if (offs[i].second > 255 || offs[i + 1].second > 255)
            throw std::logic_error("nexmark: channel name or URL longer than 255 bytes");
        x.channelRefs.push_back((std::uint64_t(offs[i].first) << 16)
                                | (std::uint64_t(offs[i].second) << 8) | offs[i + 1].second);
    }
    for (int i = 0; i < 10000; ++i) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "%04d", i);
        x.cardGroups[static_cast<std::size_t>(i)] = buf;
    }
    return x;
}

} // namespace tideline::nexmark
