// strobe-cli query (core/query/sql_query.h): results against values computed outside Strobe, pushdown that
// returns what a full scan returns, and the guards (one statement, read only, errors with their offset).
//
// Expected values:
//   tests/data/expected/kineto_facts.json — per trace file, the count of `kernel` events and the exact sum of their
//     `dur` (µs, as a decimal string), computed by kineto_facts.py with Python's json module;
//   tests/data/expected/sqlite_facts.json — the nsys export's kernels per process (count and sum of end - start),
//     computed by sqlite_facts.py with Python's sqlite3 module;
//   tests/data/expected/exposed_comm.json — per rank and step of the DLRM sample, merged communication and
//     computation kernel time and the exposed part, computed by exposed_comm.py with Python's json module.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/cli/command.h"
#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

test::CliResult runQuery(const std::vector<std::string>& args) { return test::runCli("query", args); }

std::string sampleRun() { return std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"; }

// "6832" or "110.881" µs → ns, exactly.
int64_t usTextToNs(std::string_view us) {
    const size_t dot = us.find('.');
    std::string digits(us.substr(0, dot));
    std::string frac = dot == std::string_view::npos ? std::string() : std::string(us.substr(dot + 1));
    frac.append(3 - std::min<size_t>(3, frac.size()), '0');
    return std::stoll(digits + frac.substr(0, 3));
}

}  // namespace

