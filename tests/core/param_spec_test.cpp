#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>

#include "core/params/param_spec.h"

using namespace strobe::core;

namespace {

ParamSpec spec(const std::string& key, ParamType t, ParamValue def) {
    ParamSpec s;
    s.key = key;
    s.label = key;
    s.type = t;
    s.defaultValue = std::move(def);
    return s;
}

std::vector<ParamSpec> sampleSpecs() {
    auto i = spec("top_n", ParamType::Int, 10LL);
    i.min = 1;
    i.max = 50;
    i.step = 1;
    auto d = spec("threshold", ParamType::Double, 0.5);
    d.min = 0;
    d.max = 1;
    auto e = spec("per", ParamType::Enum, std::string("rank"));
    e.choices = {"rank", "step", "window"};
    auto col = spec("color", ParamType::Color, std::string("#1f77b4"));
    col.affectsPrepare = false;
    auto b = spec("percent", ParamType::Bool, false);
    b.affectsPrepare = false;
    return {b, i, d, e, spec("title", ParamType::String, std::string("x")),
            spec("kernels", ParamType::StringList, std::vector<std::string>{}),
            spec("ranks", ParamType::RankSet, std::vector<std::string>{}),
            spec("regex", ParamType::Regex, std::string("^nccl")), col};
}

}  // namespace

TEST(ParamSpec, TypeNamesRoundTrip) {
    for (auto t : {ParamType::Bool, ParamType::Int, ParamType::Double, ParamType::Enum, ParamType::String,
                   ParamType::StringList, ParamType::RankSet, ParamType::Regex, ParamType::Color}) {
        auto back = paramTypeFromString(toString(t));
        ASSERT_TRUE(back.has_value()) << toString(t);
        EXPECT_EQ(*back, t);
    }
    EXPECT_FALSE(paramTypeFromString("float").has_value());
}

TEST(ParamSpec, StringFormRoundTripsEveryType) {
    auto specs = sampleSpecs();
    std::vector<ParamValue> values = {true,
                                      42LL,
                                      0.125,
                                      std::string("step"),
                                      std::string("a title, with comma"),
                                      std::vector<std::string>{"gemm,fp16", "back\\slash", "plain"},
                                      std::vector<std::string>{"0", "3", "7"},
                                      std::string("^(nccl|rccl).*AllReduce"),
                                      std::string("#ff8800")};
    ASSERT_EQ(specs.size(), values.size());
    for (size_t i = 0; i < specs.size(); ++i) {
        auto text = valueToString(specs[i], values[i]);
        auto back = valueFromString(specs[i], text);
        ASSERT_TRUE(back.ok()) << specs[i].key << ": " << back.error().toString();
        EXPECT_EQ(*back, values[i]) << specs[i].key << " via '" << text << "'";
    }
}

TEST(ParamSpec, JsonRoundTripsSpecsAndValues) {
    for (const auto& s : sampleSpecs()) {
        auto json = specToJson(s);
        EXPECT_EQ(json["key"].toString().toStdString(), s.key);
        EXPECT_EQ(json["affectsPrepare"].toBool(), s.affectsPrepare);
        auto back = specFromJson(json);
        ASSERT_TRUE(back.ok()) << back.error().toString();
        EXPECT_EQ(back->key, s.key);
        EXPECT_EQ(back->type, s.type);
        EXPECT_EQ(back->defaultValue, s.defaultValue);
        EXPECT_EQ(back->choices, s.choices);
        EXPECT_EQ(back->min, s.min);
        EXPECT_EQ(back->max, s.max);
        EXPECT_EQ(back->affectsPrepare, s.affectsPrepare);
    }
    auto specs = sampleSpecs();
    auto i = specToJson(specs[1]);
    EXPECT_EQ(i["min"].toDouble(), 1.0);
    EXPECT_EQ(i["max"].toDouble(), 50.0);
    EXPECT_EQ(i["type"].toString(), "int");
    auto e = specToJson(specs[3]);
    EXPECT_EQ(e["choices"].toArray().size(), 3);
}

