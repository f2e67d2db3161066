// core/params: typed handles, the types the collectors need (Path, Duration, KeyValueList), the one strict
// coercion rule, and specs read and written as YAML and JSON. Expected values are worked out by hand in the
// comments.
#include <QJsonDocument>

#include <gtest/gtest.h>

#include "core/analysis/registry.h"
#include "core/engine/session.h"
#include "core/params/param.h"

using namespace strobe::core;

namespace {

const IntParam kTopN = IntParam{"top_n", "Top N", "How many", 10}.bounded(1, 50, 1);
const BoolParam kPercent = BoolParam{"percent", "Percent", "Shares", false}.drawOnly();
const DoubleParam kRatio{"ratio", "Ratio", "A share", 0.8};
const EnumParam kPer = EnumParam{"per", "Per", "Bars", "rank"}.choices({"rank", "step"});
const RankSetParam kRanks{"ranks", "Ranks", "Ranks", {}};
const DurationParam kInterval =
    DurationParam{"interval", "Interval", "Sampling interval", 100'000'000}.bounded(1'000'000, 60e9, 0);
const KeyValueListParam kEnv{"env", "Environment", "Extra variables", {"NCCL_DEBUG=INFO"}};
const PathParam kOut{"out", "Output", "Where to write", "/tmp/run"};

template <class T>
std::string message(const Result<T>& r) {
    return r.ok() ? std::string() : r.error().message;
}

}  // namespace

TEST(ParamHandles, DeclareOnceAndReadTyped) {
    const ParamSpec& s = kTopN.spec();
    EXPECT_EQ(s.key, "top_n");
    EXPECT_EQ(s.type, ParamType::Int);
    EXPECT_EQ(s.defaultValue, ParamValue(10LL));
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 50);
    EXPECT_TRUE(s.affectsPrepare);
    EXPECT_FALSE(kPercent.spec().affectsPrepare);
    EXPECT_EQ(kPer.spec().choices, (std::vector<std::string>{"rank", "step"}));

    auto values = resolveValues({kTopN.spec(), kPercent.spec(), kRatio.spec(), kPer.spec(), kRanks.spec()},
                                {{"top_n", 7LL}, {"ranks", std::string("3,0-1")}});
    ASSERT_TRUE(values.ok()) << message(values);
    long long n = kTopN(*values);  // the handle's type: long long
    EXPECT_EQ(n, 7);
    EXPECT_FALSE(kPercent(*values));
    EXPECT_DOUBLE_EQ(kRatio(*values), 0.8);
    EXPECT_EQ(kPer(*values), "rank");
    EXPECT_EQ(kRanks(*values), (std::vector<int>{0, 1, 3}));  // "3,0-1" → sorted rank numbers

    ParamValues v;
    EXPECT_EQ(kTopN(v), 10);  // absent: the declared default
    kTopN.set(v, 12);
    kRanks.set(v, {2, 5});
    EXPECT_EQ(v.at("top_n"), ParamValue(12LL));
    EXPECT_EQ(v.at("ranks"), ParamValue(std::vector<std::string>{"2", "5"}));
    EXPECT_EQ(kPer.withDefault("step").spec().defaultValue, ParamValue(std::string("step")));
    EXPECT_EQ(kRanks.spec({"0", "1"}).choices, (std::vector<std::string>{"0", "1"}));
}

