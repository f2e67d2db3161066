// The SQLite-based formats (nsys export, RPD, rocpd, rocprof-compute) on the real samples in tests/data/sqlite,
// against tests/data/expected/sqlite_facts.json (written by sqlite_facts.py with Python's sqlite3 module), then
// mergeRank + validateRankData; and the wrapper's handling of bad input (errors name the file and the table).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

#include <cstdlib>

#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocpd_sqlite.h"
#include "core/formats/rocprof_compute_db.h"
#include "core/formats/rocprof_v1_db.h"
#include "core/formats/rpd_sqlite.h"
#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"
#include "core/model/validate.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kDir = std::string(STROBE_TEST_DATA_DIR) + "/sqlite/";

simdjson::dom::element facts(const std::string& file) {
    static simdjson::dom::parser parser;
    static simdjson::dom::element root = [] {
        simdjson::dom::element r;
        const std::string p = std::string(STROBE_TEST_DATA_DIR) + "/expected/sqlite_facts.json";
        EXPECT_FALSE(parser.load(p).get(r)) << p;
        return r;
    }();
    return root[file].value_unsafe();
}

int64_t num(simdjson::dom::element e, const char* key) { return e[key].get_int64().value_unsafe(); }

const ClassificationRules& rules() {
    static const ClassificationRules r = [] {
        auto x = ClassificationRules::loadDefault();
        return x.ok() ? std::move(x.value()) : ClassificationRules{};
    }();
    return r;
}

void mergeAndValidateSqliteFormats(RankData& r) {
    auto m = mergeRank(r, rules());
    ASSERT_TRUE(m.ok()) << m.error().toString();
    auto v = validateRankData(r);
    ASSERT_TRUE(v.ok()) << v.error().toString();
}

// Loads `file` through the registry entry `id` (sniffed from its table names first).
std::vector<std::unique_ptr<RankData>> loadVia(const std::string& id, const std::string& file,
                                               const std::string& dir = kDir) {
    const SourceFormat* f = findSourceFormat(id);
    EXPECT_NE(f, nullptr) << id;
    if (!f) return {};
    SniffInput in;
    in.path = dir + file;
    in.sqliteTables = listSqliteTables(in.path);
    EXPECT_GT(f->sniff(in), 0) << file;
    // The best-scoring format is this one.
    int best = 0;
    const SourceFormat* bestFormat = nullptr;
    for (const SourceFormat* g : sourceFormats())
        if (int s = g->sniff(in); s > best) best = s, bestFormat = g;
    EXPECT_EQ(bestFormat, f) << file;
    SourceGroup group;
    group.format = id;
    group.path = in.path;
    group.files = {in.path};
    auto r = f->load(group, SourceLoadOptions{}, CancelToken{});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    if (!r.ok()) return {};
    return std::move(r.value());
}

struct GpuFacts {
    int64_t kernels = 0, kernelDur = 0, memcpy = 0, memcpyBytes = 0, memset = 0, memsetBytes = 0, linked = 0;
    std::set<std::string> names;
};

GpuFacts gpuFacts(const RankData& r) {
    GpuFacts f;
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        switch (r.gpu.kind[i]) {
        case EventKind::Kernel:
            ++f.kernels;
            f.kernelDur += r.gpu.dur[i];
            f.names.insert(r.strings.str(r.gpu.name[i]));
            break;
        case EventKind::Memcpy: ++f.memcpy, f.memcpyBytes += r.gpu.bytes[i]; break;
        case EventKind::Memset: ++f.memset, f.memsetBytes += r.gpu.bytes[i]; break;
        default: break;
        }
        if (r.gpu.runtime.size() == r.gpu.size() && r.gpu.runtime[i] >= 0) ++f.linked;
    }
    return f;
}

