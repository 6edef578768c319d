// The Nexmark source: its catalog entry (ports, params, traits) and its implementation (factory and
// validator, defined with the operator next to this file).

#include "operators/kind_def.hpp"

namespace tideline {

using namespace describe;

namespace {
constexpr double kMaxNexmarkAvgSize = 500000;
} // namespace

KindDef nexmarkSourceKind()
{
    KindDef kind;
    NodeKind &n = kind.desc;
    n.kind = "source.nexmark";
    n.displayName = "Nexmark";
    n.category = "Sources";
    n.help = "The Nexmark benchmark stream (persons, auctions, bids in 1:3:46) with Flink's "
             "generator defaults; records {event_type, person|auction|bid: {...}, dateTime}.";
    n.isSource = true;
    n.outputs = {data("out"), errors()};
    n.params = {
        range(def(p("count", ParamType::Int, "Events to generate (0 = unbounded)."), 1000), 0),
        range(def(p("rate_per_s", ParamType::Number,
                    "Event-time density: events per second of event time (Flink's "
                    "first-event.rate)."),
                  10000),
              0.001),
        range(def(p("generators", ParamType::Int,
                    "Flink's numEventGenerators in the delay formula (1e6/rate x generators "
                    "us per event): 8 reproduces the auction lengths of an 8-way Flink run, "
                    "and the density becomes rate_per_s / generators."),
                  1),
              1, 1024),
        def(p("base_time", ParamType::Int,
              "Event time origin in epoch ms (Flink uses the start time; fixed here so runs "
              "repeat exactly)."),
            1700000000000LL),
        def(p("seed", ParamType::Int, "Mixed into every event's random stream."), 0),
        range(def(p("person_proportion", ParamType::Int, "Persons per 50 events."), 1), 1),
        range(def(p("auction_proportion", ParamType::Int, "Auctions per 50 events."), 3), 1),
        range(def(p("bid_proportion", ParamType::Int, "Bids per 50 events."), 46), 0),
        range(def(p("hot_auction_ratio", ParamType::Int,
                    "A bid goes to the hot auction with probability 1 - 1/ratio."),
                  2),
              1),
        range(def(p("hot_bidders_ratio", ParamType::Int,
                    "A bid comes from the hot bidder with probability 1 - 1/ratio."),
                  4),
              1),
        range(def(p("hot_sellers_ratio", ParamType::Int,
                    "An auction is by the hot seller with probability 1 - 1/ratio."),
                  4),
              1),
        range(def(p("in_flight_auctions", ParamType::Int,
                    "Live auctions bids choose from; sets auction lengths."),
                  100),
              1),
        range(def(p("active_people", ParamType::Int,
                    "Persons bidders and sellers are drawn "
                    "from."),
                  1000),
              1),
        // The padding is cut from a 1 MiB pool, up to 1.2 x the average.
        range(def(p("person_avg_size", ParamType::Int, "Average person size (sizes extra)."), 200),
              0, kMaxNexmarkAvgSize),
        range(
            def(p("auction_avg_size", ParamType::Int, "Average auction size (sizes extra)."), 500),
            0, kMaxNexmarkAvgSize),
        range(def(p("bid_avg_size", ParamType::Int, "Average bid size (sizes extra)."), 100), 0,
              kMaxNexmarkAvgSize),
        range(def(p("out_of_order_group_size", ParamType::Int,
                    "Events are permuted within groups of this size (1 = in order)."),
                  1),
              1),
        fields(p("compat", ParamType::Object, "Reproduce known quirks of other generators."),
               {def(p("flink_bidder_double_offset", ParamType::Bool,
                      "Flink adds 1000 to bid.bidder twice; true reproduces that."),
                    false)}),
        paceParam(),
    };
    kind.impl = {&makeNexmarkSource, &validateNexmarkSource, nullptr, nullptr};
    return kind;
}

} // namespace tideline