TEST(ParamTypes, DurationStringForm) {
    const ParamSpec& d = kInterval.spec();
    // 30us = 30 000 ns; 1.5ms = 1 500 000 ns; 2s; 250 without a unit is ns; 1min = 60 s.
    EXPECT_EQ(*valueFromString(d, "30000us"), ParamValue(30'000'000LL));
    EXPECT_EQ(*valueFromString(d, "1.5ms"), ParamValue(1'500'000LL));
    EXPECT_EQ(*valueFromString(d, "2s"), ParamValue(2'000'000'000LL));
    EXPECT_EQ(*valueFromString(d, "1min"), ParamValue(60'000'000'000LL));
    EXPECT_EQ(*valueFromString(d, "5000000"), ParamValue(5'000'000LL));
    EXPECT_EQ(valueToString(d, 1'500'000LL), "1500us");
    EXPECT_EQ(valueToString(d, 2'000'000'000LL), "2s");
    EXPECT_EQ(valueToString(d, 100'000'000LL), "100ms");
    auto frac = valueFromString(d, "1.0000005ms");  // 1 000 000.5 ns: not whole nanoseconds
    EXPECT_FALSE(frac.ok());
    EXPECT_NE(message(frac).find("interval"), std::string::npos);
    EXPECT_FALSE(valueFromString(d, "fast").ok());
    EXPECT_FALSE(valueFromString(d, "3 parsecs").ok());
    EXPECT_FALSE(valueFromString(d, "500us").ok());  // below the minimum of 1 ms
    for (long long ns : {1'000'000LL, 1'500'000LL, 60'000'000'000LL, 1'234'567LL}) {
        auto back = valueFromString(d, valueToString(d, ns));
        ASSERT_TRUE(back.ok()) << ns;
        EXPECT_EQ(*back, ParamValue(ns));
    }
}

TEST(ParamTypes, KeyValueListAndPath) {
    const ParamSpec& e = kEnv.spec();
    auto v = valueFromString(e, "A=1, B=x\\,y,C=");
    ASSERT_TRUE(v.ok()) << message(v);
    EXPECT_EQ(*v, ParamValue(std::vector<std::string>{"A=1", "B=x,y", "C="}));
    auto bad = valueFromString(e, "A=1,=2");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(message(bad).find("'=2'"), std::string::npos);
    EXPECT_FALSE(valueFromString(e, "NOEQUALS").ok());
    // JSON: an object.
    auto json = valueToJson(e, *v);
    ASSERT_TRUE(json.isObject());
    EXPECT_EQ(json.toObject()["B"].toString(), "x,y");
    auto back = valueFromJson(e, json);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, *v);  // keys A, B, C are already in the object's (sorted) order
    // A path is any text, spaces and commas included.
    EXPECT_EQ(*valueFromString(kOut.spec(), " /data/my runs/a,b "), ParamValue(std::string(" /data/my runs/a,b ")));
}

// The one rule, applied to values given as text, numbers and lists.
TEST(ParamCoercion, StrictAndNamesKeyAndValue) {
    const ParamSpec& i = kTopN.spec();
    for (ParamValue given : {ParamValue(2.5), ParamValue(std::string("abc")), ParamValue(std::string("2.5"))}) {
        auto r = coerceValue(i, given);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(message(r).find("top_n"), std::string::npos) << message(r);
        const std::string shown = std::holds_alternative<double>(given) ? "2.5" : std::get<std::string>(given);
        EXPECT_NE(message(r).find("'" + shown + "'"), std::string::npos) << message(r);
    }
    EXPECT_EQ(*coerceValue(i, 3.0), ParamValue(3LL));  // a whole number is an integer
    EXPECT_EQ(*coerceValue(i, std::string(" 4 ")), ParamValue(4LL));
    EXPECT_FALSE(coerceValue(i, true).ok());
    EXPECT_FALSE(coerceValue(i, std::vector<std::string>{"1"}).ok());
    EXPECT_EQ(*coerceValue(kRatio.spec(), 2LL), ParamValue(2.0));
    EXPECT_EQ(*coerceValue(kPer.spec(), std::string("step")), ParamValue(std::string("step")));
    EXPECT_FALSE(coerceValue(kPer.spec(), 1LL).ok());  // "1" is not a choice
    EXPECT_EQ(*coerceValue(kPercent.spec(), std::string("yes")), ParamValue(true));
    EXPECT_FALSE(coerceValue(kPercent.spec(), 1LL).ok());
}

// Entry point: a tool spec's parameters as YAML.
TEST(ParamCoercion, YamlSpecs) {
    const std::string good = R"(
- key: rate_hz
  type: int
  label: Rate
  default: 10
  min: 1
  max: 1000
- key: interval
  type: duration
  default: 250ms
- key: env
  type: keyvaluelist
  default: {NCCL_DEBUG: INFO, OMP_NUM_THREADS: "4"}
- key: output
  type: path
  default: "{out}/trace"
  affectsPrepare: false
)";
    auto specs = specsFromYaml(good, "tools/sampler.yaml");
    ASSERT_TRUE(specs.ok()) << message(specs);
    ASSERT_EQ(specs->size(), 4u);
    EXPECT_EQ((*specs)[0].defaultValue, ParamValue(10LL));
    EXPECT_EQ((*specs)[0].max, 1000);
    EXPECT_EQ((*specs)[1].defaultValue, ParamValue(250'000'000LL));
    EXPECT_EQ((*specs)[2].defaultValue, ParamValue(std::vector<std::string>{"NCCL_DEBUG=INFO", "OMP_NUM_THREADS=4"}));
    EXPECT_EQ((*specs)[3].defaultValue, ParamValue(std::string("{out}/trace")));
    EXPECT_FALSE((*specs)[3].affectsPrepare);
    // Written and read back: the same specs.
    auto again = specsFromYaml(specsToYaml(*specs));
    ASSERT_TRUE(again.ok()) << message(again) << "\n" << specsToYaml(*specs);
    ASSERT_EQ(again->size(), specs->size());
    for (size_t k = 0; k < specs->size(); ++k) {
        EXPECT_EQ((*again)[k].key, (*specs)[k].key);
        EXPECT_EQ((*again)[k].type, (*specs)[k].type);
        EXPECT_EQ((*again)[k].defaultValue, (*specs)[k].defaultValue) << (*specs)[k].key;
        EXPECT_EQ((*again)[k].min, (*specs)[k].min);
        EXPECT_EQ((*again)[k].max, (*specs)[k].max);
        EXPECT_EQ((*again)[k].affectsPrepare, (*specs)[k].affectsPrepare);
    }
    // An Int given 2.5: an error naming the file, the line, the key and the value.
    auto bad = specsFromYaml("- key: rate_hz\n  type: int\n  default: 2.5\n", "tools/bad.yaml");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.file, "tools/bad.yaml");
    EXPECT_EQ(bad.error().where.line, 3);
    EXPECT_NE(bad.error().message.find("rate_hz"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("'2.5'"), std::string::npos) << bad.error().message;
    auto text = specsFromYaml("- key: rate_hz\n  type: int\n  default: abc\n");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message.find("'abc'"), std::string::npos) << text.error().message;
    EXPECT_FALSE(specsFromYaml("- key: x\n  type: float\n").ok());
    EXPECT_FALSE(specsFromYaml("- {key: a, type: int}\n- {key: a, type: bool}\n").ok());
}

// Entry point: a spec as JSON (what `strobe-cli plots --json` prints).
TEST(ParamCoercion, JsonSpecs) {
    auto round = specFromJson(specToJson(kInterval.spec()));
    ASSERT_TRUE(round.ok()) << message(round);
    EXPECT_EQ(round->defaultValue, kInterval.spec().defaultValue);
    EXPECT_EQ(round->min, kInterval.spec().min);
    auto doc = QJsonDocument::fromJson(R"({"key": "top_n", "type": "int", "default": 2.5})");
    auto bad = specFromJson(doc.object());
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("top_n"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("'2.5'"), std::string::npos) << bad.error().message;
    auto text = specFromJson(QJsonDocument::fromJson(R"({"key": "top_n", "type": "int", "default": "abc"})").object());
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message.find("'abc'"), std::string::npos) << text.error().message;
}

// Entry point: a session file's value (read by the session reader, coerced with the plot's spec).
TEST(ParamCoercion, SessionValues) {
    auto session = sessionFromYaml(R"(strobe_session: 1
runs: [{paths: ["a.json"]}]
plots:
  - id: "x"
    runs: [0]
    values: {"top_n": 2.5, "ratio": 3, "per": "step"}
  - id: "y"
    runs: [0]
    values: {"top_n": "abc"}
)");
    ASSERT_TRUE(session.ok()) << message(session);
    const std::vector<ParamSpec> specs{kTopN.spec(), kRatio.spec(), kPer.spec()};
    auto first = resolveValues(specs, session->plots[0].values);
    ASSERT_FALSE(first.ok());
    EXPECT_NE(first.error().message.find("top_n"), std::string::npos);
    EXPECT_NE(first.error().message.find("'2.5'"), std::string::npos) << first.error().message;
    auto second = resolveValues(specs, session->plots[1].values);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().message.find("'abc'"), std::string::npos) << second.error().message;
    // The valid ones: 3 is a whole number for the double "ratio".
    ParamValues ok = session->plots[0].values;
    ok.erase("top_n");
    auto r = resolveValues(specs, ok);
    ASSERT_TRUE(r.ok()) << message(r);
    EXPECT_DOUBLE_EQ(kRatio(*r), 3.0);
    EXPECT_EQ(kPer(*r), "step");
}

// Entry point: `strobe-cli analyze NAME --OPTION value` (the options reach runAnalysis as text).
TEST(ParamCoercion, AnalysisOptions) {
    const AnalysisInfo* info = findAnalysis("kernels");
    ASSERT_NE(info, nullptr);
    const ParamSpec* top = findSpec(info->options, "top");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->type, ParamType::Int);
    for (const char* given : {"2.5", "abc"}) {
        auto r = coerceValue(*top, std::string(given));
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("'top'"), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find(std::string("'") + given + "'"), std::string::npos) << r.error().message;
    }
    // Every analysis option has a default of its own type.
    for (const auto& a : analysisRegistry())
        for (const auto& o : a.options) EXPECT_TRUE(validate(o, o.defaultValue).ok()) << a.name << " --" << o.key;
}