void checkNsys(const std::string& file, const std::string& gpuName, size_t gpus) {
    SCOPED_TRACE(file);
    auto ranks = loadVia("nsys-sqlite", file);
    auto exp = facts(file);
    auto procs = exp["processes"].get_object().value_unsafe();
    ASSERT_EQ(ranks.size(), procs.size());
    size_t i = 0;
    for (auto [pidKey, p] : procs) {
        RankData& r = *ranks[i++];
        ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(r));
        ASSERT_FALSE(r.processes.empty());
        EXPECT_EQ(std::to_string(r.processes[0].pid), std::string(pidKey));
        GpuFacts g = gpuFacts(r);
        EXPECT_EQ(g.kernels, num(p, "kernels"));
        EXPECT_EQ(g.kernelDur, num(p, "kernel_dur_ns"));
        EXPECT_EQ(static_cast<int64_t>(g.names.size()), num(p, "kernel_names"));
        EXPECT_EQ(g.memcpy, num(p, "memcpy"));
        EXPECT_EQ(g.memcpyBytes, num(p, "memcpy_bytes"));
        EXPECT_EQ(g.memset, num(p, "memset"));
        EXPECT_EQ(g.memsetBytes, num(p, "memset_bytes"));
        EXPECT_EQ(g.linked, num(p, "linked"));
        int64_t runtime = 0, nvtx = 0, marks = 0;
        for (size_t s = 0; s < r.slices.size(); ++s) {
            const auto k = r.slices.kind[s];
            runtime += k == EventKind::Runtime || k == EventKind::Driver;
            nvtx += k == EventKind::UserAnnotation;
            marks += k == EventKind::CpuInstant;
        }
        EXPECT_EQ(runtime, num(p, "runtime"));
        EXPECT_EQ(nvtx, num(p, "nvtx_ranges"));
        EXPECT_EQ(marks, num(p, "nvtx_marks"));
        EXPECT_EQ(r.info.format, "nsys-sqlite");
        EXPECT_EQ(r.info.toolVersion, std::string(exp["tool_version"].get_string().value_unsafe()));
        EXPECT_EQ(r.info.platform, Platform::Nvidia);
        EXPECT_EQ(r.info.clock.domain, ClockDomain::SessionRelative);
        EXPECT_TRUE(r.info.clock.anchored);
        EXPECT_EQ(r.info.clock.toRealtimeNs, num(exp, "session_start_ns"));
        ASSERT_EQ(r.info.devices.size(), gpus);
        EXPECT_EQ(r.info.gpuName(), gpuName);
    }
}

}  // namespace

TEST(NsysSqlite, CloverleafA100MatchesPython) {
    checkNsys("nsys_cloverleaf_a100.sqlite", "NVIDIA A100-SXM4-80GB", 4);
}

TEST(NsysSqlite, FuserH200MatchesPython) { checkNsys("nsys_fuser_h200.sqlite", "NVIDIA H200", 1); }

TEST(NsysSqlite, H200DeviceFactsAndNames) {
    auto ranks = loadVia("nsys-sqlite", "nsys_fuser_h200.sqlite");
    ASSERT_EQ(ranks.size(), 1u);
    const RankData& r = *ranks[0];
    // TARGET_INFO_GPU of this export (read with the sqlite3 shell): 132 SMs, 150137864192 bytes, CC 9.0.
    EXPECT_EQ(r.info.devices[0].numSms, 132);
    EXPECT_EQ(r.info.devices[0].totalGlobalMem, 150137864192);
    EXPECT_EQ(r.info.devices[0].computeMajor, 9);
    // PROCESSES names pid 30571 "./bin/test_matmul".
    EXPECT_EQ(r.strings.str(r.processes[0].name), "./bin/test_matmul");
}

