// source.kafka / sink.kafka configuration safety: the property allowlist, refused keys,
// secrets only as references and never echoed (no broker needed).

#include "connectors/kafka/kafka_config.hpp"

#include <tideline/engine/client_log.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

using namespace tideline;
using kafka::Role;

namespace {

Json pipeline(const Json &sourceProps,
              const Json &sinkProps,
              const std::string &delivery = "at_least_once")
{
    return Json{{"format", "tideline/1"},
                {"name", "k"},
                {"nodes", Json::array({Json{{"id", "src"},
                                            {"kind", "source.kafka"},
                                            {"params",
                                             {{"bootstrap_servers", "127.0.0.1:9092"},
                                              {"topic", "in"},
                                              {"bounded", true},
                                              {"properties", sourceProps}}}},
                                       Json{{"id", "out"},
                                            {"kind", "sink.kafka"},
                                            {"params",
                                             {{"bootstrap_servers", "127.0.0.1:9092"},
                                              {"topic", "out"},
                                              {"delivery", delivery},
                                              {"properties", sinkProps}}}}})},
                {"edges", Json::array({Json{{"from", "src.out"}, {"to", "out.in"}}})}};
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<Diagnostic> check(const Json &j)
{
    auto loaded = loadSpec(j.dump());
    std::vector<Diagnostic> all = loaded.diagnostics;
    if (loaded.spec) {
        auto v = validate(*loaded.spec);
        all.insert(all.end(), v.begin(), v.end());
    }
    return all;
}

std::string text(const std::vector<Diagnostic> &ds)
{
    std::string s;
    for (const auto &d : ds)
        s += d.format() + "\n";
    return s;
}

/// Errors only (other nodes' generic pitfall warnings are not this test's business).
std::string errors(const std::vector<Diagnostic> &ds)
{
    std::string s;
    for (const auto &d : ds)
        if (d.isError())
            s += d.format() + "\n";
    return s;
}

} // namespace

class KafkaConfigTest : public QObject
{
    Q_OBJECT
private slots:
    void refusesCodeRunningAndTestKeys_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expect");
        QTest::newRow("kinit") << "sasl.kerberos.kinit.cmd"
                               << "touch /tmp/pwned"
                               << "run code";
        QTest::newRow("plugins") << "plugin.library.paths"
                                 << "/tmp/evil.so"
                                 << "run code";
        QTest::newRow("engine") << "ssl.engine.location"
                                << "/tmp/e.so"
                                << "run code";
        QTest::newRow("mock") << "test.mock.num.brokers"
                              << "3"
                              << "test setting";
        QTest::newRow("verify") << "enable.ssl.certificate.verification"
                                << "false"
                                << "cannot be switched off";
        QTest::newRow("endpoint") << "ssl.endpoint.identification.algorithm"
                                  << "none"
                                  << "host name verification";
        QTest::newRow("owned") << "group.id"
                               << "other"
                               << "set by the node";
        QTest::newRow("reset") << "auto.offset.reset"
                               << "latest"
                               << "set by the node";
        QTest::newRow("unknown") << "sesion.timeout.ms"
                                 << "6000"
                                 << "did you mean `session.timeout.ms`";
        QTest::newRow("producer-key-on-consumer") << "linger.ms"
                                                  << "5"
                                                  << "producer setting";
    }
    void refusesCodeRunningAndTestKeys()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, expect);
        std::string why
            = kafka::checkProperty(key.toStdString(), value.toStdString(), Role::Consumer);
        QVERIFY2(why.find(expect.toStdString()) != std::string::npos, why.c_str());
        // And through validation, with the node and the JSON path named.
        auto ds = check(pipeline(Json{{key.toStdString(), value.toStdString()}}, Json::object()));
        std::string t = text(ds);
        QVERIFY2(t.find("nodes[0] \"src\": params.properties." + key.toStdString())
                     != std::string::npos,
                 t.c_str());
    }

    void acceptsAllowlistedTuning()
    {
        QCOMPARE(kafka::checkProperty("session.timeout.ms", "6000", Role::Consumer), std::string());
        QCOMPARE(kafka::checkProperty("linger.ms", "5", Role::Producer), std::string());
        QCOMPARE(
            kafka::checkProperty("ssl.endpoint.identification.algorithm", "https", Role::Producer),
            std::string());
        QCOMPARE(
            kafka::checkProperty("enable.ssl.certificate.verification", "true", Role::Consumer),
            std::string());
        // (sasl_ssl alone means GSSAPI, which Debian's librdkafka cannot create a client for:
        // validation says so, as the start would.)
        // A secret that does not resolve here stands in as a placeholder (librdkafka wants
        // one to be set).
        auto ds = check(pipeline(Json{{"session.timeout.ms", "6000"},
                                      {"security.protocol", "sasl_ssl"},
                                      {"sasl.mechanisms", "PLAIN"},
                                      {"sasl.username", "app"},
                                      {"sasl.password", "${env:TIDELINE_TEST_UNSET_PASSWORD}"}},
                                 Json{{"linger.ms", "10"}}));
        QVERIFY2(errors(ds).empty(), errors(ds).c_str());
    }

    void secretsOnlyAsReferencesAndNeverEchoed()
    {
        const std::string marker = "hunter2-SECRET-MARKER";
        auto ds
            = check(pipeline(Json{{"sasl.password", marker}}, Json{{"ssl.key.password", marker}}));
        std::string t = text(ds);
        QVERIFY2(t.find("params.properties.sasl.password") != std::string::npos, t.c_str());
        QVERIFY2(t.find("params.properties.ssl.key.password") != std::string::npos, t.c_str());
        QVERIFY2(t.find("${env:NAME}") != std::string::npos, t.c_str());
        QVERIFY2(t.find(marker) == std::string::npos, "a secret value was echoed in a diagnostic");
        ds = check(pipeline(Json{{"sasl.password", "${env:KAFKA_PASSWORD}"}},
                            Json{{"ssl.key.password", "${file:/run/secrets/key}"}}));
        QVERIFY2(errors(ds).empty(), errors(ds).c_str());
        // A reference with extra text around it is not a reference.
        QVERIFY(!kafka::isSecretReference("x${env:A}"));
        QVERIFY(!kafka::isSecretReference("${env:A}x"));
        QVERIFY(kafka::isSecretReference("${file:/a/b}"));
    }

    void buildConfChecksAgainAndHidesSecretValues()
    {
        // A spec built by code skips validate(); buildConf refuses the same keys.
        auto resolve = [](const std::string &v) {
            return v;
        };
        try {
            rd_kafka_conf_t *c = kafka::buildConf({}, Json{{"plugin.library.paths", "/x.so"}},
                                                  Role::Consumer, resolve, "src");
            rd_kafka_conf_destroy(c);
            QFAIL("plugin.library.paths accepted");
        } catch (const ConfigError &e) {
            QVERIFY2(
                std::string(e.what()).find("node `src`: params.properties.plugin.library.paths")
                    != std::string::npos,
                e.what());
        }
        // The resolved secret reaches librdkafka (and only librdkafka).
        const std::string marker = "p4ss-MARKER";
        ::setenv("TIDELINE_TEST_KAFKA_PW", marker.c_str(), 1);
        OperatorContext *none = nullptr;
        (void)none;
        auto envResolve = [](const std::string &v) -> std::string {
            if (v == "${env:TIDELINE_TEST_KAFKA_PW}")
                return std::getenv("TIDELINE_TEST_KAFKA_PW");
            return v;
        };
        rd_kafka_conf_t *c
            = kafka::buildConf({{"bootstrap.servers", "127.0.0.1:1"}},
                               Json{{"sasl.password", "${env:TIDELINE_TEST_KAFKA_PW}"}},
                               Role::Producer, envResolve, "out");
        char buf[128];
        size_t n = sizeof buf;
        QCOMPARE(rd_kafka_conf_get(c, "sasl.password", buf, &n), RD_KAFKA_CONF_OK);
        QCOMPARE(std::string(buf), marker);
        rd_kafka_conf_destroy(c);
        QCOMPARE(kafka::redact("auth failed for " + marker + "!", {marker}),
                 std::string("auth failed for [redacted]!"));
    }

    void exactlyOnceNeedsOneSourceOnTheSameCluster()
    {
        Json j = pipeline(Json::object(), Json::object(), "exactly_once");
        j["nodes"][1]["params"]["bootstrap_servers"] = "10.0.0.1:9092";
        std::string t = text(check(j));
        QVERIFY2(t.find("same cluster") != std::string::npos, t.c_str());
    }

    void warnsAboutScaleOutPitfalls()
    {
        Json j{{"format", "tideline/1"},
               {"name", "k"},
               {"nodes",
                Json::array(
                    {Json{{"id", "src"},
                          {"kind", "source.kafka"},
                          {"params", {{"bootstrap_servers", "127.0.0.1:9092"}, {"topic", "in"}}}},
                     Json{{"id", "wm"},
                          {"kind", "watermark"},
                          {"params", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}}}},
                     Json{{"id", "w"},
                          {"kind", "window"},
                          {"params",
                           {{"type", "tumbling"},
                            {"size_ms", 1000},
                            {"aggregates", Json::array({Json{{"op", "count"}}})}}}},
                     Json{{"id", "out"}, {"kind", "sink.console"}}})},
               {"edges", Json::array({Json{{"from", "src.out"}, {"to", "wm.in"}},
                                      Json{{"from", "wm.out"}, {"to", "w.in"}},
                                      Json{{"from", "w.out"}, {"to", "out.in"}}})}};
        auto ds = check(j);
        std::string t = text(ds);
        // Partitions owned by other members are not in the watermark's minimum: no idleness
        // advice is needed for them.
        QVERIFY2(t.find("partitions owned by the others") == std::string::npos, t.c_str());
        QVERIFY2(t.find("`w` (window) has no key") != std::string::npos, t.c_str());
        for (const auto &d : ds)
            QVERIFY2(!d.isError(), d.format().c_str());
        QVERIFY2(t.find("keeps keyed state") == std::string::npos, t.c_str());
        // Keyed by a data field: one state per partition, which moves; correct only if
        // producers key by it. Without checkpoints it cannot move.
        j["nodes"][2]["params"]["key"] = Json::array({"user"});
        t = text(check(j));
        QVERIFY2(t.find("`w` (window) keeps keyed state by user, one state per Kafka partition")
                     != std::string::npos,
                 t.c_str());
        QVERIFY2(t.find("only if producers partition the topic by that key") != std::string::npos,
                 t.c_str());
        QVERIFY2(t.find("no settings.checkpoint") != std::string::npos, t.c_str());
        j["settings"] = {{"checkpoint", {{"dir", "ckpt"}}}};
        t = text(check(j));
        QVERIFY2(t.find("no settings.checkpoint") == std::string::npos, t.c_str());
        // Keyed by the message key: the partitioning holds, nothing to say.
        j["nodes"][2]["params"]["key"] = Json::array({"_kafka.key"});
        t = text(check(j));
        QVERIFY2(t.find("keeps keyed state") == std::string::npos, t.c_str());
        // partition_tasks: false: one state for all partitions, which does not move.
        j["nodes"][0]["params"]["partition_tasks"] = false;
        t = text(check(j));
        QVERIFY2(t.find("does not move on a rebalance") != std::string::npos, t.c_str());
        j["nodes"][0]["params"].erase("partition_tasks");
        // top groups by `by`.
        j["nodes"][2] = Json{{"id", "w"},
                             {"kind", "top"},
                             {"params", {{"field", "v"}, {"size_ms", 1000}, {"by", {"user"}}}}};
        t = text(check(j));
        QVERIFY2(t.find("`w` (top) keeps keyed state by user") != std::string::npos, t.c_str());
        // bounded: one process reads everything, no warning.
        j["nodes"][0]["params"]["bounded"] = true;
        QVERIFY2(text(check(j)).find("keeps keyed state") == std::string::npos,
                 text(check(j)).c_str());
    }

    // Issue 23 #18: sasl.oauthbearer.client.secret was documented as a secret but refused by
    // the allowlist, so OIDC could not be configured. Every secret the docs name is accepted
    // (as a reference) by both clients, and so is the rest of the OIDC login.
    void documentedSecretsAreAllowed()
    {
        std::string doc = readFile(TIDELINE_SOURCE_DIR "/docs/reference/kafka.md");
        auto from = doc.find("Secrets —");
        QVERIFY(from != std::string::npos);
        auto to = doc.find("are accepted only", from);
        QVERIFY(to != std::string::npos);
        std::vector<std::string> named;
        for (auto p = doc.find('`', from); p < to; p = doc.find('`', p + 1)) {
            auto q = doc.find('`', p + 1);
            named.push_back(doc.substr(p + 1, q - p - 1));
            p = q;
        }
        QVERIFY(named.size() >= 6);
        QVERIFY(std::find(named.begin(), named.end(), "sasl.oauthbearer.client.secret")
                != named.end());
        for (const auto &key : named)
            for (Role role : {Role::Consumer, Role::Producer}) {
                QVERIFY2(kafka::isSecretKey(key), key.c_str());
                QCOMPARE(kafka::checkProperty(key, "${env:SECRET}", role), std::string());
                QVERIFY2(kafka::checkProperty(key, "literal", role).find("is a secret")
                             != std::string::npos,
                         key.c_str());
            }
        for (const char *key :
             {"sasl.oauthbearer.method", "sasl.oauthbearer.client.id", "sasl.oauthbearer.scope",
              "sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.extensions"})
            QCOMPARE(kafka::checkProperty(key, "x", Role::Consumer), std::string());
        // Every key the docs name as accepted is accepted (by the consumer or the producer).
        from = doc.find("`properties` pass through an allowlist");
        to = doc.find("Refused explicitly", from);
        QVERIFY(from != std::string::npos && to != std::string::npos);
        int accepted = 0;
        for (auto p = doc.find('`', from); p < to; p = doc.find('`', p + 1)) {
            auto q = doc.find('`', p + 1);
            const std::string key = doc.substr(p + 1, q - p - 1);
            p = q;
            if (key.find('.') == std::string::npos || key.find('*') != std::string::npos
                || key.find(' ') != std::string::npos || key.find(".cpp") != std::string::npos)
                continue; // `ssl.*`, file names
            const std::string v = kafka::isSecretKey(key) ? "${env:X}" : "1";
            QVERIFY2(kafka::checkProperty(key, v, Role::Consumer).empty()
                         || kafka::checkProperty(key, v, Role::Producer).empty(),
                     key.c_str());
            ++accepted;
        }
        QVERIFY(accepted >= 15);
        // And the docs name every secret the allowlist accepts.
        for (const auto &key : kafka::allowedKeys(Role::Consumer))
            if (kafka::isSecretKey(key))
                QVERIFY(std::find(named.begin(), named.end(), key) != named.end());
    }

    // Issue 23 #18: `ssl.cipher.suites: NULL` was accepted (no encryption).
    void nullAndAnonymousCiphersAreRefused_data()
    {
        QTest::addColumn<QString>("suites");
        QTest::addColumn<bool>("refused");
        for (const char *bad :
             {"NULL", "eNULL", "aNULL", "null", "HIGH:eNULL", "ALL:+eNULL", "NULL-SHA256",
              "ECDHE-RSA-NULL-SHA", "RSA+NULL", "COMPLEMENTOFALL", "COMPLEMENTOFDEFAULT", "ADH",
              "ADH-AES256-GCM-SHA384", "AECDH-AES128-SHA", "HIGH, aNULL", "HIGH:@SECLEVEL=0"})
            QTest::newRow(bad) << bad << true;
        for (const char *good : {"HIGH:!aNULL:!MD5", "ECDHE-RSA-AES256-GCM-SHA384",
                                 "DEFAULT:-eNULL:!ADH", "HIGH:@SECLEVEL=2"})
            QTest::newRow(good) << good << false;
    }
    void nullAndAnonymousCiphersAreRefused()
    {
        QFETCH(QString, suites);
        QFETCH(bool, refused);
        for (Role role : {Role::Consumer, Role::Producer}) {
            std::string why = kafka::checkProperty("ssl.cipher.suites", suites.toStdString(), role);
            if (!refused) {
                QCOMPARE(why, std::string());
                continue;
            }
            QVERIFY2(why.find("must not enable") != std::string::npos, why.c_str());
        }
        if (refused) {
            std::string t = errors(
                check(pipeline(Json{{"ssl.cipher.suites", suites.toStdString()}}, Json::object())));
            QVERIFY2(t.find("params.properties.ssl.cipher.suites") != std::string::npos, t.c_str());
        }
    }

    // Issue 23 #13: librdkafka checks how settings fit together only when a client is created
    // ("fetch.max.bytes must be >= message.max.bytes"), which the run did and validation did
    // not. Validation creates a client that never connects.
    void validationCatchesWhatLibrdkafkaRefusesAtStart()
    {
        auto ds = check(pipeline(Json{{"fetch.max.bytes", "1000"}, {"message.max.bytes", "100000"}},
                                 Json::object()));
        std::string t = errors(ds);
        QVERIFY2(t.find("nodes[0] \"src\": params.properties: librdkafka refuses these settings")
                     != std::string::npos,
                 t.c_str());
        QVERIFY2(t.find("fetch.max.bytes") != std::string::npos, t.c_str());
        // A value out of librdkafka's range is named by its key.
        t = errors(check(pipeline(Json::object(), Json{{"linger.ms", "-5"}})));
        QVERIFY2(t.find("nodes[1] \"out\": params.properties.linger.ms") != std::string::npos,
                 t.c_str());
        // A reference that does not resolve here is left out (its value is known where the
        // pipeline runs); one that resolves is judged by its value.
        ::unsetenv("TIDELINE_TEST_FETCH_MAX");
        Json props{{"fetch.max.bytes", "${env:TIDELINE_TEST_FETCH_MAX}"},
                   {"message.max.bytes", "100000"}};
        t = errors(check(pipeline(props, Json::object())));
        QVERIFY2(t.empty(), t.c_str());
        ::setenv("TIDELINE_TEST_FETCH_MAX", "1000", 1);
        t = errors(check(pipeline(props, Json::object())));
        QVERIFY2(t.find("librdkafka refuses these settings") != std::string::npos, t.c_str());
    }

    /// What open() does before it connects: the node's own settings, the properties, a client.
    static std::string startError(const Json &props, Role role)
    {
        // The client tries 127.0.0.1:1 until it is destroyed: keep its complaints quiet.
        setClientLogHandler([](const ClientLogLine &) {});
        try {
            auto engine = role == Role::Consumer ? kafka::consumerSettings("127.0.0.1:1", "g", "n")
                                                 : kafka::producerSettings("127.0.0.1:1", "n", "");
            rd_kafka_conf_t *conf = kafka::buildConf(
                engine, props, role, [](const std::string &v) { return v; }, "n");
            char errstr[512];
            rd_kafka_t *rk
                = rd_kafka_new(role == Role::Consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER, conf,
                               errstr, sizeof errstr);
            if (!rk) {
                rd_kafka_conf_destroy(conf);
                return errstr;
            }
            rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
            return {};
        } catch (const ConfigError &e) {
            return e.what();
        }
    }

    // Validation and the start agree on every combination of a few tuning values, some of
    // them out of range or at odds with each other.
    void validationAndStartAgreeOnPropertyCombinations()
    {
        const std::vector<std::pair<std::string, std::vector<std::string>>> consumer = {
            {"fetch.max.bytes", {"", "1000", "52428800", "2147483647", "0"}},
            {"message.max.bytes", {"", "1000", "100000", "1000000000"}},
            {"receive.message.max.bytes", {"", "1000", "100000000"}},
            {"queued.min.messages", {"", "1", "0"}},
            {"session.timeout.ms", {"", "6000", "100"}},
            {"heartbeat.interval.ms", {"", "3000", "99999"}},
            {"partition.assignment.strategy",
             {"", "cooperative-sticky", "range,cooperative-sticky", "bogus"}},
        };
        int combos = 0, refusedByBoth = 0;
        std::mt19937 rng(23);
        for (int i = 0; i < 300; ++i) {
            Json props = Json::object();
            for (const auto &[key, values] : consumer) {
                const std::string &v = values[rng() % values.size()];
                if (!v.empty())
                    props[key] = v;
            }
            const std::string validation = errors(check(pipeline(props, Json::object())));
            const std::string start = startError(props, Role::Consumer);
            ++combos;
            QVERIFY2(validation.empty() == start.empty(),
                     ("properties " + props.dump() + "\n validation: " + validation
                      + "\n start: " + start)
                         .c_str());
            refusedByBoth += !start.empty();
        }
        QVERIFY(refusedByBoth > 10 && refusedByBoth < combos); // both kinds were tried
    }
};

QTEST_GUILESS_MAIN(KafkaConfigTest)
#include "test_kafka_config.moc"