// A StringList whose choices and default come from the data (the timeline's telemetry metrics): a value keeps only
// the items the data offers (so a metric the run lacks is never offered ticked); before the data, any items.
TEST(Params, AStringListFromTheDataKeepsOnlyTheOfferedItems) {
    const StringListParam metrics{"telemetry", "Telemetry", "", {}};
    const ParamSpec spec = metrics.specFromData({"temp_c", "util_pct"}, {"util_pct"});
    EXPECT_TRUE(spec.choicesFromData);
    EXPECT_EQ(std::get<std::vector<std::string>>(spec.defaultValue), std::vector<std::string>{"util_pct"});
    auto kept = coerceValue(spec, std::vector<std::string>{"power_w", "temp_c", "util_pct"});
    ASSERT_TRUE(kept.ok()) << kept.error().toString();
    EXPECT_EQ(std::get<std::vector<std::string>>(*kept), (std::vector<std::string>{"temp_c", "util_pct"}));
    auto fromText = coerceValue(spec, std::string("sclk_mhz,temp_c"));
    ASSERT_TRUE(fromText.ok());
    EXPECT_EQ(std::get<std::vector<std::string>>(*fromText), std::vector<std::string>{"temp_c"});
    const auto before = specsBeforeData({spec});
    EXPECT_FALSE(before[0].choicesFromData);
    auto any = coerceValue(before[0], std::string("power_w"));
    ASSERT_TRUE(any.ok());
    EXPECT_EQ(std::get<std::vector<std::string>>(*any), std::vector<std::string>{"power_w"});
    // A list of fixed choices (no data) keeps what it is given, as before.
    auto plain = coerceValue(metrics.spec({"temp_c"}), std::vector<std::string>{"power_w"});
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(std::get<std::vector<std::string>>(*plain), std::vector<std::string>{"power_w"});
}