TEST(RpdSqlite, MatmulMatchesPython) {
    auto ranks = loadVia("rpd", "rpd_matmul.rpd");
    ASSERT_EQ(ranks.size(), 1u);
    RankData& r = *ranks[0];
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(r));
    auto exp = facts("rpd_matmul.rpd");
    GpuFacts g = gpuFacts(r);
    EXPECT_EQ(g.kernels, num(exp, "kernels"));
    EXPECT_EQ(g.kernelDur, num(exp, "kernel_dur_ns"));
    simdjson::dom::element byType = exp["ops_by_type"].value_unsafe();
    EXPECT_EQ(g.memcpy, num(byType, "CopyDeviceToHost") + num(byType, "CopyHostToDevice"));
    EXPECT_EQ(g.memset, num(byType, "FillBuffer"));
    EXPECT_EQ(g.memcpyBytes, num(exp, "copy_bytes"));
    EXPECT_EQ(g.linked, num(exp, "linked_ops"));
    EXPECT_EQ(static_cast<int64_t>(r.slices.size()), num(exp, "api_calls"));
    EXPECT_EQ(static_cast<int64_t>(r.samples.size()), num(exp, "monitor_samples"));
    // The copy directions come from the op type names (CopyDeviceToHost ...).
    int64_t dtoh = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i) dtoh += r.gpu.copyDirection[i] == CopyDirection::DtoH;
    EXPECT_EQ(dtoh, num(byType, "CopyDeviceToHost"));
    // rocpd_monitor row 2 (sqlite3 shell): gpu 0, sclk, start 8306017492311037, value "1700".
    ASSERT_GE(r.samples.size(), 2u);
    EXPECT_EQ(r.samples.ts[1], 8306017492311037);
    EXPECT_EQ(r.strings.str(r.samples.metric[1]), "sclk_mhz");
    EXPECT_EQ(r.samples.value[1], 1700.0);
    EXPECT_EQ(r.info.platform, Platform::Amd);
    EXPECT_EQ(r.info.toolVersion, "rocpd schema 2");
    EXPECT_EQ(r.info.clock.domain, ClockDomain::Boottime);
}

TEST(RocprofComputeDb, Mi350MatchesPython) {
    auto ranks = loadVia("rocprof-compute-db", "rocprof_compute_mi350.db");
    ASSERT_EQ(ranks.size(), 1u);
    RankData& r = *ranks[0];
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(r));
    auto exp = facts("rocprof_compute_mi350.db");
    GpuFacts g = gpuFacts(r);
    EXPECT_EQ(g.kernels, num(exp, "dispatches"));
    EXPECT_EQ(g.kernelDur, num(exp, "kernel_dur_ns"));
    EXPECT_EQ(static_cast<int64_t>(g.names.size()), num(exp, "kernel_names"));
    EXPECT_EQ(static_cast<int64_t>(r.kernelCounters.size()), num(exp, "metric_values"));
    EXPECT_EQ(r.stats.joinMatchRate, 1.0);
    // The value Python found for metric 2.1.0 'Peak' of the first dispatched kernel that has it.
    const std::string kernel(exp["valu_flops_peak_kernel"].get_string().value_unsafe());
    const double peak = exp["valu_flops_peak"].get_double().value_unsafe();
    int64_t firstRow = -1;
    for (size_t i = 0; i < r.gpu.size(); ++i)
        if (r.strings.str(r.gpu.name[i]) == kernel && (firstRow < 0 || r.gpu.ts[i] < r.gpu.ts[firstRow]))
            firstRow = static_cast<int64_t>(i);
    ASSERT_GE(firstRow, 0);
    bool found = false;
    for (size_t i = 0; i < r.kernelCounters.size(); ++i)
        if (r.kernelCounters.gpuRow[i] == firstRow &&
            r.strings.str(r.kernelCounters.name[i]) == "2.1.0 VALU FLOPs: Peak") {
            EXPECT_DOUBLE_EQ(r.kernelCounters.value[i], peak);
            found = true;
        }
    EXPECT_TRUE(found);
    ASSERT_EQ(r.info.devices.size(), 1u);
    EXPECT_EQ(r.info.gpuName(), std::string(exp["gpu_model"].get_string().value_unsafe()));
    EXPECT_EQ(r.info.devices[0].warpSize, 64);  // sys_info_extdata wave_size
    EXPECT_EQ(r.info.toolVersion, "3.5.0");     // compute_metadata.compute_version
}

