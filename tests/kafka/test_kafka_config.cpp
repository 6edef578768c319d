// source.kafka / sink.kafka configuration safety: the property allowlist, refused keys,
// secrets only as references and never echoed (no broker needed).

#include "connectors/kafka/kafka_config.hpp"

#include <tideline/engine/operator.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

#include <cstdlib>

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
        auto ds = check(
            pipeline(Json{{"session.timeout.ms", "6000"}, {"security.protocol", "sasl_ssl"}},
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
};

QTEST_GUILESS_MAIN(KafkaConfigTest)
#include "test_kafka_config.moc"
