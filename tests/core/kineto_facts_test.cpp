// Every real Kineto trace in tests/data/kineto and the bundled 8-rank DLRM sample loads, and its facts match
// tests/data/expected/kineto_facts.json (computed with Python's json module outside Strobe; see its README).
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/formats/kineto_json.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

struct Facts {
    std::string rel;
    uint64_t events = 0;
    std::map<std::string, uint64_t> byCat;
    std::vector<std::string> gpus;
    int64_t kernelDurNs = 0;
    uint64_t kernels = 0;
    std::string platform;
    std::optional<int64_t> rank, world;
    std::optional<std::string> backend;
};

// "977859" or "162532.340" µs → exact ns, by decimal digits (no floating point).
int64_t decimalMicrosToNs(std::string_view s) {
    int64_t whole = 0, frac = 0;
    int fracDigits = 0;
    bool inFrac = false;
    for (char c : s) {
        if (c == '.') {
            inFrac = true;
            continue;
        }
        if (!inFrac) whole = whole * 10 + (c - '0');
        else if (fracDigits < 3) {
            frac = frac * 10 + (c - '0');
            ++fracDigits;
        }
    }
    while (fracDigits++ < 3) frac *= 10;
    return whole * 1000 + frac;
}

std::vector<Facts> readFacts() {
    std::vector<Facts> out;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/expected/kineto_facts.json";
    if (parser.load(path).get(root)) {
        ADD_FAILURE() << "cannot read " << path;
        return out;
    }
    for (auto [key, v] : root.get_object()) {
        Facts f;
        f.rel = std::string(key);
        f.events = v["events"].get_uint64().value_unsafe();
        for (auto [cat, n] : v["events_by_cat"].get_object()) f.byCat[std::string(cat)] = n.get_uint64().value_unsafe();
        for (auto g : v["gpus"].get_array()) f.gpus.emplace_back(g.get_string().value_unsafe());
        f.kernelDurNs = decimalMicrosToNs(v["kernel_dur_us_sum"].get_string().value_unsafe());
        f.kernels = v["kernels"].get_uint64().value_unsafe();
        f.platform = std::string(v["platform"].get_string().value_unsafe());
        if (!v["rank"].is_null()) f.rank = v["rank"].get_int64().value_unsafe();
        if (!v["world_size"].is_null()) f.world = v["world_size"].get_int64().value_unsafe();
        if (!v["backend"].is_null()) f.backend = std::string(v["backend"].get_string().value_unsafe());
        out.push_back(std::move(f));
    }
    return out;
}

std::string fullPath(const std::string& rel) {
    if (rel.rfind("param-dlrm-8rank/", 0) == 0) return std::string(STROBE_RESOURCE_DIR) + "/sample/" + rel;
    return std::string(STROBE_TEST_DATA_DIR) + "/kineto/" + rel;
}

void checkFacts(const Facts& f, const RankData& r) {
    SCOPED_TRACE(f.rel);
    EXPECT_EQ(r.stats.events, f.events);
    std::map<std::string, uint64_t> byCat;
    for (const auto& [id, n] : r.stats.eventsByCategory) byCat[r.strings.str(id)] += n;
    EXPECT_EQ(byCat, f.byCat);
    uint64_t kernels = 0;
    int64_t durNs = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        if (r.gpu.kind[i] != EventKind::Kernel) continue;
        ++kernels;
        durNs += r.gpu.dur[i];
    }
    EXPECT_EQ(kernels, f.kernels);
    EXPECT_EQ(durNs, f.kernelDurNs);
    std::vector<std::string> gpus;
    for (const auto& d : r.info.devices) gpus.push_back(d.name);
    EXPECT_EQ(gpus, f.gpus);
    EXPECT_EQ(std::string(toString(r.info.platform)), f.platform);
    if (f.rank) {
        EXPECT_EQ(r.info.distributed.rank, *f.rank);
        EXPECT_EQ(r.rank, *f.rank);
    } else {
        EXPECT_EQ(r.info.distributed.rank, -1);
    }
    EXPECT_EQ(r.info.distributed.worldSize, f.world ? *f.world : -1);
    EXPECT_EQ(r.info.distributed.backend, f.backend ? *f.backend : std::string());
    EXPECT_FALSE(r.stats.truncated);
    EXPECT_EQ(r.stats.skippedEvents, 0u);
    // Every row of every table has all its raw columns filled.
    EXPECT_EQ(r.slices.args.size(), r.slices.size());
    EXPECT_EQ(r.gpu.args.size(), r.gpu.size());
    EXPECT_TRUE(r.slices.parent.empty());
    EXPECT_TRUE(r.gpu.runtime.empty());
}

}  // namespace

TEST(KinetoFacts, EveryRealTraceMatchesExpectedFactsOneThread) {
    const auto facts = readFacts();
    ASSERT_EQ(facts.size(), 21u);
    for (const auto& f : facts) {
        auto r = loadKinetoTrace(fullPath(f.rel));
        ASSERT_TRUE(r.ok()) << r.error().toString();
        checkFacts(f, **r);
    }
}

TEST(KinetoFacts, EveryRealTraceMatchesExpectedFactsTwoThreadsSmallChunks) {
    // Small chunks so that even the small traces are cut in many places and both threads get work.
    const auto facts = readFacts();
    KinetoLoadOptions opt;
    opt.threads = 2;
    opt.chunkBytes = 8192;
    for (const auto& f : facts) {
        auto r = loadKinetoTrace(fullPath(f.rel), opt);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        checkFacts(f, **r);
    }
}

TEST(KinetoFacts, TwoThreadsGiveTheSameTablesInFileOrder) {
    const std::string path = fullPath("hta/nccl_parser_config/nccl_data.json.gz");
    auto one = loadKinetoTrace(path);
    KinetoLoadOptions opt;
    opt.threads = 2;
    opt.chunkBytes = 16384;
    auto two = loadKinetoTrace(path, opt);
    ASSERT_TRUE(one.ok() && two.ok());
    const RankData& a = **one;
    const RankData& b = **two;
    ASSERT_EQ(a.slices.size(), b.slices.size());
    ASSERT_EQ(a.gpu.size(), b.gpu.size());
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (size_t i = 0; i < a.slices.size(); ++i) {
        ASSERT_EQ(a.slices.ts[i], b.slices.ts[i]) << i;
        ASSERT_EQ(a.strings.view(a.slices.name[i]), b.strings.view(b.slices.name[i])) << i;
        ASSERT_EQ(a.strings.view(a.slices.args[i]), b.strings.view(b.slices.args[i])) << i;
        const Track& ta = a.tracks[a.slices.track[i]];
        const Track& tb = b.tracks[b.slices.track[i]];
        ASSERT_EQ(ta.pid, tb.pid);
        ASSERT_EQ(ta.tid, tb.tid);
    }
    for (size_t i = 0; i < a.gpu.size(); ++i) {
        ASSERT_EQ(a.gpu.ts[i], b.gpu.ts[i]) << i;
        ASSERT_EQ(a.gpu.correlation[i], b.gpu.correlation[i]) << i;
        ASSERT_EQ(a.strings.view(a.gpu.name[i]), b.strings.view(b.gpu.name[i])) << i;
    }
    EXPECT_EQ(a.processes.size(), b.processes.size());
    EXPECT_EQ(a.threads.size(), b.threads.size());
}