TEST(RocpdSqlite, DocumentedLayoutMatchesPython) {
    auto ranks = loadVia("rocpd", "rocpd_doc_sample.db");
    ASSERT_EQ(ranks.size(), 1u);
    RankData& r = *ranks[0];
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(r));
    auto exp = facts("rocpd_doc_sample.db");
    GpuFacts g = gpuFacts(r);
    EXPECT_EQ(g.kernels, num(exp, "kernels"));
    EXPECT_EQ(g.kernelDur, num(exp, "kernel_dur_ns"));
    EXPECT_EQ(g.memcpy, num(exp, "memcpy"));
    EXPECT_EQ(g.memcpyBytes, num(exp, "memcpy_bytes"));
    EXPECT_EQ(g.linked, num(exp, "linked"));
    EXPECT_EQ(static_cast<int64_t>(r.slices.size()), num(exp, "regions"));
    int64_t markers = 0;
    for (size_t i = 0; i < r.slices.size(); ++i) markers += r.slices.kind[i] == EventKind::UserAnnotation;
    EXPECT_EQ(markers, num(exp, "markers"));
    // PMC values are found through the UUID-suffixed tables (the sample has no view for them).
    EXPECT_EQ(static_cast<int64_t>(r.kernelCounters.size()), num(exp, "pmc_values"));
    EXPECT_EQ(r.stats.joinMatchRate, 1.0);
    bool found = false;
    for (size_t i = 0; i < r.kernelCounters.size(); ++i)
        if (r.strings.str(r.kernelCounters.name[i]) == "SQ_WAVES" && r.gpu.correlation[r.kernelCounters.gpuRow[i]] == 3) {
            EXPECT_EQ(r.kernelCounters.value[i], exp["sq_waves_dispatch_3"].get_double().value_unsafe());
            found = true;
        }
    EXPECT_TRUE(found);  // correlation ids 1..6 are the dispatches' (the generator numbers them in order)
    ASSERT_FALSE(r.processes.empty());
    EXPECT_EQ(r.processes[0].pid, num(exp, "pid"));
    EXPECT_EQ(r.info.gpuName(), std::string(exp["gpu"].get_string().value_unsafe()));
    EXPECT_EQ(r.info.toolVersion, "rocpd schema 3");
    int64_t dtoh = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i) dtoh += r.gpu.copyDirection[i] == CopyDirection::DtoH;
    EXPECT_EQ(dtoh, 1);  // one MEMORY_COPY_DEVICE_TO_HOST
    const SourceFormat* f = findSourceFormat("rocpd");
    EXPECT_TRUE(f->documentationBuilt);
}

TEST(RocpdSqlite, TableResolutionPrefersViewsThenSuffix) {
    const std::vector<std::string> t = {"rocpd_string_abc", "rocpd_region", "rocpd_region_abc", "rocpd_string2"};
    EXPECT_EQ(rocpdTable(t, "rocpd_region"), "rocpd_region");
    EXPECT_EQ(rocpdTable(t, "rocpd_string"), "rocpd_string_abc");
    EXPECT_EQ(rocpdTable(t, "rocpd_event"), "");
}

TEST(RocprofV1Db, ResultsDbMatchesResultsCsv) {
    auto ranks = loadVia("rocprof-v1-db", "rocprof_v1/results.db");
    ASSERT_EQ(ranks.size(), 1u);
    RankData& r = *ranks[0];
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(r));
    auto exp = facts("rocprof_v1");
    GpuFacts g = gpuFacts(r);
    // The database and the CSV rendering of the same run agree (Python), and Strobe's reading of the database
    // matches both.
    EXPECT_EQ(num(exp, "db_kernels"), num(exp, "csv_kernels"));
    EXPECT_EQ(num(exp, "db_dur_ns"), num(exp, "csv_dur_ns"));
    EXPECT_EQ(g.kernels, num(exp, "csv_kernels"));
    EXPECT_EQ(g.kernelDur, num(exp, "csv_dur_ns"));
    EXPECT_EQ(static_cast<int64_t>(g.names.size()), num(exp, "kernel_names"));
    EXPECT_EQ(r.processes[0].pid, num(exp, "pid"));
    EXPECT_EQ(r.info.platform, Platform::Amd);
}

// ---- bad input: every error names the file and, where one is concerned, the table (and the row) ----

