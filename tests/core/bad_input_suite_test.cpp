// The bad-input suite (tests/data/bad/suite, README.md there): every way a real trace goes wrong gives either an
// Error that names the file and what was expected (with the byte offset or event index where one exists), or a
// loaded rank with a warning saying what was skipped or kept — never a crash, a hang or a silently wrong number.
// After every case, the 8-rank sample run loaded first is checked unchanged (generation, column sizes, values).
// Everything goes through core::loadRun, the path the GUI and the CLI take.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine/memory_budget.h"
#include "core/engine/run_loader.h"
#include "tests/core/sample_run_suite.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

std::string suite(const std::string& name) { return std::string(STROBE_TEST_DATA_DIR) + "/bad/suite/" + name; }
bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

fs::path tempDir(const std::string& tag) {
    fs::path d = fs::temp_directory_path() / ("strobe_bad_suite_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// What a loaded run looked like, to prove a later bad load did not touch it.
struct Snapshot {
    uint64_t generation = 0;
    size_t ranks = 0;
    std::vector<size_t> slices, gpu, flows;
    std::vector<int64_t> firstTs, lastDur;
    bool operator==(const Snapshot&) const = default;
};

Snapshot snapshotOf(const Dataset& ds) {
    Snapshot s;
    s.generation = ds.generation;
    s.ranks = ds.ranks.size();
    for (const auto& r : ds.ranks) {
        s.slices.push_back(r->slices.size());
        s.gpu.push_back(r->gpu.size());
        s.flows.push_back(r->flows.size());
        s.firstTs.push_back(r->slices.size() ? r->slices.ts[0] : -1);
        s.lastDur.push_back(r->gpu.size() ? r->gpu.dur[r->gpu.size() - 1] : -1);
    }
    return s;
}

class BadInputSuite : public strobe::core::testing::SampleRunSuite {
protected:
    static void SetUpTestSuite() {
        loadSample(/*useCache=*/true);
        if (s_sample) s_before = new Snapshot(snapshotOf(**s_sample));
    }
    static void TearDownTestSuite() {
        delete s_before;
        s_before = nullptr;
        SampleRunSuite::TearDownTestSuite();
    }
    // Loads `paths` with a watchdog: a hang fails the test instead of blocking the suite forever.
    static Result<DatasetPtr> load(const std::vector<std::string>& paths, RunLoadOptions o = {}) {
        o.useCache = false;
        o.threads = 1;
        auto fut = std::async(std::launch::async, [paths, o] { return loadRun(paths, o); });
        if (fut.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            ADD_FAILURE() << "load hangs: " << paths.front();
            std::abort();  // cannot join a hung thread; abort rather than block ctest
        }
        return fut.get();
    }
    void expectSampleUnchanged() const {
        ASSERT_EQ(s_before->ranks, 8u);
        EXPECT_EQ(snapshotOf(**s_sample), *s_before) << "the previously loaded run changed";
    }
    static inline Snapshot* s_before = nullptr;
};

// All warnings of a loaded run: run level and per rank, as "location: message".
std::string warningsOf(const Dataset& ds) {
    std::string s;
    for (const auto& d : ds.diagnostics) s += d.toString() + "\n";
    for (const auto& r : ds.ranks)
        for (const auto& d : r->diagnostics) s += d.toString() + "\n";
    return s;
}

enum class Expect { Error, Warning, Clean };

struct BadInputSuiteCase {
    const char* file;
    Expect expect;
    std::vector<std::string> mustSay;  // in the error text (Error) or in the warnings (Warning)
    bool needsPlace = false;           // Error/Warning: a byte offset or event index is given
    // For loaded cases: expected (slices, gpu activities) of the single rank, -1 = not checked.
    int slices = -1, gpu = -1;
};

void PrintTo(const BadInputSuiteCase& c, std::ostream* os) { *os << c.file; }

class BadInputSuiteTable : public BadInputSuite, public ::testing::WithParamInterface<BadInputSuiteCase> {};

}  // namespace

TEST_P(BadInputSuiteTable, GivesTheStatedAnswerAndLeavesTheOpenRunAlone) {
    const BadInputSuiteCase& c = GetParam();
    const std::string path = suite(c.file);
    ASSERT_TRUE(fs::exists(path)) << path << " (run tests/data/bad/suite/make_suite.py)";
    auto r = load({path});
    if (r.ok()) {
        std::string w = warningsOf(*r.value());
        std::printf("[suite] %s: OK ranks=%zu slices=%zu gpu=%zu flows=%zu\n%s", c.file, r.value()->ranks.size(),
                    r.value()->ranks.empty() ? 0 : r.value()->ranks[0]->slices.size(),
                    r.value()->ranks.empty() ? 0 : r.value()->ranks[0]->gpu.size(),
                    r.value()->ranks.empty() ? 0 : r.value()->ranks[0]->flows.size(), w.c_str());
    } else {
        std::printf("[suite] %s: ERROR %s\n", c.file, r.error().toString().c_str());
    }
    switch (c.expect) {
        case Expect::Error: {
            ASSERT_FALSE(r.ok()) << c.file << " loaded; expected an error";
            const Error& e = r.error();
            EXPECT_TRUE(contains(e.toString(), fs::path(c.file).filename().string())) << e.toString();
            for (const auto& m : c.mustSay) EXPECT_TRUE(contains(e.toString(), m)) << e.toString() << " lacks " << m;
            if (c.needsPlace) {
                EXPECT_TRUE(e.where.byteOffset >= 0 || e.where.eventIndex >= 0) << e.toString();
            }
            break;
        }
        case Expect::Warning:
        case Expect::Clean: {
            ASSERT_TRUE(r.ok()) << r.error().toString();
            const Dataset& ds = *r.value();
            ASSERT_GE(ds.ranks.size(), 1u);
            const std::string w = warningsOf(ds);
            if (c.expect == Expect::Warning) {
                EXPECT_FALSE(w.empty()) << c.file << ": expected a warning";
                for (const auto& m : c.mustSay) EXPECT_TRUE(contains(w, m)) << w << " lacks " << m;
                if (c.needsPlace) {  // a per-rank warning locates itself in this file
                    bool placed = false;
                    for (const auto& d : ds.ranks[0]->diagnostics)
                        placed |= contains(d.where.file, fs::path(c.file).filename().string()) &&
                                  (d.where.byteOffset >= 0 || d.where.eventIndex >= 0);
                    EXPECT_TRUE(placed) << w;
                }
            } else {
                EXPECT_TRUE(w.empty()) << c.file << ": unexpected warnings:\n" << w;
            }
            if (c.slices >= 0) {
                EXPECT_EQ(ds.ranks[0]->slices.size(), static_cast<size_t>(c.slices)) << w;
            }
            if (c.gpu >= 0) {
                EXPECT_EQ(ds.ranks[0]->gpu.size(), static_cast<size_t>(c.gpu)) << w;
            }
            break;
        }
    }
    expectSampleUnchanged();
}

// The complete base trace (make_suite.py EVENTS) has 2 CPU slices (aten::mm, cudaLaunchKernel), 2 GPU activities
// (gemm_kernel, Memcpy HtoD) and one ac2g flow pair.
// Outcomes are what a user needs (design: "a warning where the rest of the file is usable"); the byte offsets in the
// truncation warnings are the lengths of the committed files (python3: len(open(f,'rb').read())), the kept counts
// are the complete events before the cut, counted by hand from make_suite.py.
INSTANTIATE_TEST_SUITE_P(
    Files, BadInputSuiteTable,
    ::testing::Values(
        // truncation: complete events are kept, the warning names the offset where the text ends and the count
        BadInputSuiteCase{"trunc_in_object.json",
                          Expect::Warning,
                          {"truncated", "byte 540", "kept the 2 complete events"},
                          true,
                          2,
                          0},
        BadInputSuiteCase{"trunc_in_string.json",
                          Expect::Warning,
                          {"truncated", "byte 510", "kept the 2 complete events"},
                          true,
                          2,
                          0},
        BadInputSuiteCase{"trunc_in_number.json",
                          Expect::Warning,
                          {"truncated", "byte 550", "kept the 2 complete events"},
                          true,
                          2,
                          0},
        BadInputSuiteCase{"trunc_in_escape.json",
                          Expect::Warning,
                          {"truncated", "byte 357", "kept the 1 complete events"},
                          true,
                          1,
                          0},
        BadInputSuiteCase{"trunc_after_comma.json",
                          Expect::Warning,
                          {"truncated", "byte 683", "kept the 3 complete events"},
                          true,
                          2,
                          1},
        BadInputSuiteCase{
            "trunc_in_header.json", Expect::Error, {"byte 40", "deviceProperties", "before \"traceEvents\""}, true},
        BadInputSuiteCase{"array_form_unclosed.json", Expect::Clean, {}, false, 2, 2},
        // encoding
        BadInputSuiteCase{"invalid_utf8_name.json", Expect::Warning, {"invalid UTF-8", "event 0"}, true, 2, 2},
        BadInputSuiteCase{"invalid_utf8_key.json", Expect::Warning, {"invalid UTF-8", "event 0"}, true, 2, 2},
        BadInputSuiteCase{"bom_utf8.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"bom_utf16le.json", Expect::Error, {"byte 0", "expected '{' or '['", "0xff"}, true},
        BadInputSuiteCase{"lone_surrogate_escape.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{
            "nul_byte_inside.json", Expect::Error, {"event 0", "expected a valid JSON event object"}, true},
        // numbers: the event is skipped with a warning naming the key, the value and the event
        BadInputSuiteCase{"nan_ts.json", Expect::Warning, {"event 0", "\"ts\"", "NaN"}, true, 1, 2},
        BadInputSuiteCase{"infinity_dur.json", Expect::Warning, {"event 0", "\"dur\"", "Infinity"}, true, 1, 2},
        BadInputSuiteCase{"ts_1e400.json", Expect::Warning, {"event 0", "\"ts\"", "1e400"}, true, 1, 2},
        BadInputSuiteCase{
            "ts_2pow70.json", Expect::Warning, {"event 0", "\"ts\"", "1180591620717411303424"}, true, 1, 2},
        BadInputSuiteCase{"dur_negative_huge.json", Expect::Warning, {"event 0", "\"dur\"", "-1e300"}, true, 1, 2},
        BadInputSuiteCase{
            "pid_2pow70.json", Expect::Warning, {"event 0", "\"pid\"", "1180591620717411303424"}, true, 1, 2},
        // an id that does not fit: the value is ignored, the event kept (a kernel is then linked by its flow only)
        BadInputSuiteCase{"correlation_2pow70.json",
                          Expect::Warning,
                          {"event 2", "\"correlation\"", "got 1180591620717411303424", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"correlation_negative.json",
                          Expect::Warning,
                          {"event 2", "\"correlation\"", "non-negative", "got -42", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"rank_2pow40.json",
                          Expect::Warning,
                          {"byte 113", "\"distributedInfo.rank\"", "got 1099511627776", "ignored"},
                          true,
                          2,
                          2},
        // nesting and duplicates: args are kept as text, never recursed into
        BadInputSuiteCase{"deep_args_10k.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"deep_args_objects_10k.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"duplicate_key_ts.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"duplicate_trace_events.json", Expect::Clean, {}, false, 2, 2},
        // wrong types of the keys that place an event: the event is skipped with a warning
        BadInputSuiteCase{"wrong_type_ph.json", Expect::Warning, {"event 0", "\"ph\""}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_cat.json", Expect::Warning, {"event 0", "\"cat\""}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_name.json", Expect::Warning, {"event 0", "\"name\""}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_pid.json", Expect::Warning, {"event 0", "\"pid\"", "an array"}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_tid.json", Expect::Warning, {"event 0", "\"tid\"", "an object"}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_ts.json", Expect::Warning, {"event 0", "\"ts\"", "\"abc\""}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_dur.json", Expect::Warning, {"event 0", "\"dur\"", "true"}, true, 1, 2},
        BadInputSuiteCase{"wrong_type_args.json", Expect::Warning, {"event 0", "\"args\"", "ignored"}, true, 2, 2},
        BadInputSuiteCase{
            "wrong_type_metadata.json",
            Expect::Warning,
            {"event 1", "\"process_name\" metadata", "got 5", "event 4", "\"thread_name\" metadata", "ignored"},
            true,
            2,
            0},
        BadInputSuiteCase{"wrong_type_counter.json",
                          Expect::Warning,
                          {"event 2", "counter \"memory\"", "\"reserved\"", "got a string \"lots\"", "ignored"},
                          true,
                          2,
                          0},
        BadInputSuiteCase{"many_bad_values.json",
                          Expect::Warning,
                          {"\"alpha\"", "\"echo\"", "8 ids or attributes", "the first 5 distinct messages"},
                          true,
                          1,
                          8},
        // wrong types of link/attribute keys: the event is kept, the value is not used, a warning names it
        BadInputSuiteCase{"wrong_type_id.json",
                          Expect::Warning,
                          {"event 4", "\"id\"", "got an object {\"i\":42}", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_external_id.json",
                          Expect::Warning,
                          {"event 0", "\"External id\"", "got a string \"seven\"", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_correlation.json",
                          Expect::Warning,
                          {"event 1", "\"correlation\"", "got an array [42]", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_device.json",
                          Expect::Warning,
                          {"event 2", "\"device\"", "got a string \"zero\"", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_stream.json",
                          Expect::Warning,
                          {"event 2", "\"stream\"", "got an object {\"s\":7}", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_grid.json",
                          Expect::Warning,
                          {"event 2", "\"grid\"", "array of 3 integers", "got a string \"1,1,1\"", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_block.json",
                          Expect::Warning,
                          {"event 2", "\"block\"", "array of 3 integers", "got 128", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_bytes.json",
                          Expect::Warning,
                          {"event 3", "\"bytes\"", "got a string \"lots\"", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"ids_as_strings.json", Expect::Clean, {}, false, 2, 2},
        // trace-level keys; byte N is where the key's value starts (just after its ':'), e.g. 113 for distributedInfo
        BadInputSuiteCase{"wrong_type_deviceProperties.json",
                          Expect::Warning,
                          {"byte 40", "deviceProperties", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_rank.json",
                          Expect::Warning,
                          {"byte 113", "\"distributedInfo.rank\"", "got a string \"zero\"", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_world_size.json",
                          Expect::Warning,
                          {"byte 113", "\"distributedInfo.world_size\"", "got an array [1]", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"wrong_type_pg_config.json",
                          Expect::Warning,
                          {"byte 113", "\"distributedInfo.pg_config\"", "got 17", "ignored"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{
            "wrong_type_schemaVersion.json", Expect::Warning, {"byte 17", "schemaVersion", "ignored"}, true, 2, 2},
        BadInputSuiteCase{"wrong_type_traceEvents_string.json",
                          Expect::Error,
                          {"byte 178", "\"traceEvents\" must be an array"},
                          true},
        BadInputSuiteCase{
            "wrong_type_traceEvents_null.json", Expect::Error, {"byte 178", "\"traceEvents\" must be an array"}, true},
        BadInputSuiteCase{
            "event_not_object.json", Expect::Warning, {"event 2", "event 3", "expected an event object"}, true, 2, 2},
        // semantics
        BadInputSuiteCase{"events_out_of_order.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{
            "negative_dur.json", Expect::Warning, {"event 0", "negative \"dur\"", "kept with dur 0"}, true, 2, 2},
        BadInputSuiteCase{"zero_dur.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"clock_jump.json", Expect::Clean, {}, false, 4, 2},
        BadInputSuiteCase{"flow_without_end.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"flow_without_start.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"correlation_nowhere.json", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"no_events.json", Expect::Clean, {}, false, 0, 0},
        BadInputSuiteCase{"trailing_text.json", Expect::Warning, {"byte 1052", "after the end", "ignored"}, true, 2, 2},
        BadInputSuiteCase{
            "same_rank", Expect::Warning, {"rank 0 appears in 2 files", "rank0_a.json", "rank0_b.json"}, false, 2, 2},
        // compression and files
        BadInputSuiteCase{"gzip_trailing_garbage.json.gz",
                          Expect::Warning,
                          {"16 bytes after the end of the gzip stream"},
                          true,
                          2,
                          2},
        BadInputSuiteCase{"gzip_empty.json.gz", Expect::Error, {"byte 0", "empty"}, true},
        BadInputSuiteCase{"gzip_truncated.json.gz",
                          Expect::Warning,
                          {"gzip stream ends early", "kept the 0 complete events"},
                          true,
                          0,
                          0},
        BadInputSuiteCase{"gzip_bad_crc.json.gz", Expect::Error, {"corrupt gzip stream", "incorrect data check"}, true},
        BadInputSuiteCase{"plain_named_gz.json.gz", Expect::Clean, {}, false, 2, 2},
        BadInputSuiteCase{"zero_bytes.json", Expect::Error, {"byte 0", "empty"}, true},
        BadInputSuiteCase{"whitespace_only.json", Expect::Error, {"empty"}, true},
        BadInputSuiteCase{"not_traces", Expect::Error, {"no trace files"}, false}));

// What "ignored" means for the values and what the accepted string forms give, from make_suite.py: the base trace's
// cudaLaunchKernel carries correlation 42, gemm_kernel correlation 42 on device 0 stream 7 with grid [1,1,1] and
// block [128,1,1], the memcpy 1024 bytes, and the ac2g flow id 42 ties the launch to the kernel.
TEST_F(BadInputSuite, IgnoredValuesAreNotUsedAndQuotedIdsAreRead) {
    auto rowNamed = [](const RankData& r, const auto& table, std::string_view name) {
        for (size_t i = 0; i < table.size(); ++i)
            if (r.strings.view(table.name[i]) == name) return static_cast<int64_t>(i);
        return int64_t{-1};
    };
    {  // numbers written as strings: read as the numbers, the kernel is linked as in the base trace
        auto r = load({suite("ids_as_strings.json")});
        ASSERT_TRUE(r.ok()) << r.error().toString();
        const RankData& rank = *r.value()->ranks.at(0);
        const int64_t mm = rowNamed(rank, rank.slices, "aten::mm");
        const int64_t launch = rowNamed(rank, rank.slices, "cudaLaunchKernel");
        const int64_t kernel = rowNamed(rank, rank.gpu, "gemm_kernel");
        const int64_t copy = rowNamed(rank, rank.gpu, "Memcpy HtoD");
        ASSERT_TRUE(mm >= 0 && launch >= 0 && kernel >= 0 && copy >= 0);
        EXPECT_EQ(rank.slices.externalId[mm], 7);
        EXPECT_EQ(rank.slices.correlation[launch], 42);
        EXPECT_EQ(rank.gpu.device[kernel], 0);
        EXPECT_EQ(rank.gpu.stream[kernel], 7);
        EXPECT_EQ(rank.gpu.bytes[copy], 1024);  // "0x400"
        EXPECT_EQ(rank.gpu.runtime[kernel], launch);
        EXPECT_EQ(rank.gpu.cpuOp[kernel], mm);
        ASSERT_EQ(rank.flows.size(), 2u);
        EXPECT_EQ(rank.flows.id[0], 42);
        EXPECT_EQ(rank.flows.id[1], 42);
    }
    {  // the launch's correlation is unusable: it has none, the kernel keeps its own and is linked by the flow only
        auto r = load({suite("wrong_type_correlation.json")});
        ASSERT_TRUE(r.ok()) << r.error().toString();
        const RankData& rank = *r.value()->ranks.at(0);
        const int64_t launch = rowNamed(rank, rank.slices, "cudaLaunchKernel");
        const int64_t kernel = rowNamed(rank, rank.gpu, "gemm_kernel");
        ASSERT_TRUE(launch >= 0 && kernel >= 0);
        EXPECT_EQ(rank.slices.correlation[launch], kNone);
        EXPECT_EQ(rank.gpu.correlation[kernel], 42);
        EXPECT_EQ(rank.gpu.runtime[kernel], launch);  // through ac2g id 42
        EXPECT_TRUE(contains(std::string(rank.strings.view(rank.slices.args[launch])), "\"correlation\":[42]"))
            << "the ignored value stays visible in the event's args";
    }
    {  // the flow start has no usable id: the flow pair is broken, the kernel is still linked by correlation
        auto r = load({suite("wrong_type_id.json")});
        ASSERT_TRUE(r.ok()) << r.error().toString();
        const RankData& rank = *r.value()->ranks.at(0);
        ASSERT_EQ(rank.flows.size(), 2u);
        EXPECT_EQ(rank.flows.id[0], kNone);
        EXPECT_EQ(rank.gpu.runtime[rowNamed(rank, rank.gpu, "gemm_kernel")], rowNamed(rank, rank.slices, "cudaLaunchKernel"));
    }
    {  // device, stream, grid, block, bytes: the defaults (device/stream from pid/tid 0/7, dims 0, bytes 0)
        auto device = load({suite("wrong_type_device.json")});
        auto stream = load({suite("wrong_type_stream.json")});
        auto grid = load({suite("wrong_type_grid.json")});
        auto block = load({suite("wrong_type_block.json")});
        auto bytes = load({suite("wrong_type_bytes.json")});
        ASSERT_TRUE(device.ok() && stream.ok() && grid.ok() && block.ok() && bytes.ok());
        const RankData& d = *device.value()->ranks.at(0);
        const RankData& s = *stream.value()->ranks.at(0);
        const RankData& g = *grid.value()->ranks.at(0);
        const RankData& b = *block.value()->ranks.at(0);
        const RankData& y = *bytes.value()->ranks.at(0);
        EXPECT_EQ(d.gpu.device[rowNamed(d, d.gpu, "gemm_kernel")], 0);
        EXPECT_EQ(s.gpu.stream[rowNamed(s, s.gpu, "gemm_kernel")], 7);
        const int64_t gk = rowNamed(g, g.gpu, "gemm_kernel");
        EXPECT_EQ(g.gpu.gridX[gk], 0);
        EXPECT_EQ(g.gpu.blockX[gk], 128);
        const int64_t bk = rowNamed(b, b.gpu, "gemm_kernel");
        EXPECT_EQ(b.gpu.gridX[bk], 1);
        EXPECT_EQ(b.gpu.blockX[bk], 0);
        EXPECT_EQ(y.gpu.bytes[rowNamed(y, y.gpu, "Memcpy HtoD")], 0);
    }
    {  // a rank that does not fit: not truncated into some other rank; it comes from the file order instead
        auto r = load({suite("rank_2pow40.json")});
        ASSERT_TRUE(r.ok()) << r.error().toString();
        EXPECT_EQ(r.value()->ranks.at(0)->info.distributed.rank, -1);
    }
    expectSampleUnchanged();
}

// A 10 MB string (a kernel name as long as the file): loads, keeps the name whole.
TEST_F(BadInputSuite, TenMegabyteStringLoadsWhole) {
    const fs::path dir = tempDir("bigstring");
    const std::string big(10u << 20, 'k');
    {
        std::ofstream f(dir / "big_string.json", std::ios::binary);
        f << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")" << big
          << R"(", "pid": 1, "tid": 1, "ts": 1.000, "dur": 2.000}, {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 5.000, "dur": 1.000}]})";
    }
    auto r = load({(dir / "big_string.json").string()});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = *r.value()->ranks.at(0);
    ASSERT_EQ(rank.slices.size(), 2u);
    EXPECT_EQ(rank.strings.view(rank.slices.name[0]).size(), big.size());
    EXPECT_EQ(rank.slices.ts[1], 5000);
    expectSampleUnchanged();
    fs::remove_all(dir);
}

// A symlink loop (a.json -> b.json -> a.json) given directly and inside a run directory.
TEST_F(BadInputSuite, SymlinkLoopIsAnErrorNotAHang) {
    const fs::path dir = tempDir("loop");
    fs::create_symlink(dir / "b.json", dir / "a.json");
    fs::create_symlink(dir / "a.json", dir / "b.json");
    auto direct = load({(dir / "a.json").string()});
    ASSERT_FALSE(direct.ok());
    EXPECT_TRUE(contains(direct.error().toString(), "a.json")) << direct.error().toString();
    auto asDir = load({dir.string()});
    ASSERT_FALSE(asDir.ok());
    EXPECT_TRUE(contains(asDir.error().toString(), "no trace files")) << asDir.error().toString();
    // A directory link pointing at its own parent: searched one level down only.
    const fs::path dir2 = tempDir("dirloop");
    fs::create_directory_symlink(dir2, dir2 / "self");
    auto selfLoop = load({dir2.string()});
    ASSERT_FALSE(selfLoop.ok());
    EXPECT_TRUE(contains(selfLoop.error().toString(), "no trace files")) << selfLoop.error().toString();
    expectSampleUnchanged();
    fs::remove_all(dir);
    fs::remove_all(dir2);
}

// "A file without read permission": the tests run as root in CI, and root ignores mode bits, so chmod 000 alone
// proves nothing. Covered instead by the ways an open really fails for root too: a path named like a trace that is a
// directory (x.json/), and a FIFO (no writer: opening it for reading would block forever — the loader must refuse
// non-regular files before opening them). When not root, a chmod 000 file is checked as well.
TEST_F(BadInputSuite, UnreadablePathsAreRefused) {
    const fs::path dir = tempDir("unreadable");
    fs::create_directory(dir / "x.json");
    auto d = load({(dir / "x.json").string()});
    ASSERT_FALSE(d.ok());
    EXPECT_TRUE(contains(d.error().toString(), "x.json")) << d.error().toString();

    ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
    auto f = load({(dir / "fifo.json").string()});
    ASSERT_FALSE(f.ok());
    EXPECT_TRUE(contains(f.error().toString(), "fifo.json")) << f.error().toString();
    EXPECT_TRUE(contains(f.error().message, "neither a trace file nor a run directory")) << f.error().toString();

    if (::geteuid() != 0) {
        fs::copy_file(suite("array_form_unclosed.json"), dir / "noperm.json");
        fs::permissions(dir / "noperm.json", fs::perms::none);
        auto p = load({(dir / "noperm.json").string()});
        ASSERT_FALSE(p.ok());
        EXPECT_TRUE(contains(p.error().toString(), "noperm.json")) << p.error().toString();
    }
    expectSampleUnchanged();
    fs::remove_all(dir);
}

// Resource bounds: a run that would need more than the limit is refused before parsing, naming file/estimate/limit.
TEST_F(BadInputSuite, MemoryLimitRefusesUpFront) {
    const std::string file = suite("array_form_unclosed.json");  // ~1 KB; estimate = size / 2
    const uint64_t size = fs::file_size(file);
    RunLoadOptions o;
    o.memoryLimitBytes = size / 4;  // below the estimate of size × 0.5
    auto r = load({file}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.file, file);
    EXPECT_TRUE(contains(r.error().message, "refused")) << r.error().toString();
    EXPECT_TRUE(contains(r.error().message, MemoryBudget::formatSize(size / 2))) << r.error().toString();
    EXPECT_TRUE(contains(r.error().message, MemoryBudget::formatSize(size / 4))) << r.error().toString();

    o.memoryLimitBytes = size;  // above the estimate: loads
    auto ok = load({file}, o);
    EXPECT_TRUE(ok.ok()) << ok.error().toString();
    expectSampleUnchanged();
}

TEST(MemoryBudget, ParsesSizesAndEstimatesGzipSanely) {
    EXPECT_EQ(MemoryBudget::parseSize("512M"), 512ull << 20);
    EXPECT_EQ(MemoryBudget::parseSize("2G"), 2ull << 30);
    EXPECT_EQ(MemoryBudget::parseSize("1.5g"), 3ull << 29);
    EXPECT_EQ(MemoryBudget::parseSize("4096"), 4096u);
    EXPECT_EQ(MemoryBudget::parseSize("lots"), 0u);
    EXPECT_EQ(MemoryBudget::parseSize("-1G"), 0u);
    EXPECT_GT(MemoryBudget::defaultLimit(), 0u);

    // Plain: the file size. Gzip: max(ISIZE, compressed × 4). gzip_empty has ISIZE 0 → 4 × its 20 bytes.
    EXPECT_EQ(MemoryBudget::jsonSizeOf(suite("zero_dur.json")).value(), fs::file_size(suite("zero_dur.json")));
    EXPECT_EQ(MemoryBudget::jsonSizeOf(suite("gzip_empty.json.gz")).value(), 4 * fs::file_size(suite("gzip_empty.json.gz")));
    // gzip_trailing_garbage ends in "GARB"-bytes: ISIZE read from the last 4 bytes is garbage but bounded by 2^32.
    EXPECT_LT(MemoryBudget::jsonSizeOf(suite("gzip_trailing_garbage.json.gz")).value(), 1ull << 32);
    EXPECT_FALSE(MemoryBudget::jsonSizeOf(suite("no_such_file.json")).ok());

    // Concurrency adds up: two files of the same size need twice one.
    const std::string a = suite("same_rank/rank0_a.json"), b = suite("same_rank/rank0_b.json");
    const uint64_t one = MemoryBudget::estimateFile(a).value();
    EXPECT_TRUE(MemoryBudget(one + 1).check({a, b}, 1).ok());
    auto both = MemoryBudget(one + 1).check({a, b}, 2);
    ASSERT_FALSE(both.ok());
    EXPECT_TRUE(contains(both.error().message, "2 files at once")) << both.error().toString();
}

TEST(MemoryBudget, EnvironmentOverrides) {
    ::setenv("STROBE_MEMORY_LIMIT", "1K", 1);
    EXPECT_EQ(MemoryBudget(1ull << 40).limit(), 1024u);
    ::setenv("STROBE_MEMORY_LIMIT", "nonsense", 1);
    EXPECT_EQ(MemoryBudget(1ull << 40).limit(), 1ull << 40);
    ::unsetenv("STROBE_MEMORY_LIMIT");
}
