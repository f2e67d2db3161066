// Hand-made small traces (tests/data/small): every expected value below was worked out by hand from the file
// text (µs × 1000 = ns, counts by reading the events).
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/formats/kineto_json.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

std::string smallKinetoSmall(const std::string& name) { return std::string(STROBE_TEST_DATA_DIR) + "/small/" + name; }

std::map<std::string, uint64_t> categories(const RankData& r) {
    std::map<std::string, uint64_t> out;
    for (const auto& [id, n] : r.stats.eventsByCategory) out[r.strings.str(id)] += n;
    return out;
}

int findSlice(const RankData& r, std::string_view name) {
    for (size_t i = 0; i < r.slices.size(); ++i)
        if (r.strings.view(r.slices.name[i]) == name) return static_cast<int>(i);
    return -1;
}

bool hasWarning(const RankData& r) {
    for (const auto& d : r.diagnostics)
        if (d.severity != Severity::Info) return true;
    return false;
}

void checkCurrentSchema(const RankData& r) {
    EXPECT_EQ(r.stats.events, 19u);
    EXPECT_EQ(r.stats.metadataEvents, 5u);
    EXPECT_FALSE(r.stats.truncated);
    // One warning: the counter "GPU Memory" (event 10) has a series "label" holding the string "x", not a number.
    std::vector<std::string> warnings;
    for (const auto& d : r.diagnostics)
        if (d.severity != Severity::Info) warnings.push_back(d.message);
    EXPECT_EQ(warnings, std::vector<std::string>{"counter \"GPU Memory\": expected \"label\" to be a number, got a "
                                                 "string \"x\": ignored (the other series are kept)"});
    const std::map<std::string, uint64_t> expectedCats = {
        {"", 7},           {"Trace", 1},  {"ac2g", 2},       {"cpu_instant_event", 1}, {"cpu_op", 1},
        {"cuda_runtime", 1}, {"gpu_memcpy", 1}, {"gpu_memset", 1}, {"gpu_user_annotation", 1}, {"kernel", 1},
        {"my_custom_category", 1}, {"user_annotation", 1}};
    EXPECT_EQ(categories(r), expectedCats);

    // Slices: ProfilerStep#7, aten::mm, cudaLaunchKernel, gpu_user_annotation, [memory], custom, Trace, instant.
    ASSERT_EQ(r.slices.size(), 8u);
    EXPECT_EQ(r.strings.view(r.slices.name[0]), "ProfilerStep#7");
    EXPECT_EQ(r.slices.ts[0], 1700000000000000);
    EXPECT_EQ(r.slices.dur[0], 500500);
    EXPECT_EQ(r.slices.externalId[0], 1);
    EXPECT_EQ(r.slices.args[0], kEmptyStr);  // "Record function id" and "Ev Idx" are dropped
    EXPECT_EQ(r.slices.kind[0], EventKind::UserAnnotation);

    // String ts/dur.
    EXPECT_EQ(r.strings.view(r.slices.name[1]), "aten::mm");
    EXPECT_EQ(r.slices.ts[1], 1700000000123456);
    EXPECT_EQ(r.slices.dur[1], 12500);
    EXPECT_EQ(r.slices.sequence[1], 42);
    EXPECT_EQ(r.slices.externalId[1], 2);
    EXPECT_EQ(r.strings.view(r.slices.args[1]), R"({"Input Dims":[[8,16],[16,4]],"Input type":["float","float"]})");

    EXPECT_EQ(r.slices.kind[2], EventKind::Runtime);
    EXPECT_EQ(r.slices.ts[2], 1700000000130001);
    EXPECT_EQ(r.slices.dur[2], 3000);
    EXPECT_EQ(r.slices.correlation[2], 900);
    EXPECT_EQ(r.strings.view(r.slices.args[2]), R"({"cbid":211})");

    const int ann = findSlice(r, "ProfilerStep#7") == 0 ? 3 : -1;
    ASSERT_EQ(ann, 3);
    EXPECT_EQ(r.slices.kind[3], EventKind::GpuUserAnnotation);
    EXPECT_EQ(r.slices.dur[3], 45000);

    EXPECT_EQ(r.slices.phase[4], 'i');
    EXPECT_EQ(r.slices.kind[4], EventKind::CpuInstant);
    EXPECT_EQ(r.slices.dur[4], 0);

    const int custom = findSlice(r, "custom thing");
    ASSERT_GE(custom, 0);
    EXPECT_EQ(r.slices.kind[custom], EventKind::Unknown);
    EXPECT_EQ(r.strings.view(r.slices.cat[custom]), "my_custom_category");

    // String pid/tid.
    const int trace = findSlice(r, "PyTorch Profiler (0)");
    ASSERT_GE(trace, 0);
    const Track& t = r.tracks[r.slices.track[trace]];
    EXPECT_EQ(r.strings.view(t.pidStr), "Spans");
    EXPECT_EQ(r.strings.view(t.tidStr), "PyTorch Profiler");
    EXPECT_EQ(t.pid, 0);

    // GPU activities.
    ASSERT_EQ(r.gpu.size(), 3u);
    EXPECT_EQ(r.gpu.kind[0], EventKind::Kernel);
    EXPECT_EQ(r.gpu.ts[0], 1700000000140250);
    EXPECT_EQ(r.gpu.dur[0], 20125);
    EXPECT_EQ(r.gpu.device[0], 0);
    EXPECT_EQ(r.gpu.stream[0], 7);
    EXPECT_EQ(r.gpu.correlation[0], 900);
    EXPECT_EQ(r.gpu.externalId[0], 2);
    EXPECT_EQ(r.gpu.gridX[0], 2);
    EXPECT_EQ(r.gpu.gridY[0], 3);
    EXPECT_EQ(r.gpu.gridZ[0], 1);
    EXPECT_EQ(r.gpu.blockX[0], 128);
    EXPECT_EQ(r.gpu.registers[0], 168);
    EXPECT_EQ(r.gpu.sharedMemory[0], 73728);
    EXPECT_EQ(r.strings.view(r.gpu.args[0]), R"({"queued":0,"context":1,"blocks per SM":0.5})");
    EXPECT_EQ(r.gpu.kind[1], EventKind::Memcpy);
    EXPECT_EQ(r.gpu.bytes[1], 4096);
    EXPECT_EQ(r.gpu.correlation[1], 901);
    EXPECT_EQ(r.gpu.kind[2], EventKind::Memset);
    EXPECT_EQ(r.gpu.bytes[2], 512);
    EXPECT_EQ(r.gpu.args[2], kEmptyStr);
    // Derived columns are the merge's job.
    EXPECT_TRUE(r.gpu.category.empty());
    EXPECT_TRUE(r.gpu.copyDirection.empty());

    // Flows.
    ASSERT_EQ(r.flows.size(), 2u);
    EXPECT_EQ(r.flows.phase[0], 's');
    EXPECT_EQ(r.flows.id[0], 900);
    EXPECT_EQ(r.flows.bindEnclosing[0], 0);
    EXPECT_EQ(r.flows.phase[1], 'f');
    EXPECT_EQ(r.flows.bindEnclosing[1], 1);
    EXPECT_EQ(r.flows.ts[1], 1700000000140250);
    EXPECT_EQ(r.tracks[r.flows.track[0]].pid, 100);
    EXPECT_EQ(r.tracks[r.flows.track[1]].tid, 7);

    // Counters: one row per numeric arg ("label" is not a number: warned above).
    ASSERT_EQ(r.counters.size(), 2u);
    EXPECT_EQ(r.strings.view(r.counters.series[0]), "allocated");
    EXPECT_DOUBLE_EQ(r.counters.value[0], 8192.0);
    EXPECT_EQ(r.strings.view(r.counters.series[1]), "reserved");
    EXPECT_DOUBLE_EQ(r.counters.value[1], 2.5e6);
    EXPECT_EQ(r.strings.view(r.counters.name[1]), "GPU Memory");

    // Metadata.
    bool sawPython = false, sawGpu = false;
    for (const auto& p : r.processes) {
        if (p.pid == 100 && p.pidStr == kEmptyStr) {
            sawPython = true;
            EXPECT_EQ(r.strings.view(p.name), "python3");
        }
        if (p.pid == 0 && p.pidStr == kEmptyStr) {
            sawGpu = true;
            EXPECT_EQ(r.strings.view(p.labels), "GPU 0");
            EXPECT_EQ(p.sortIndex, 5000000);
        }
    }
    EXPECT_TRUE(sawPython);
    EXPECT_TRUE(sawGpu);
    ASSERT_EQ(r.threads.size(), 1u);
    EXPECT_EQ(r.strings.view(r.threads[0].name), "thread 101 (python3)");
    EXPECT_EQ(r.threads[0].sortIndex, 101);
    EXPECT_EQ(r.tracks[r.threads[0].track].tid, 101);

    // Trace-level facts, before and after traceEvents.
    const TraceInfo& info = r.info;
    EXPECT_EQ(info.schemaVersion, 1);
    ASSERT_EQ(info.devices.size(), 1u);
    EXPECT_EQ(info.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(info.devices[0].numSms, 132);
    EXPECT_EQ(info.devices[0].totalGlobalMem, 85045346304);
    EXPECT_EQ(info.cuptiVersion, "22");
    EXPECT_TRUE(info.distributed.present);
    EXPECT_EQ(info.distributed.rank, 3);
    EXPECT_EQ(info.distributed.worldSize, 4);
    EXPECT_EQ(info.distributed.backend, "nccl");
    EXPECT_EQ(info.distributed.ncclVersion, "2.21.5");
    ASSERT_EQ(info.distributed.processGroups.size(), 1u);
    EXPECT_EQ(info.distributed.processGroups[0].desc, "default_pg");
    EXPECT_EQ(info.distributed.processGroups[0].size, 4);
    EXPECT_EQ(info.distributed.processGroups[0].ranks, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(info.traceName, "small_current.json");
    EXPECT_EQ(info.displayTimeUnit, "ms");
    ASSERT_TRUE(info.baseTimeNanoseconds.has_value());
    EXPECT_EQ(*info.baseTimeNanoseconds, 1700000000000000000);
    ASSERT_EQ(info.otherKeys.size(), 1u);
    EXPECT_EQ(info.otherKeys[0].first, "trace_id");
    EXPECT_EQ(info.otherKeys[0].second, "\"ABC123\"");
    EXPECT_EQ(info.platform, Platform::Nvidia);
    EXPECT_EQ(r.rank, 3);
    EXPECT_EQ(r.rankSource, RankSource::DistributedInfo);
    EXPECT_EQ(r.stats.bytesRead, 4142u);  // the file's size (decompressed size for .gz)
}

}  // namespace

TEST(KinetoSmall, CurrentSchemaPlain) {
    auto r = loadKinetoTrace(smallKinetoSmall("current_schema.json"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    checkCurrentSchema(**r);
    EXPECT_FALSE((*r)->info.gzip);
}

TEST(KinetoSmall, CurrentSchemaGzipAndConcatenatedMembers) {
    for (const char* name : {"current_schema.json.gz", "two_members.json.gz"}) {
        SCOPED_TRACE(name);
        auto r = loadKinetoTrace(smallKinetoSmall(name));
        ASSERT_TRUE(r.ok()) << r.error().toString();
        checkCurrentSchema(**r);
        EXPECT_TRUE((*r)->info.gzip);
    }
}

TEST(KinetoSmall, EveryChunkSizeAndThreadCountGivesTheSameResult) {
    for (size_t chunk : {256u, 300u, 777u, 1024u, 4096u}) {
        for (int threads : {1, 2}) {
            SCOPED_TRACE(::testing::Message() << "chunk " << chunk << " threads " << threads);
            KinetoLoadOptions opt;
            opt.chunkBytes = chunk;
            opt.threads = threads;
            auto r = loadKinetoTrace(smallKinetoSmall("current_schema.json"), opt);
            ASSERT_TRUE(r.ok()) << r.error().toString();
            checkCurrentSchema(**r);
        }
    }
}

TEST(KinetoSmall, MetadataArrivesBeforeTheEventsWhenKeysComeFirst) {
    KinetoCallbacks cb;
    int calls = 0;
    size_t devicesSeen = 0;
    std::string traceNameSeen = "unset";
    uint64_t estimate = 0;
    Platform platform = Platform::Unknown;
    cb.onMetadata = [&](const TraceInfo& info) {
        ++calls;
        devicesSeen = info.devices.size();
        traceNameSeen = info.traceName;  // written after traceEvents: not known yet
        estimate = info.eventEstimate;
        platform = info.platform;
    };
    std::vector<std::string> stages;
    cb.onProgress = [&](const ProgressInfo& p) {
        if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
    };
    auto r = loadKinetoTrace(smallKinetoSmall("current_schema.json"), {}, cb);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(devicesSeen, 1u);
    EXPECT_EQ(traceNameSeen, "");
    EXPECT_GT(estimate, 0u);
    EXPECT_EQ(platform, Platform::Nvidia);
    ASSERT_GE(stages.size(), 2u);
    EXPECT_EQ(stages.front(), "read");
    EXPECT_EQ(stages.back(), "finish");
}

TEST(KinetoSmall, Schema2021WithTrailingKeysAndBeginEnd) {
    KinetoCallbacks cb;
    int calls = 0;
    Platform platform = Platform::Unknown;
    cb.onMetadata = [&](const TraceInfo& info) {
        ++calls;
        platform = info.platform;
    };
    auto r = loadKinetoTrace(smallKinetoSmall("schema_2021.json"), {}, cb);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(platform, Platform::Amd);  // roctracer_version is written after traceEvents
    EXPECT_EQ(d.info.roctracerVersion, "4.1");
    EXPECT_EQ(d.stats.events, 9u);
    const std::map<std::string, uint64_t> expectedCats = {{"Operator", 3}, {"Runtime", 1}, {"async_cpu_to_gpu", 2},
                                                          {"Kernel", 1},   {"Memcpy", 1},  {"Memset", 1}};
    EXPECT_EQ(categories(d), expectedCats);
    ASSERT_EQ(d.gpu.size(), 3u);
    EXPECT_EQ(d.gpu.kind[0], EventKind::Kernel);
    EXPECT_EQ(d.gpu.kind[1], EventKind::Memcpy);
    EXPECT_EQ(d.gpu.kind[2], EventKind::Memset);
    EXPECT_EQ(d.gpu.ts[0], 1621401187223100000);
    EXPECT_EQ(d.gpu.dur[0], 250000);
    EXPECT_EQ(d.gpu.stream[0], 7);
    EXPECT_EQ(d.gpu.externalId[0], 10);
    EXPECT_EQ(d.strings.view(d.tracks[d.gpu.track[0]].tidStr), "stream 7");
    ASSERT_EQ(d.flows.size(), 2u);
    EXPECT_EQ(d.strings.view(d.flows.cat[0]), "async_cpu_to_gpu");
    EXPECT_EQ(d.flows.id[1], 555);
    // B/E became one slice of 100 µs; the E row is gone.
    ASSERT_EQ(d.slices.size(), 3u);
    EXPECT_EQ(d.slices.kind[0], EventKind::CpuOp);
    EXPECT_EQ(d.slices.kind[1], EventKind::Runtime);
    EXPECT_EQ(d.strings.view(d.slices.name[2]), "begin_end_range");
    EXPECT_EQ(d.slices.dur[2], 100000);
    EXPECT_EQ(d.strings.view(d.tracks[d.slices.track[0]].tidStr), "7");
}

TEST(KinetoSmall, ArrayFormWithAndWithoutClosingBracket) {
    for (const char* name : {"array_closed.json", "array_open.json"}) {
        SCOPED_TRACE(name);
        auto r = loadKinetoTrace(smallKinetoSmall(name));
        ASSERT_TRUE(r.ok()) << r.error().toString();
        const RankData& d = **r;
        EXPECT_EQ(d.stats.events, 3u);
        EXPECT_FALSE(d.stats.truncated);
        EXPECT_FALSE(hasWarning(d));
        ASSERT_EQ(d.slices.size(), 3u);
        EXPECT_EQ(d.slices.ts[1], 12500);
        EXPECT_EQ(d.slices.dur[1], 1250);
        EXPECT_EQ(d.slices.phase[2], 'i');
        // Nothing says which platform: no deviceProperties, no version keys, no GPU activity or runtime call.
        EXPECT_EQ(d.info.platform, Platform::Unknown);
    }
    auto r = loadKinetoTrace(smallKinetoSmall("array_closed.json"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)->strings.view((*r)->slices.name[1]), "b \"quoted\" \\ {not a brace}");
}

TEST(KinetoSmall, TimestampsAreExactNanoseconds) {
    // 1.7e15 µs with three decimals: a double would give ...456.75, not ...456789.
    const std::string text = R"([
      {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1700000000123456.789,"dur":0.001},
      {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":"1700000000123457.001","dur":"2"},
      {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":1.5e3,"dur":2.0005},
      {"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":1,"ts":-3.25,"dur":7}
    ])";
    auto r = loadKinetoText(text, "inline.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.slices.size(), 4u);
    EXPECT_EQ(d.slices.ts[0], 1700000000123456789);
    EXPECT_EQ(d.slices.dur[0], 1);
    EXPECT_EQ(d.slices.ts[1], 1700000000123457001);
    EXPECT_EQ(d.slices.dur[1], 2000);
    EXPECT_EQ(d.slices.ts[2], 1500000);  // exponent form through double
    EXPECT_EQ(d.slices.dur[2], 2001);    // 2.0005 µs rounds half away from zero
    EXPECT_EQ(d.slices.ts[3], -3250);
}

TEST(KinetoSmall, StringAndNumberPidsAreDifferentTracks) {
    const std::string text = R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"a","pid":12,"tid":"12","ts":1,"dur":1},
      {"ph":"X","cat":"cpu_op","name":"b","pid":"12","tid":12,"ts":2,"dur":1},
      {"ph":"X","cat":"cpu_op","name":"c","pid":12,"tid":"12","ts":3,"dur":1}]})";
    auto r = loadKinetoText(text, "pids.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.tracks.size(), 2u);
    EXPECT_EQ(d.slices.track[0], d.slices.track[2]);
    EXPECT_NE(d.slices.track[0], d.slices.track[1]);
    const Track& a = d.tracks[d.slices.track[0]];
    EXPECT_EQ(a.pid, 12);
    EXPECT_EQ(d.strings.view(a.tidStr), "12");
    const Track& b = d.tracks[d.slices.track[1]];
    EXPECT_EQ(d.strings.view(b.pidStr), "12");
    EXPECT_EQ(b.tid, 12);
}

TEST(KinetoSmall, OtherPhasesAreKeptAsSlices) {
    const std::string text = R"({"traceEvents":[
      {"ph":"n","cat":"async","name":"a","pid":1,"tid":1,"ts":5,"id":3},
      {"ph":"P","name":"sample","pid":1,"tid":1,"ts":6},
      {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":7,"dur":1}]})";
    auto r = loadKinetoText(text, "phases.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& d = **r;
    ASSERT_EQ(d.slices.size(), 3u);
    EXPECT_EQ(d.slices.phase[0], 'n');
    EXPECT_EQ(d.slices.kind[0], EventKind::Async);
    EXPECT_EQ(d.slices.phase[1], 'P');
    EXPECT_EQ(d.stats.events, 3u);
    int infos = 0;
    for (const auto& diag : d.diagnostics)
        if (diag.severity == Severity::Info && diag.message.find("phase") != std::string::npos) ++infos;
    EXPECT_EQ(infos, 2);
}