namespace {

// Writes an SQLite database from SQL text (the test's own fixture, built with libsqlite3 directly).
void makeDb(const std::filesystem::path& p, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(p.string().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
}

Result<std::vector<std::unique_ptr<RankData>>> loadDirect(const std::string& id, const std::string& path) {
    SourceGroup g;
    g.format = id;
    g.path = path;
    g.files = {path};
    return findSourceFormat(id)->load(g, SourceLoadOptions{}, CancelToken{});
}

}  // namespace

TEST(SqliteDb, OpensReadOnlyAndNeverWrites) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "ro.sqlite";
    std::filesystem::copy_file(kDir + "rpd_matmul.rpd", p);
    std::filesystem::permissions(p, std::filesystem::perms::owner_read);
    const auto before = std::filesystem::last_write_time(p);
    auto db = SqliteDb::open(p.string());
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_TRUE(db->hasTable("rocpd_op"));
    EXPECT_TRUE(db->hasColumn("rocpd_op", "gpuId"));
    EXPECT_FALSE(db->hasColumn("rocpd_op", "nope"));
    EXPECT_EQ(db->firstColumn("rocpd_op", {"nope", "queueId", "gpuId"}), "queueId");
    EXPECT_EQ(db->rowCount("rocpd_op"), 85);  // sqlite3 shell: select count(*) from rocpd_op
    // A write through the wrapper's connection is refused.
    auto st = db->prepare("DELETE FROM rocpd_op", "rocpd_op");
    if (st.ok()) {
        auto r = st->step();
        EXPECT_FALSE(r.ok());
    }
    EXPECT_EQ(db->rowCount("rocpd_op"), 85);
    EXPECT_EQ(std::filesystem::last_write_time(p), before);
    EXPECT_FALSE(std::filesystem::exists(p.string() + "-journal"));
    EXPECT_FALSE(std::filesystem::exists(p.string() + "-wal"));
}

TEST(SqliteDb, ListTablesOnlyForDatabases) {
    EXPECT_TRUE(listSqliteTables(std::string(STROBE_TEST_DATA_DIR) + "/SOURCES.md").empty());
    EXPECT_TRUE(listSqliteTables("/nonexistent/x.sqlite").empty());
    auto t = listSqliteTables(kDir + "rpd_matmul.rpd");
    EXPECT_NE(std::find(t.begin(), t.end(), "rocpd_api_ops"), t.end());
    EXPECT_NE(std::find(t.begin(), t.end(), "kernel"), t.end());  // views too
}

TEST(SqliteDb, NotADatabaseNamesTheFile) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "text.sqlite";
    strobe::test::writeFile(p, std::string(5000, 'x'));
    auto r = loadDirect("nsys-sqlite", p.string());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("text.sqlite"), std::string::npos) << r.error().toString();
}

TEST(SqliteDb, TruncatedDatabaseIsAnError) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "cut.sqlite";
    std::ifstream in(kDir + "nsys_fuser_h200.sqlite", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    strobe::test::writeFile(p, bytes.substr(0, bytes.size() / 3));
    auto r = loadDirect("nsys-sqlite", p.string());
    ASSERT_FALSE(r.ok());
    const std::string msg = r.error().toString();
    EXPECT_NE(msg.find("cut.sqlite"), std::string::npos) << msg;
    EXPECT_FALSE(r.error().where.table.empty()) << msg;
}

TEST(SqliteDb, MissingTableIsNamed) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "empty.sqlite";
    makeDb(p, "CREATE TABLE other(x INTEGER);");
    auto r = loadDirect("nsys-sqlite", p.string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.table, "StringIds");
    auto r2 = loadDirect("rpd", p.string());
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error().where.table, "rocpd_string");
    EXPECT_NE(r2.error().toString().find("empty.sqlite: table rocpd_string"), std::string::npos);
}

// maxRowid reserves from the largest rowid; a few rows far above the rest (rpd_tracer numbers its own calls from
// 2^31) are left out rather than making the estimate 0.
TEST(SqliteDb, MaxRowidLeavesOutRowidsAboveTheCap) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "rowids.sqlite";
    makeDb(p, "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER); INSERT INTO t VALUES (1, 0), (2, 0), (3, 0), "
              "(2147483648, 0), (2147483649, 0); CREATE TABLE empty(id INTEGER PRIMARY KEY);"
              "CREATE TABLE high(id INTEGER PRIMARY KEY); INSERT INTO high VALUES (5000);");
    auto db = SqliteDb::open(p.string(), SqliteOpenOptions{});
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_EQ(db->maxRowid("t", 1000), 3);
    EXPECT_EQ(db->maxRowid("t", int64_t{1} << 40), 2147483649);
    EXPECT_EQ(db->maxRowid("empty", 1000), 0);
    EXPECT_EQ(db->maxRowid("absent", 1000), 0);
    EXPECT_EQ(db->maxRowid("high", 1000), 0);
}

