#pragma once
// The Nexmark person/auction/bid generator (Flink nexmark harness semantics), as a pure
// function of (config, event count): event k of a run can be produced without producing the
// events before it, so a checkpoint needs only the count and replays are identical.
//
// Algorithm (see docs/reference/nexmark.md and the shared Nexmark reference):
//   eventNumber = firstEventNumber + k; adjusted by the out-of-order group permutation;
//   eventId = firstEventId + adjusted; time = baseTime + (long)(adjusted * delayUs) / 1000
//   with delayUs = 1e6 / rate * generators; the type is fixed by eventId % (1+3+46).
// Randomness: every event draws from its own xoshiro256** stream seeded with
// SplitMix64(seed, eventId) (Flink uses an unseeded SplittableRandom; Beam and nexmark-rs
// seed per event id too), in the Java generators' call order.

#include <tideline/engine/record.hpp>
#include <tideline/engine/spec.hpp>

#include <cstdint>
#include <string>

namespace tideline::nexmark {

struct GeneratorConfig
{
    std::int64_t count = 1000; ///< events to generate; 0 = unbounded
    double ratePerS = 10000;   ///< Flink first-event.rate (TPS)
    int generators = 1;        ///< Flink numEventGenerators used in the delay formula
    std::int64_t baseTime = 1700000000000LL;
    std::uint64_t seed = 0;
    std::int64_t firstEventId = 1;     ///< Flink's table source: 1
    std::int64_t firstEventNumber = 1; ///< Flink's table source: 1
    int personProportion = 1;
    int auctionProportion = 3;
    int bidProportion = 46;
    int hotAuctionRatio = 2;
    int hotBiddersRatio = 4;
    int hotSellersRatio = 4;
    int numInFlightAuctions = 100;
    int numActivePeople = 1000;
    int avgPersonBytes = 200;
    int avgAuctionBytes = 500;
    int avgBidBytes = 100;
    int outOfOrderGroupSize = 1;
    bool flinkBidderDoubleOffset = false; ///< reproduce Flink's `bidder += 1000` twice

    int totalProportion() const { return personProportion + auctionProportion + bidProportion; }
    double interEventDelayUs() const { return 1e6 / ratePerS * generators; }

    /// Reads a source.nexmark params object (missing keys keep their defaults).
    static GeneratorConfig fromParams(const Json &params);
};

enum EventType : int { Person = 0, Auction = 1, Bid = 2 };

class Generator
{
public:
    explicit Generator(const GeneratorConfig &cfg);

    /// Fills `out` (cleared first) with event number k (0-based count of this generator).
    void make(std::int64_t k, Record &out);

    /// make() in two steps, so a source can plan event k + 1 (draw its random values and
    /// prefetch the strings it will copy) before writing event k.
    struct Plan
    {
        std::int64_t k = -1;
        int type = 0;
        std::int64_t eventId = 0, ts = 0;
        std::int64_t auction = 0, bidder = 0, price = 0; // bids only
        std::string_view channel, url, extra;            // bids only
    };
    void plan(std::int64_t k, Plan &p);
    void write(const Plan &p, Record &out);

    /// Event time of event k (ms).
    std::int64_t timestampOf(std::int64_t k) const;

    const GeneratorConfig &config() const { return m_cfg; }

    struct Rng; ///< per-event random stream (defined in the .cpp)

private:
    std::int64_t adjustedNumber(std::int64_t k) const;
    std::int64_t timestampForNumber(std::int64_t eventNumber) const;
    void split(std::int64_t eventId, std::int64_t &epoch, std::int64_t &offset) const;
    std::int64_t lastBase0PersonId(std::int64_t eventId) const;
    std::int64_t lastBase0AuctionId(std::int64_t eventId) const;

    std::int64_t nextBase0PersonId(std::int64_t eventId, Rng &rng) const;
    std::int64_t nextBase0AuctionId(std::int64_t eventId, Rng &rng) const;
    std::int64_t nextPrice(Rng &rng) const;
    void nextString(Rng &rng, int maxLength, char special, std::string &out) const;
    std::string_view nextExtra(Rng &rng, int currentSize, int desiredAverageSize) const;

    void makePerson(std::int64_t eventId, std::int64_t ts, Rng &rng, Record &out);
    void makeAuction(std::int64_t k, std::int64_t eventId, std::int64_t ts, Rng &rng, Record &out);
    void planBid(Plan &p) const;
    void writeBid(const Plan &p, Record &out) const;
    std::uint64_t seedFor(std::int64_t eventId) const
    {
        return static_cast<std::uint64_t>(eventId) ^ (m_cfg.seed * 0xd1b54a32d192ed03ULL);
    }

    GeneratorConfig m_cfg;
    double m_delayUs;
    std::int64_t m_total; ///< totalProportion()
    /// The last eventId split into (epoch, offset) of the proportions cycle.
    mutable std::int64_t m_splitId = -1, m_splitEpoch = 0, m_splitOffset = 0;
    std::string m_s1, m_s2, m_s3; ///< scratch strings (reused)
};

} // namespace tideline::nexmark
