#include "operators/nexmark/nexmark_generator.hpp"

#include "operators/nexmark/nexmark_tables.hpp"
#include "operators/params.hpp"

#include <tideline/engine/catalog.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tideline::nexmark {

namespace {

constexpr std::int64_t kFirstPersonId = 1000;
constexpr std::int64_t kFirstAuctionId = 1000;
constexpr std::int64_t kFirstCategoryId = 10;
constexpr int kNumCategories = 5;
constexpr int kPersonIdLead = 10;
constexpr int kAuctionIdLead = 10;
constexpr int kHotSellerBatch = 100; // HOT_SELLER_RATIO in the Java sources
constexpr int kHotAuctionBatch = 100;
constexpr int kHotBidderBatch = 100;
constexpr int kHotChannelsRatio = 2;

constexpr std::array<std::string_view, 11> kFirstNames = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"};
constexpr std::array<std::string_view, 9> kLastNames
    = {"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"};
constexpr std::array<std::string_view, 10> kCities
    = {"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
       "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
constexpr std::array<std::string_view, 6> kStates = {"AZ", "CA", "ID", "OR", "WA", "WY"};
constexpr std::array<std::string_view, 4> kHotChannels = {"Google", "Facebook", "Baidu", "Apple"};

const Tables &tables()
{
    static const Tables t = buildTables();
    return t;
}

} // namespace

GeneratorConfig GeneratorConfig::fromParams(const Json &params)
{
    // Missing keys read as the catalog's defaults, which are the initialisers above (Flink's).
    static const NodeKind &kind = *findNodeKind("source.nexmark");
    const NodeParams p(kind, params);
    auto small = [&](const char *name) {
        return static_cast<int>(p.integer(name));
    };
    GeneratorConfig c;
    c.count = p.integer("count");
    c.ratePerS = p.number("rate_per_s");
    c.generators = small("generators");
    c.baseTime = p.integer("base_time");
    c.seed = static_cast<std::uint64_t>(p.integer("seed"));
    c.personProportion = small("person_proportion");
    c.auctionProportion = small("auction_proportion");
    c.bidProportion = small("bid_proportion");
    c.hotAuctionRatio = small("hot_auction_ratio");
    c.hotBiddersRatio = small("hot_bidders_ratio");
    c.hotSellersRatio = small("hot_sellers_ratio");
    c.numInFlightAuctions = small("in_flight_auctions");
    c.numActivePeople = small("active_people");
    c.avgPersonBytes = small("person_avg_size");
    c.avgAuctionBytes = small("auction_avg_size");
    c.avgBidBytes = small("bid_avg_size");
    c.outOfOrderGroupSize = small("out_of_order_group_size");
    c.flinkBidderDoubleOffset = p.object("compat").boolean("flink_bidder_double_offset");
    return c;
}

Generator::Generator(const GeneratorConfig &cfg)
    : m_cfg(cfg)
    , m_delayUs(cfg.interEventDelayUs())
    , m_total(cfg.totalProportion())
{
    tables();
}

std::int64_t Generator::adjustedNumber(std::int64_t k) const
{
    std::int64_t eventNumber = m_cfg.firstEventNumber + k;
    std::int64_t n = m_cfg.outOfOrderGroupSize;
    if (n <= 1)
        return eventNumber;
    return (eventNumber / n) * n + (eventNumber * 953) % n;
}

std::int64_t Generator::timestampForNumber(std::int64_t eventNumber) const
{
    // Java: baseTime + (long)(eventNumber * interEventDelayUs) / 1000L
    return m_cfg.baseTime
           + static_cast<std::int64_t>(static_cast<double>(eventNumber) * m_delayUs) / 1000;
}

std::int64_t Generator::timestampOf(std::int64_t k) const
{
    return timestampForNumber(adjustedNumber(k));
}

void Generator::split(std::int64_t eventId, std::int64_t &epoch, std::int64_t &offset) const
{
    // A bid asks for its event id's epoch and offset up to four times: one division, not four
    // (a 64-bit division costs as much as the rest of the id arithmetic).
    if (eventId != m_splitId) {
        m_splitId = eventId;
        m_splitEpoch = eventId / m_total;
        m_splitOffset = eventId - m_splitEpoch * m_total;
    }
    epoch = m_splitEpoch;
    offset = m_splitOffset;
}

std::int64_t Generator::lastBase0PersonId(std::int64_t eventId) const
{
    std::int64_t epoch, offset;
    split(eventId, epoch, offset);
    if (offset >= m_cfg.personProportion)
        offset = m_cfg.personProportion - 1;
    return epoch * m_cfg.personProportion + offset;
}

std::int64_t Generator::lastBase0AuctionId(std::int64_t eventId) const
{
    std::int64_t epoch, offset;
    split(eventId, epoch, offset);
    if (offset < m_cfg.personProportion) {
        --epoch;
        offset = m_cfg.auctionProportion - 1;
    } else if (offset >= m_cfg.personProportion + m_cfg.auctionProportion) {
        offset = m_cfg.auctionProportion - 1;
    } else {
        offset -= m_cfg.personProportion;
    }
    return epoch * m_cfg.auctionProportion + offset;
}

std::int64_t Generator::nextBase0PersonId(std::int64_t eventId, Rng &rng) const
{
    std::int64_t numPeople = lastBase0PersonId(eventId) + 1;
    std::int64_t active = std::min<std::int64_t>(numPeople, m_cfg.numActivePeople);
    std::int64_t n = rng.nextLong(active + kPersonIdLead);
    return numPeople - active + n;
}

std::int64_t Generator::nextBase0AuctionId(std::int64_t eventId, Rng &rng) const
{
    std::int64_t maxAuction = lastBase0AuctionId(eventId);
    std::int64_t minAuction = std::max<std::int64_t>(maxAuction - m_cfg.numInFlightAuctions, 0);
    return minAuction + rng.nextLong(maxAuction - minAuction + 1 + kAuctionIdLead);
}

std::int64_t Generator::nextPrice(Rng &rng) const
{
    // Math.round(Math.pow(10.0, u * 6.0) * 100.0): log-uniform over [100, 1e8] cents.
    // exp(u * 6 ln 10) is the same function and cheaper than pow.
    double x = std::exp(rng.nextDouble() * 13.815510557964274) * 100.0;
    return static_cast<std::int64_t>(std::floor(x + 0.5));
}

void Generator::nextString(Rng &rng, int maxLength, char special, std::string &out) const
{
    out.clear();
    tableString(rng, maxLength, special, out);
    // Java's String.trim(): drop leading/trailing characters <= ' '.
    std::size_t b = 0, e = out.size();
    while (b < e && static_cast<unsigned char>(out[b]) <= ' ')
        ++b;
    while (e > b && static_cast<unsigned char>(out[e - 1]) <= ' ')
        --e;
    if (b > 0 || e < out.size())
        out = out.substr(b, e - b);
}

std::string_view Generator::nextExtra(Rng &rng, int currentSize, int desiredAverageSize) const
{
    if (currentSize > desiredAverageSize)
        return {};
    int avg = desiredAverageSize - currentSize;
    int delta = static_cast<int>(std::floor(avg * 0.2 + 0.5)); // Math.round
    int size = avg - delta + (delta == 0 ? 0 : static_cast<int>(rng.nextInt(2u * delta)));
    const std::string &pool = tables().extraPool;
    std::size_t off
        = rng.nextInt(static_cast<std::uint32_t>(pool.size() - static_cast<std::size_t>(size)));
    return std::string_view(pool).substr(off, static_cast<std::size_t>(size));
}

void Generator::make(std::int64_t k, Record &out)
{
    Plan p;
    plan(k, p);
    write(p, out);
}

void Generator::plan(std::int64_t k, Plan &p)
{
    p.k = k;
    std::int64_t adjusted = adjustedNumber(k);
    p.eventId = m_cfg.firstEventId + adjusted;
    p.ts = timestampForNumber(adjusted);
    std::int64_t epoch, rem;
    split(p.eventId, epoch, rem);
    p.type = rem < m_cfg.personProportion                             ? Person
             : rem < m_cfg.personProportion + m_cfg.auctionProportion ? Auction
                                                                      : Bid;
    if (p.type == Bid)
        planBid(p);
}

void Generator::write(const Plan &p, Record &out)
{
    out.clear();
    if (p.type == Bid) {
        writeBid(p, out);
    } else {
        Rng rng(seedFor(p.eventId));
        if (p.type == Person)
            makePerson(p.eventId, p.ts, rng, out);
        else
            makeAuction(p.k, p.eventId, p.ts, rng, out);
    }
    out.append(StaticPath("dateTime"), Value::integer(p.ts));
}

void Generator::makePerson(std::int64_t eventId, std::int64_t ts, Rng &rng, Record &out)
{
    const Tables &t = tables();
    out.reserve(10, 96);
    out.append(StaticPath("event_type"), Value::integer(Person));
    out.append(StaticPath("person.id"),
               Value::integer(lastBase0PersonId(eventId) + kFirstPersonId));
    std::string &name = m_s1;
    name.assign(kFirstNames[rng.nextInt(kFirstNames.size())]);
    name += ' ';
    name += kLastNames[rng.nextInt(kLastNames.size())];
    out.append(StaticPath("person.name"), Value::string(name));
    std::string &email = m_s2;
    nextString(rng, 7, ' ', email);
    email += '@';
    nextString(rng, 5, ' ', m_s3);
    email += m_s3;
    email += ".com";
    out.append(StaticPath("person.emailAddress"), Value::string(email));
    std::string &card = m_s3;
    card.clear();
    for (int i = 0; i < 4; ++i) {
        if (i)
            card += ' ';
        card += t.cardGroups[rng.nextInt(10000)];
    }
    out.append(StaticPath("person.creditCard"), Value::string(card));
    std::string_view city = kCities[rng.nextInt(kCities.size())];
    std::string_view state = kStates[rng.nextInt(kStates.size())];
    out.append(StaticPath("person.city"), Value::staticString(city));
    out.append(StaticPath("person.state"), Value::staticString(state));
    out.append(StaticPath("person.dateTime"), Value::integer(ts));
    int size = static_cast<int>(8 + name.size() + email.size() + card.size() + city.size()
                                + state.size());
    out.append(StaticPath("person.extra"),
               Value::staticString(nextExtra(rng, size, m_cfg.avgPersonBytes)));
}

void Generator::makeAuction(
    std::int64_t k, std::int64_t eventId, std::int64_t ts, Rng &rng, Record &out)
{
    out.reserve(12, 160);
    out.append(StaticPath("event_type"), Value::integer(Auction));
    out.append(StaticPath("auction.id"),
               Value::integer(lastBase0AuctionId(eventId) + kFirstAuctionId));
    std::int64_t seller;
    if (rng.nextInt(static_cast<std::uint32_t>(m_cfg.hotSellersRatio)) > 0)
        seller = (lastBase0PersonId(eventId) / kHotSellerBatch) * kHotSellerBatch;
    else
        seller = nextBase0PersonId(eventId, rng);
    seller += kFirstPersonId;
    std::int64_t category = kFirstCategoryId + rng.nextInt(kNumCategories);
    std::int64_t initialBid = nextPrice(rng);
    // Auction length: on average the time until numInFlightAuctions more auctions exist.
    std::int64_t current = adjustedNumber(k);
    std::int64_t eventsForAuctions
        = (static_cast<std::int64_t>(m_cfg.numInFlightAuctions) * m_cfg.totalProportion())
          / m_cfg.auctionProportion;
    std::int64_t horizon = timestampForNumber(current + eventsForAuctions) - ts;
    std::int64_t expires = ts + 1 + rng.nextLong(std::max<std::int64_t>(horizon * 2, 1));
    nextString(rng, 20, ' ', m_s1);
    nextString(rng, 100, ' ', m_s2);
    std::int64_t reserve = initialBid + nextPrice(rng);
    int size = static_cast<int>(8 + m_s1.size() + m_s2.size() + 8 + 8 + 8 + 8 + 8);
    std::string_view extra = nextExtra(rng, size, m_cfg.avgAuctionBytes);
    out.append(StaticPath("auction.itemName"), Value::string(m_s1));
    out.append(StaticPath("auction.description"), Value::string(m_s2));
    out.append(StaticPath("auction.initialBid"), Value::integer(initialBid));
    out.append(StaticPath("auction.reserve"), Value::integer(reserve));
    out.append(StaticPath("auction.dateTime"), Value::integer(ts));
    out.append(StaticPath("auction.expires"), Value::integer(expires));
    out.append(StaticPath("auction.seller"), Value::integer(seller));
    out.append(StaticPath("auction.category"), Value::integer(category));
    out.append(StaticPath("auction.extra"), Value::staticString(extra));
}

void Generator::planBid(Plan &p) const
{
    const Tables &t = tables();
    Rng rng(seedFor(p.eventId));
    std::int64_t auction;
    if (rng.nextInt(static_cast<std::uint32_t>(m_cfg.hotAuctionRatio)) > 0)
        auction = (lastBase0AuctionId(p.eventId) / kHotAuctionBatch) * kHotAuctionBatch;
    else
        auction = nextBase0AuctionId(p.eventId, rng);
    p.auction = auction + kFirstAuctionId;
    std::int64_t bidder;
    if (rng.nextInt(static_cast<std::uint32_t>(m_cfg.hotBiddersRatio)) > 0)
        bidder = (lastBase0PersonId(p.eventId) / kHotBidderBatch) * kHotBidderBatch + 1;
    else
        bidder = nextBase0PersonId(p.eventId, rng);
    bidder += kFirstPersonId;
    if (m_cfg.flinkBidderDoubleOffset)
        bidder += kFirstPersonId; // Flink's BidGenerator adds FIRST_PERSON_ID twice
    p.bidder = bidder;
    p.price = nextPrice(rng);
    if (rng.nextInt(kHotChannelsRatio) > 0) {
        std::uint32_t i = rng.nextInt(kHotChannels.size());
        p.channel = kHotChannels[i];
        p.url = t.hotUrls[i];
    } else {
        std::uint32_t c = rng.nextInt(kChannels);
        std::uint64_t ref = t.channelRefs[c];
        const char *name = t.packed.data() + (ref >> 16);
        std::size_t nameLen = (ref >> 8) & 0xff;
        p.channel = std::string_view(name, nameLen);
        p.url = std::string_view(name + nameLen, ref & 0xff);
    }
    p.extra = nextExtra(rng, 8 + 8 + 8 + 8, m_cfg.avgBidBytes);
    // The extra slice is a random spot of a 1 MiB pool and the channel URL one of 10,000:
    // both usually miss the cache. The source plans the next event before writing this one,
    // so these loads overlap with a whole event's work instead of stalling the copy.
    for (std::size_t o = 0; o < p.extra.size(); o += 64)
        __builtin_prefetch(p.extra.data() + o);
    for (std::size_t o = 0; o < p.url.size(); o += 64)
        __builtin_prefetch(p.url.data() + o);
}

void Generator::writeBid(const Plan &p, Record &out) const
{
    out.reserve(9, 0); // names and strings are process-lifetime: no arena bytes
    out.append(StaticPath("event_type"), Value::integer(Bid));
    out.append(StaticPath("bid.auction"), Value::integer(p.auction));
    out.append(StaticPath("bid.bidder"), Value::integer(p.bidder));
    out.append(StaticPath("bid.price"), Value::integer(p.price));
    out.append(StaticPath("bid.channel"), Value::staticString(p.channel));
    out.append(StaticPath("bid.url"), Value::staticString(p.url));
    out.append(StaticPath("bid.dateTime"), Value::integer(p.ts));
    out.append(StaticPath("bid.extra"), Value::staticString(p.extra));
}

} // namespace tideline::nexmark