TEST(ParamSpec, StringFormsAcceptedForBoolsAndRanks) {
    auto specs = sampleSpecs();
    for (const char* t : {"true", "1", "yes", "ON"}) EXPECT_EQ(*valueFromString(specs[0], t), ParamValue(true)) << t;
    for (const char* f : {"false", "0", "no", "off"}) EXPECT_EQ(*valueFromString(specs[0], f), ParamValue(false)) << f;
    auto ranks = valueFromString(specs[6], "0,2-4, 7,3");
    ASSERT_TRUE(ranks.ok());
    EXPECT_EQ(std::get<std::vector<std::string>>(*ranks), (std::vector<std::string>{"0", "2", "3", "4", "7"}));
    EXPECT_TRUE(std::get<std::vector<std::string>>(*valueFromString(specs[6], "all")).empty());
    EXPECT_EQ(ranksOf(*ranks), (std::vector<int>{0, 2, 3, 4, 7}));
}

TEST(ParamSpec, ValidationNamesKeyAndProblem) {
    auto specs = sampleSpecs();
    auto tooBig = valueFromString(specs[1], "51");
    ASSERT_FALSE(tooBig.ok());
    EXPECT_NE(tooBig.error().message.find("top_n"), std::string::npos);
    EXPECT_NE(tooBig.error().message.find("outside [1, 50]"), std::string::npos);
    EXPECT_FALSE(valueFromString(specs[1], "0").ok());
    EXPECT_TRUE(valueFromString(specs[1], "50").ok());
    EXPECT_FALSE(valueFromString(specs[1], "12abc").ok());
    EXPECT_FALSE(valueFromString(specs[2], "1.5").ok());
    EXPECT_FALSE(valueFromString(specs[2], "nan").ok());
    auto badEnum = valueFromString(specs[3], "rnak");
    ASSERT_FALSE(badEnum.ok());
    EXPECT_NE(badEnum.error().message.find("rank, step, window"), std::string::npos);
    auto badRe = valueFromString(specs[7], "(unclosed");
    ASSERT_FALSE(badRe.ok());
    EXPECT_NE(badRe.error().message.find("regular expression"), std::string::npos);
    EXPECT_FALSE(valueFromString(specs[8], "orange").ok());
    EXPECT_FALSE(valueFromString(specs[8], "#12345").ok());
    EXPECT_FALSE(valueFromString(specs[6], "-1").ok());
    EXPECT_FALSE(valueFromString(specs[6], "4-2").ok());
    EXPECT_FALSE(valueFromString(specs[0], "maybe").ok());
    // Wrong alternative.
    EXPECT_FALSE(validate(specs[1], ParamValue(std::string("3"))).ok());
    // JSON with the wrong type.
    EXPECT_FALSE(valueFromJson(specs[1], QJsonValue(QStringLiteral("3x"))).ok());
    EXPECT_FALSE(valueFromJson(specs[1], QJsonValue(true)).ok());
    EXPECT_FALSE(valueFromJson(specs[1], QJsonValue(2.5)).ok());
}

TEST(ParamSpec, ResolveFillsDefaultsAndRejectsUnknownKeys) {
    auto specs = sampleSpecs();
    auto r = resolveValues(specs, {{"top_n", 5LL}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), specs.size());
    EXPECT_EQ(r->at("top_n"), ParamValue(5LL));
    EXPECT_EQ(r->at("per"), ParamValue(std::string("rank")));
    EXPECT_FALSE(resolveValues(specs, {{"no_such", 1LL}}).ok());
    EXPECT_FALSE(resolveValues(specs, {{"top_n", 500LL}}).ok());
    // An integer is accepted for a double parameter.
    auto d = resolveValues(specs, {{"threshold", 1LL}});
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->at("threshold"), ParamValue(1.0));
}

TEST(ParamSpec, AssignmentAndPrepareKey) {
    auto specs = sampleSpecs();
    ParamValues v;
    ASSERT_TRUE(applyAssignment(specs, "per=step", v).ok());
    ASSERT_TRUE(applyAssignment(specs, "percent=true", v).ok());
    EXPECT_FALSE(applyAssignment(specs, "per", v).ok());
    auto unknown = applyAssignment(specs, "pre=step", v);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("this plot has"), std::string::npos);
    auto k1 = prepareKey(specs, v);
    // A drawing parameter does not change the key; a preparation parameter does.
    ParamValues v2 = v;
    v2["percent"] = false;
    v2["color"] = std::string("#000000");
    EXPECT_EQ(prepareKey(specs, v2), k1);
    v2["per"] = std::string("window");
    EXPECT_NE(prepareKey(specs, v2), k1);
    // No value can imitate another key's separator.
    ParamValues a{{"title", std::string("x;top_n:2=10")}}, b{{"title", std::string("x")}};
    EXPECT_NE(prepareKey(specs, a), prepareKey(specs, b));
}