TEST(SqliteDb, WrongColumnTypeNamesTableRowAndColumn) {
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "types.sqlite";
    makeDb(p, "CREATE TABLE StringIds(id INTEGER, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
              "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, globalPid INTEGER,"
              " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, shortName INTEGER);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 16777216, 0, 7, 1, 1);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('soon', 30, 16777216, 0, 7, 2, 1);");
    auto r = loadDirect("nsys-sqlite", p.string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.table, "CUPTI_ACTIVITY_KIND_KERNEL");
    EXPECT_EQ(r.error().where.row, 2);
    EXPECT_NE(r.error().message.find("column start"), std::string::npos) << r.error().toString();
    EXPECT_NE(r.error().message.find("'soon'"), std::string::npos) << r.error().toString();
}

TEST(SqliteDb, MinimalNsysExportWithOldColumnSetLoads) {
    // An older schema: no demangledName/mangledName, no MEMCPY/RUNTIME tables. The kernel is named by shortName.
    strobe::test::TempDir dir("strobe-sqlite-test");
    const auto p = dir.path() / "old.sqlite";
    makeDb(p, "CREATE TABLE StringIds(id INTEGER, value TEXT); INSERT INTO StringIds VALUES (1, 'k1');"
              "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, globalPid INTEGER,"
              " deviceId INTEGER, streamId INTEGER, shortName INTEGER);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 25, 83886080, 0, 7, 1);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (40, 30, 83886080, 0, 7, 1);");  // end < start
    auto r = loadDirect("nsys-sqlite", p.string());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->size(), 1u);
    RankData& rank = *r->front();
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(rank));
    ASSERT_EQ(rank.gpu.size(), 1u);
    EXPECT_EQ(rank.strings.str(rank.gpu.name[0]), "k1");
    EXPECT_EQ(rank.gpu.dur[0], 15);
    EXPECT_EQ(rank.processes[0].pid, 5);  // 83886080 = 5 << 24
    ASSERT_FALSE(rank.diagnostics.empty());
    EXPECT_EQ(rank.diagnostics[0].where.row, 2);  // the skipped row is named
    EXPECT_FALSE(rank.info.clock.anchored);       // no TARGET_INFO_SESSION_START_TIME
}

TEST(SqliteDb, CancelledLoadStops) {
    SqliteOpenOptions o;
    auto db = SqliteDb::open(kDir + "nsys_cloverleaf_a100.sqlite", o);
    ASSERT_TRUE(db.ok());
    o.cancel.cancel();
    // A long query is interrupted by the progress handler once the token is cancelled.
    auto st = db->prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM "
                          "(SELECT x FROM c LIMIT 100000000)", "c");
    ASSERT_TRUE(st.ok());
    auto r = st->step();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("cancelled"), std::string::npos) << r.error().toString();
}

TEST(SqliteDb, StepLimitStopsRunawayQueries) {
    SqliteOpenOptions o;
    o.maxSteps = 100000;
    auto db = SqliteDb::open(kDir + "rpd_matmul.rpd", o);
    ASSERT_TRUE(db.ok());
    auto st = db->prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM "
                          "(SELECT x FROM c LIMIT 100000000)", "c");
    ASSERT_TRUE(st.ok());
    auto r = st->step();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("step limit"), std::string::npos) << r.error().toString();
}