// Before the data is loaded (strobe-cli --set): a fixed Enum still refuses a value outside its choices, a bound
// still holds, but an Enum whose choices are the data's takes any text, which the loaded data's specs check after.
TEST(Params, SpecsBeforeDataDeferOnlyTheDataChoices) {
    const EnumParam fixed = EnumParam{"style", "Style", "", "box"}.choices({"box", "violin"});
    const EnumParam fromData{"metric", "Metric", "", "auto"};
    const IntParam top = IntParam{"top", "Top", "", 10}.bounded(1, 50, 1);
    EXPECT_FALSE(fixed.spec().choicesFromData);
    EXPECT_TRUE(fromData.spec({"auto", "l2_hit_pct"}).choicesFromData);
    const std::vector<ParamSpec> loaded = {fixed.spec(), fromData.spec({"auto", "l2_hit_pct"}), top.spec()};
    const std::vector<ParamSpec> before = specsBeforeData(loaded);
    ParamValues values;
    auto bad = applyAssignment(before, "style=stack", values);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'stack' is not one of: box, violin"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(applyAssignment(before, "top=51", values).ok());
    EXPECT_FALSE(applyAssignment(before, "colour=red", values).ok());
    ASSERT_TRUE(applyAssignment(before, "metric=SQ_WAVES", values).ok());
    // The loaded data's choices: SQ_WAVES is not among them, l2_hit_pct is.
    auto resolved = resolveValues(loaded, values);
    ASSERT_FALSE(resolved.ok());
    EXPECT_NE(resolved.error().message.find("'SQ_WAVES' is not one of: auto, l2_hit_pct"), std::string::npos)
        << resolved.error().message;
    ASSERT_TRUE(applyAssignment(before, "metric=l2_hit_pct", values).ok());
    auto ok = resolveValues(loaded, values);
    ASSERT_TRUE(ok.ok()) << ok.error().toString();
    EXPECT_EQ(fromData(*ok), "l2_hit_pct");
}