TEST(QueryCli, KernelCountsAndTimesPerRankMatchPythonsJson) {
    auto r = runQuery({"--json", sampleRun(),
                       "SELECT rank, path, count(*) AS n, sum(dur_ns) AS ns FROM kernels JOIN ranks USING (run, rank) "
                       "WHERE kind = 'kernel' GROUP BY rank ORDER BY rank"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    simdjson::dom::parser p, pe;
    simdjson::dom::element doc, expected;
    ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    ASSERT_EQ(pe.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/kineto_facts.json").get(expected),
              simdjson::SUCCESS);
    int64_t schema = 0;
    ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
    EXPECT_EQ(schema, 1);
    simdjson::dom::array rows;
    ASSERT_EQ(doc["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 8u);
    int64_t wantRank = 0;
    for (simdjson::dom::element row : rows) {
        int64_t rank = -1, n = 0, ns = 0;
        std::string_view path;
        ASSERT_EQ(row["rank"].get(rank), simdjson::SUCCESS);
        ASSERT_EQ(row["path"].get(path), simdjson::SUCCESS);
        ASSERT_EQ(row["n"].get(n), simdjson::SUCCESS);
        ASSERT_EQ(row["ns"].get(ns), simdjson::SUCCESS);
        EXPECT_EQ(rank, wantRank++);
        const std::string key = "param-dlrm-8rank/" + fs::path(std::string(path)).filename().string();
        simdjson::dom::element want;
        ASSERT_EQ(expected[key].get(want), simdjson::SUCCESS) << key;
        int64_t kernels = 0;
        std::string_view us;
        ASSERT_EQ(want["kernels"].get(kernels), simdjson::SUCCESS);
        ASSERT_EQ(want["kernel_dur_us_sum"].get(us), simdjson::SUCCESS);
        EXPECT_EQ(n, kernels) << key;
        EXPECT_EQ(ns, usTextToNs(us)) << key;
    }
}

TEST(QueryCli, NsysKernelsMatchPythonsSqlite3) {
    const std::string file = std::string(STROBE_TEST_DATA_DIR) + "/sqlite/nsys_cloverleaf_a100.sqlite";
    auto r = runQuery({"--csv", "-", file, "SELECT count(*), sum(dur_ns) FROM kernels WHERE kind = 'kernel'"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    // sqlite_facts.json: processes["1701896"] kernels 1312, kernel_dur_ns 294404540.
    EXPECT_EQ(r.out, "count(*),sum(dur_ns)\r\n1312,294404540\r\n");
}

TEST(QueryCli, PushedDownConstraintsReturnWhatAFullScanReturns) {
    // The same predicates, once pushed down (plain columns) and once hidden from xBestIndex (expressions on the
    // columns), must count the same rows: the pushdown narrows what is read and never changes the answer.
    for (const std::string table : {"kernels", "slices"}) {
        SCOPED_TRACE(table);
        const std::string w = "(SELECT min(ts_ns) + 2000000 FROM " + table + ") AND (SELECT min(ts_ns) + 9000000 FROM " +
                              table + ")";
        auto pushed = runQuery({"--csv", "-", sampleRun(),
                                "SELECT count(*), sum(dur_ns) FROM " + table + " WHERE rank = 3 AND ts_ns BETWEEN " + w});
        auto scanned = runQuery({"--csv", "-", sampleRun(),
                                 "SELECT count(*), sum(dur_ns) FROM " + table +
                                     " WHERE rank + 0 = 3 AND ts_ns + 0 BETWEEN " + w});
        ASSERT_EQ(pushed.code, 0) << pushed.err;
        ASSERT_EQ(scanned.code, 0) << scanned.err;
        EXPECT_EQ(pushed.out, scanned.out);
        EXPECT_NE(pushed.out, "count(*),sum(dur_ns)\r\n0,\r\n") << "the window should hold rows";
    }
    auto byName = runQuery({"--csv", "-", sampleRun(),
                            "SELECT count(*) FROM kernels WHERE name = 'volta_sgemm_128x32_tn'"});
    auto byNameScan = runQuery({"--csv", "-", sampleRun(),
                                "SELECT count(*) FROM kernels WHERE name || '' = 'volta_sgemm_128x32_tn'"});
    EXPECT_EQ(byName.out, byNameScan.out);
    EXPECT_NE(byName.out, "count(*)\r\n0\r\n");
    auto byStream = runQuery({"--csv", "-", sampleRun(), "SELECT count(*) FROM kernels WHERE stream = 7"});
    auto byStreamScan = runQuery({"--csv", "-", sampleRun(), "SELECT count(*) FROM kernels WHERE stream + 0 = 7"});
    EXPECT_EQ(byStream.out, byStreamScan.out);
    EXPECT_NE(byStream.out, "count(*)\r\n0\r\n");
}

TEST(QueryCli, StandardViewsAnswer) {
    // Kernel time per step summed over categories equals the kernels of the step (one query against the other).
    auto view = runQuery({"--csv", "-", sampleRun(),
                          "SELECT sum(kernels), sum(kernel_ns) FROM kernel_time_per_step WHERE rank = 0"});
    auto direct = runQuery({"--csv", "-", sampleRun(),
                            "SELECT count(*), sum(dur_ns) FROM kernels WHERE rank = 0 AND kind = 'kernel' AND step IS NOT NULL"});
    ASSERT_EQ(view.code, 0) << view.err;
    EXPECT_EQ(view.out.substr(view.out.find('\n')), direct.out.substr(direct.out.find('\n')));
    // Every collective instance of the 8-rank sample is seen on all 8 ranks.
    auto skew = runQuery({"--csv", "-", sampleRun(), "SELECT min(ranks), max(ranks), count(*) > 0 FROM collective_skew"});
    ASSERT_EQ(skew.code, 0) << skew.err;
    EXPECT_EQ(skew.out, "min(ranks),max(ranks),count(*) > 0\r\n8,8,1\r\n");
}

// GPU time per rank and category through SQL equals the summary analysis' time_by_category on every rank (the DLRM
// sample and the AMD trace): one GROUP BY against the per-rank category table the summary computes.
TEST(QueryCli, CategorySumsPerRankEqualTheSummarys) {
    for (const std::string& path : {sampleRun(), std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/amd_trace"}) {
        SCOPED_TRACE(path);
        auto q = runQuery({"--json", path,
                           "SELECT rank, category, count(*) AS n, sum(dur_ns) AS ns FROM kernels GROUP BY rank, category"});
        auto s = test::runCli("summary", {"--json", path});
        ASSERT_EQ(q.code, app::kExitOk) << q.err;
        ASSERT_EQ(s.code, app::kExitOk) << s.err;
        simdjson::dom::parser pq, ps;
        simdjson::dom::element dq, ds;
        ASSERT_EQ(pq.parse(q.out).get(dq), simdjson::SUCCESS);
        ASSERT_EQ(ps.parse(s.out).get(ds), simdjson::SUCCESS);
        std::map<std::pair<int64_t, std::string>, std::pair<int64_t, int64_t>> want, got;
        for (simdjson::dom::element r : ds["ranks"].get_array()) {
            const int64_t rank = int64_t(r["rank"]);
            for (auto [cat, v] : r["time_by_category"].get_object())
                want[{rank, std::string(cat)}] = {int64_t(v["count"]), int64_t(v["total_ns"])};
        }
        for (simdjson::dom::element r : dq["rows"].get_array())
            got[{int64_t(r["rank"]), std::string(std::string_view(r["category"]))}] = {int64_t(r["n"]), int64_t(r["ns"])};
        EXPECT_FALSE(want.empty());
        EXPECT_EQ(got, want);
    }
}

TEST(QueryCli, ExposedCommunicationViewMatchesPythonsSweep) {
    auto r = runQuery({"--json", sampleRun(),
                       "SELECT rank, step, comm_ns, compute_ns, exposed_ns, exposed_pct FROM exposed_communication "
                       "ORDER BY rank, step"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    simdjson::dom::parser p, pe;
    simdjson::dom::element doc, expected;
    ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    ASSERT_EQ(pe.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/exposed_comm.json").get(expected),
              simdjson::SUCCESS);
    simdjson::dom::array rows;
    ASSERT_EQ(doc["rows"].get(rows), simdjson::SUCCESS);
    simdjson::dom::object want;
    ASSERT_EQ(expected.get(want), simdjson::SUCCESS);
    EXPECT_EQ(rows.size(), want.size());
    for (simdjson::dom::element row : rows) {
        int64_t rank = -1, step = -1, comm = 0, compute = 0, exposed = 0;
        double pct = 0;
        ASSERT_EQ(row["rank"].get(rank), simdjson::SUCCESS);
        ASSERT_EQ(row["step"].get(step), simdjson::SUCCESS);
        ASSERT_EQ(row["comm_ns"].get(comm), simdjson::SUCCESS);
        ASSERT_EQ(row["compute_ns"].get(compute), simdjson::SUCCESS);
        ASSERT_EQ(row["exposed_ns"].get(exposed), simdjson::SUCCESS);
        ASSERT_EQ(row["exposed_pct"].get(pct), simdjson::SUCCESS);
        const std::string key = std::to_string(rank) + "/" + std::to_string(step);
        simdjson::dom::element w;
        ASSERT_EQ(want[key].get(w), simdjson::SUCCESS) << key;
        EXPECT_EQ(comm, int64_t(w["comm_ns"])) << key;
        EXPECT_EQ(compute, int64_t(w["compute_ns"])) << key;
        EXPECT_EQ(exposed, int64_t(w["exposed_ns"])) << key;
        EXPECT_NEAR(pct, 100.0 * double(exposed) / double(comm), 1e-9) << key;
        EXPECT_GT(exposed, 0) << key << ": the sample's communication is mostly exposed";
        EXPECT_LT(exposed, comm) << key << ": and partly hidden";
    }
}

TEST(QueryCli, AQueryCannotWriteAttachOrRunTwoStatements) {
    const std::vector<std::string> refused = {
        "ATTACH DATABASE '/tmp/strobe-query-attach.db' AS x",
        "DETACH DATABASE temp",
        "PRAGMA writable_schema = 1",
        "CREATE TABLE t(a)",
        "CREATE TEMP VIEW v AS SELECT 1",
        "DROP VIEW kernel_time_per_step",
        "INSERT INTO kernels(name) VALUES ('x')",
        "SELECT load_extension('/tmp/x')",
        "SELECT 1; SELECT 2",
    };
    for (const auto& sql : refused) {
        SCOPED_TRACE(sql);
        auto r = runQuery({sampleRun(), sql});
        EXPECT_EQ(r.code, app::kExitUsage);
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find("SQL error"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists("/tmp/strobe-query-attach.db"));
    // Still usable afterwards, and the views are still there.
    auto ok = runQuery({"--csv", "-", sampleRun(), "SELECT count(*) > 0 FROM kernel_time_per_step"});
    EXPECT_EQ(ok.out, "count(*) > 0\r\n1\r\n");
}

TEST(QueryCli, BadSqlNamesItsPosition) {
    auto r = runQuery({sampleRun(), "SELECT nme FROM kernels"});
    EXPECT_EQ(r.code, app::kExitUsage);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("at byte 7"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no such column: nme"), std::string::npos) << r.err;
    auto two = runQuery({sampleRun(), "SELECT 1;  SELECT 2"});
    EXPECT_NE(two.err.find("at byte 11"), std::string::npos) << two.err;
    auto none = runQuery({sampleRun()});
    EXPECT_EQ(none.code, app::kExitUsage);
}