// A gzip-compressed database (.rpd.gz as stored or mailed) is detected and read like the plain file: SQLite reads
// a decompressed copy in the cache directory, made once and reused while the .gz is unchanged; errors name the .gz.
TEST(SqliteDb, GzipCompressedDatabaseReadsLikeThePlainFile) {
    strobe::test::TempDir dir("strobe-sqlite-gz");
    const char* oldCache = std::getenv("XDG_CACHE_HOME");
    const std::string savedCache = oldCache ? oldCache : "";
    ::setenv("XDG_CACHE_HOME", (dir.path() / "cache").c_str(), 1);
    const auto gz = dir.path() / "rpd_matmul.rpd.gz";
    {
        std::ifstream in(kDir + "rpd_matmul.rpd", std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        gzFile f = gzopen(gz.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
        gzclose(f);
    }
    auto tables = listSqliteTables(gz.string());
    EXPECT_NE(std::find(tables.begin(), tables.end(), "rocpd_op"), tables.end());
    auto plain = plainDatabasePath(gz.string());
    ASSERT_TRUE(plain.ok()) << plain.error().toString();
    EXPECT_NE(*plain, gz.string());
    EXPECT_EQ(plainDatabasePath(gz.string()).value(), *plain);  // reused
    auto db = SqliteDb::open(gz.string());
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_EQ(db->rowCount("rocpd_op"), 85);  // as the plain file (sqlite3 shell: select count(*) from rocpd_op)
    // Detected and loaded by the same reader, with the same facts as the plain file.
    auto ranks = loadVia("rpd", gz.filename().string(), dir.path().string() + "/");
    ASSERT_EQ(ranks.size(), 1u);
    auto exp = facts("rpd_matmul.rpd");
    ASSERT_NO_FATAL_FAILURE(mergeAndValidateSqliteFormats(*ranks[0]));
    GpuFacts g = gpuFacts(*ranks[0]);
    EXPECT_EQ(g.kernels, num(exp, "kernels"));
    EXPECT_EQ(g.kernelDur, num(exp, "kernel_dur_ns"));
    // A damaged .gz: a clear error naming it.
    const auto bad = dir.path() / "cut.rpd.gz";
    {
        std::ifstream in(gz, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream out(bad, std::ios::binary);
        out.write(bytes.data(), std::streamsize(bytes.size() / 2));
    }
    auto cut = SqliteDb::open(bad.string());
    EXPECT_FALSE(cut.ok());
    if (!cut.ok()) {
        EXPECT_NE(cut.error().toString().find("cut.rpd.gz"), std::string::npos) << cut.error().toString();
    }
    if (oldCache) ::setenv("XDG_CACHE_HOME", savedCache.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
}

// Counter values that match no dispatch are left out of the counter table (which keeps the others' order) and
// counted; ids too wide to share a word (an event id of 2^41, a pmc id of 2^30) are read as they are. The sample's
// rocpd_pmc_event (python3 sqlite3: SELECT id, event_id, pmc_id, value ... ORDER BY id) holds rows 1..12 of events
// 2, 2, 4, 4, ..., 12, 12 (the dispatches' events), pmc ids 1, 2, 1, 2, ... and values 100, 101, 200, 201, ...,
// 600, 601. Rows 3 (event 999) and 10 (event 2^41) then match nothing: by hand, the table is the other ten values in
// row order, and row 5's counter is named "pmc 1073741824" (no rocpd_info_pmc row).
TEST(RocpdSqlite, CountersThatMatchNoDispatchAreLeftOutInOrder) {
    strobe::test::TempDir dir("strobe-rocpd-counters");
    const auto p = dir.path() / "rocpd.db";
    std::filesystem::copy_file(kDir + "rocpd_doc_sample.db", p);
    const std::string t = "rocpd_pmc_event_0195d4e2_7c1a_7000_8000_0123456789ab";
    makeDb(p, "UPDATE " + t + " SET event_id = 999 WHERE id = 3; UPDATE " + t +
                  " SET event_id = 2199023255552 WHERE id = 10; UPDATE " + t + " SET pmc_id = 1073741824 WHERE id = 5;");
    auto ranks = loadDirect("rocpd", p.string());
    ASSERT_TRUE(ranks) << ranks.error().toString();
    ASSERT_EQ(ranks->size(), 1u);
    const RankData& r = *ranks->front();
    const std::vector<double> want = {100, 101, 201, 300, 301, 400, 401, 500, 600, 601};
    ASSERT_EQ(r.kernelCounters.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.kernelCounters.value[i], want[i]) << i;
    EXPECT_EQ(r.strings.str(r.kernelCounters.name[3]), "pmc 1073741824");
    EXPECT_EQ(r.strings.str(r.kernelCounters.name[4]), "GRBM_COUNT");
    EXPECT_DOUBLE_EQ(r.stats.joinMatchRate, 10.0 / 12.0);
    bool said = false;
    for (const auto& d : r.diagnostics) said |= d.message.starts_with("2 of 12 counter values");
    EXPECT_TRUE(said);
}
