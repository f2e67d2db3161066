// A large rocprofv3 kernel trace is read in two halves on two threads (SourceLoadOptions::threads = 2, what the run
// loader gives a lone source): the rank must be exactly the one-thread read's, table by table (rocprofv3_csv.cpp,
// RankBuilder::appendPart). Built from the real gfx1151 llama.cpp decode trace in tests/data, its 144 rows repeated
// with a fresh Dispatch_Id each (17 MB, past the 16 MB below which one thread reads it), beside a counter
// collection whose rows name dispatches of both halves (the Dispatch_Id join across the split). Also: a split that
// falls inside a quoted kernel name holding a line break, and a bad row in the second half, give what one thread
// gives (the same rank; the same error, row and line).
//
// An nsys export's runtime calls are read on a second connection and thread beside its GPU tables (nsys_sqlite.cpp):
// the export bench/gen_nsys_sqlite.py writes (nsys 2024.5's column sets, 100,000 kernels each launched by a
// runtime call) loads to the same ranks with one thread or two, and a bad runtime row is the same error. Likewise an
// RPD trace's link tables and GPU ops beside its calls (rpd_sqlite.cpp), on the real matmul trace in tests/data
// grown by bench/gen_rpd_sqlite.py (87,040 ops, 122,885 calls); and a rocpd database's regions beside its dispatches
// and copies (rocpd_sqlite.cpp), on the documentation sample in tests/data grown by bench/gen_rocpd_sqlite.py
// (163,840 regions, 98,304 dispatches).
//
// The suite's name holds "Concurrency": the CI's tsan stage runs it under ThreadSanitizer.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/engine/run_loader.h"
#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocpd_sqlite.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/formats/rpd_sqlite.h"
#include "core/io/csv_reader.h"
#include "tests/rank_compare.h"
#include "tests/test_paths.h"

using namespace strobe::core;
using namespace strobe::test;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(STROBE_TEST_DATA_DIR) + "/rocprof/gfx1151-llamacpp-decode/";

std::vector<std::string> linesOf(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    return out;
}

// The file's fields are all quoted, and no kernel name holds `","`: split there.
std::vector<std::string> fieldsOf(const std::string& line) {
    std::vector<std::string> out;
    size_t at = 0;
    for (size_t next; (next = line.find("\",\"", at)) != std::string::npos; at = next + 3)
        out.push_back(line.substr(at, next - at));
    out.push_back(line.substr(at));
    return out;
}

std::string joined(const std::vector<std::string>& f) {
    std::string s;
    for (size_t i = 0; i < f.size(); ++i) s += (i ? "\",\"" : "") + f[i];
    return s;
}

struct BigTrace {
    std::string header;
    std::vector<std::string> rows;  // with Dispatch_Id 1..n
    int dispatchColumn = -1, nameColumn = -1, startColumn = -1;
};

// The real rows repeated to at least `bytes`, each with its own Dispatch_Id.
BigTrace bigTrace(size_t bytes) {
    const auto lines = linesOf(kDir + "gfx1151_llamacpp_decode_kernel_trace.csv");
    BigTrace t;
    t.header = lines.at(0);
    const auto names = fieldsOf(t.header);
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i].find("Dispatch_Id") != std::string::npos) t.dispatchColumn = static_cast<int>(i);
        if (names[i].find("Kernel_Name") != std::string::npos) t.nameColumn = static_cast<int>(i);
        if (names[i].find("Start_Timestamp") != std::string::npos) t.startColumn = static_cast<int>(i);
    }
    size_t size = t.header.size() + 1;
    for (int64_t id = 1; size < bytes; ++id) {
        auto f = fieldsOf(lines.at(1 + static_cast<size_t>(id - 1) % (lines.size() - 1)));
        f.at(static_cast<size_t>(t.dispatchColumn)) = std::to_string(id);
        t.rows.push_back(joined(f));
        size += t.rows.back().size() + 1;
    }
    return t;
}

std::string write(const fs::path& path, const std::string& header, const std::vector<std::string>& rows) {
    std::ofstream out(path, std::ios::binary);
    out << header << '\n';
    for (const auto& r : rows) out << r << '\n';
    return path.string();
}

// Counter rows naming dispatches spread over the whole trace (and one absent from it).
std::string counterFile(const fs::path& path, size_t dispatches) {
    const auto lines = linesOf(kDir + "gfx1151_llamacpp_decode_fetch_counter_collection.csv");
    const auto names = fieldsOf(lines.at(0));
    size_t column = 0;
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i].find("Dispatch_Id") != std::string::npos) column = i;
    std::vector<std::string> rows;
    for (size_t id : {size_t{1}, dispatches / 3, dispatches / 2 + 7, dispatches - 1, dispatches, dispatches + 50}) {
        auto f = fieldsOf(lines.at(1 + rows.size() % (lines.size() - 1)));
        f.at(column) = std::to_string(id);
        rows.push_back(joined(f));
    }
    return write(path, lines.at(0), rows);
}

Result<std::vector<std::unique_ptr<RankData>>> load(const std::vector<std::string>& files, int threads) {
    SourceGroup g;
    g.format = "rocprofv3-csv";
    g.path = files.front();
    g.files = files;
    SourceLoadOptions o;
    o.threads = threads;
    return loadRocprofv3Csv(g, o);
}

void expectSameRank(RankData& a, RankData& b) {
    expectSameDataset(a, b);
    expectColumnsEqual(a.kernelCounters.gpuRow, b.kernelCounters.gpuRow, "kernelCounters.gpuRow");
    expectColumnsEqual(a.kernelCounters.name, b.kernelCounters.name, "kernelCounters.name");
    expectColumnsEqual(a.kernelCounters.value, b.kernelCounters.value, "kernelCounters.value");
    EXPECT_EQ(a.stats.joinMatchRate, b.stats.joinMatchRate);
}

class ParallelReadersConcurrency : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() / ("strobe-parallel-csv-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path m_dir;
};

TEST_F(ParallelReadersConcurrency, TwoHalvesGiveTheOneThreadRank) {
    const BigTrace t = bigTrace(size_t{17} << 20);
    const std::string trace = write(m_dir / "big_kernel_trace.csv", t.header, t.rows);
    const std::string counters = counterFile(m_dir / "big_counter_collection.csv", t.rows.size());
    auto one = load({trace, counters}, 1);
    auto two = load({trace, counters}, 2);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_TRUE(two) << two.error().toString();
    ASSERT_EQ(one->size(), 1u);
    ASSERT_EQ(two->size(), 1u);
    RankData& a = *one->front();
    RankData& b = *two->front();
    ASSERT_EQ(a.gpu.size(), t.rows.size());  // every row, once
    expectSameRank(a, b);
    // The join found the dispatches of both halves: 5 of 6 counter rows (the last names no dispatch).
    EXPECT_EQ(b.kernelCounters.gpuRow.size(), 5u);
    EXPECT_DOUBLE_EQ(b.stats.joinMatchRate, 5.0 / 6.0);
    ASSERT_FALSE(b.kernelCounters.gpuRow.empty());
    EXPECT_EQ(b.kernelCounters.gpuRow[b.kernelCounters.gpuRow.size() - 1], t.rows.size() - 1);  // Dispatch_Id n
}

// Through the run loader with a cache: the halves read side by side, the raw columns written to the cache while the
// rank merges (LoadCache::beginGroupWrite), and the second open, from that entry, gives the same rank.
TEST_F(ParallelReadersConcurrency, ARunLoadWritesTheCacheWhileItMerges) {
    const BigTrace t = bigTrace(size_t{17} << 20);
    const std::string trace = write(m_dir / "big_kernel_trace.csv", t.header, t.rows);
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = m_dir / "cache";
    opt.rules = &rules;
    opt.threads = 2;
    auto first = loadRun({trace}, opt);
    ASSERT_TRUE(first.ok()) << first.error().toString();
    auto second = loadRun({trace}, opt);
    ASSERT_TRUE(second.ok()) << second.error().toString();
    ASSERT_EQ((*first)->ranks.size(), 1u);
    ASSERT_EQ((*second)->ranks.size(), 1u);
    auto& a = const_cast<RankData&>(*(*first)->ranks.front());  // the comparison visits columns (non-const)
    auto& b = const_cast<RankData&>(*(*second)->ranks.front());
    EXPECT_FALSE(a.stats.fromCache);
    EXPECT_TRUE(b.stats.fromCache);
    EXPECT_EQ(b.gpu.size(), t.rows.size());
    expectSameRank(a, b);
}

TEST_F(ParallelReadersConcurrency, SplitInsideAQuotedLineBreakReadsOnSequentially) {
    // Rows P, one long row S whose quoted kernel name holds a line break three quarters in, rows P again: the
    // middle of the data falls inside S before its line break, so the first line end after the middle (where the
    // second thread would start) is inside the quotes.
    const BigTrace t = bigTrace(size_t{9} << 20);
    auto f = fieldsOf(t.rows.front());
    f.at(static_cast<size_t>(t.nameColumn)) = "kernel<" + std::string(3000, 'x') + "\n" + std::string(1000, 'y') + ">";
    std::vector<std::string> rows = t.rows;
    rows.push_back(joined(f));
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
    const std::string trace = write(m_dir / "quoted_kernel_trace.csv", t.header, rows);
    {
        // The premise: the candidate split is inside the quoted name.
        std::ifstream in(trace, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t dataStart = t.header.size() + 1;
        const size_t mid = dataStart + (text.size() - dataStart) / 2;
        const size_t lf = text.find('\n', mid);
        ASSERT_NE(lf, std::string::npos);
        EXPECT_EQ(text.compare(lf - 3, 3, "xxx"), 0) << "the split is not inside the quoted name";
    }
    auto one = load({trace}, 1);
    auto two = load({trace}, 2);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_TRUE(two) << two.error().toString();
    ASSERT_EQ(one->front()->gpu.size(), rows.size());
    expectSameRank(*one->front(), *two->front());
}

TEST_F(ParallelReadersConcurrency, ABadRowInTheSecondHalfIsTheOneThreadError) {
    const BigTrace t = bigTrace(size_t{17} << 20);
    std::vector<std::string> rows = t.rows;
    auto f = fieldsOf(rows.at(rows.size() * 3 / 4));
    f.at(static_cast<size_t>(t.startColumn)) = "12x4";
    rows.at(rows.size() * 3 / 4) = joined(f);
    const std::string trace = write(m_dir / "bad_kernel_trace.csv", t.header, rows);
    auto one = load({trace}, 1);
    auto two = load({trace}, 2);
    ASSERT_FALSE(one);
    ASSERT_FALSE(two);
    EXPECT_EQ(one.error().toString(), two.error().toString());
    EXPECT_EQ(two.error().where.row, static_cast<int64_t>(rows.size() * 3 / 4 + 1));
    EXPECT_NE(two.error().message.find("not an integer"), std::string::npos) << two.error().toString();
}

Result<std::vector<std::unique_ptr<RankData>>> loadSqlite(const SourceFormat& format, const std::string& path,
                                                          int threads) {
    SourceGroup g;
    g.format = format.id;
    g.path = path;
    g.files = {path};
    SourceLoadOptions o;
    o.threads = threads;
    return format.load(g, o, CancelToken{});
}

// Sets `column` of one row of `table` to text, with Python's sqlite3.
void spoil(const std::string& db, const std::string& table, const std::string& column, int64_t rowid) {
    const std::string py = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE ' + sys.argv[2] + "
                           "' SET ' + sys.argv[3] + ' = ? WHERE rowid = ?', ('x', int(sys.argv[4]))); c.commit()";
    ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\" " + db + " " + table + " " + column + " " +
                           std::to_string(rowid))
                              .c_str()),
              0);
}

// One thread and two load `db` to the same ranks; with `column` of row `rowid` of `table` spoilt, to the same error.
// The error names `errorTable` (rocpd reads its tables through their unsuffixed views), else `table`.
void expectSameWithTwoThreads(const SourceFormat& format, const std::string& db, const std::string& table,
                              const std::string& column, int64_t rowid, const std::string& errorTable = {}) {
    auto one = loadSqlite(format, db, 1);
    auto two = loadSqlite(format, db, 2);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_TRUE(two) << two.error().toString();
    ASSERT_EQ(one->size(), two->size());
    for (size_t i = 0; i < one->size(); ++i) expectSameRank(*(*one)[i], *(*two)[i]);
    spoil(db, table, column, rowid);
    auto bad1 = loadSqlite(format, db, 1);
    auto bad2 = loadSqlite(format, db, 2);
    ASSERT_FALSE(bad1);
    ASSERT_FALSE(bad2);
    EXPECT_EQ(bad1.error().toString(), bad2.error().toString());
    EXPECT_EQ(bad2.error().where.row, rowid);
    EXPECT_EQ(bad2.error().where.table, errorTable.empty() ? table : errorTable);
}

// bench/gen_nsys_sqlite.py's export of 8 MB (100,000 kernels, each launched by a runtime call) at `db`.
void grownNsys(const std::string& db) {
    const std::string gen = std::string(STROBE_TEST_DATA_DIR) + "/../../bench/gen_nsys_sqlite.py";
    ASSERT_EQ(std::system(("/usr/bin/python3 " + gen + " " + db + " 8 > /dev/null").c_str()), 0);
}

// The real matmul RPD trace grown by bench/gen_rpd_sqlite.py to 10 MB (87,040 ops, 122,885 calls) at `db`.
void grownRpd(const std::string& db) {
    const std::string gen = std::string(STROBE_TEST_DATA_DIR) + "/../../bench/gen_rpd_sqlite.py";
    const std::string seed = std::string(STROBE_TEST_DATA_DIR) + "/sqlite/rpd_matmul.rpd";
    ASSERT_EQ(std::system(("/usr/bin/python3 " + gen + " " + seed + " " + db + " 10 > /dev/null").c_str()), 0);
}

// Rows `a` and `b` of `table` made to end one nanosecond before they start (python3's sqlite3 module): a load skips
// them and names the first.
void endBeforeStart(const std::string& db, const std::string& table, int64_t a, int64_t b) {
    const std::string py = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE ' + sys.argv[2] + "
                           "' SET \\\"end\\\" = start - 1 WHERE rowid IN (' + sys.argv[3] + ', ' + sys.argv[4] + ')'); "
                           "c.commit()";
    ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + py + "\" " + db + " " + table + " " + std::to_string(a) + " " +
                           std::to_string(b))
                              .c_str()),
              0);
}

// The rank says that two rows of `table` were skipped, showing row `row`.
bool namesTwoSkipped(const RankData& r, const std::string& table, int64_t row) {
    for (const auto& d : r.diagnostics)
        if (d.where.table == table && d.where.row == row && d.message.starts_with("2 row(s) skipped")) return true;
    return false;
}

// Rows `a` < `b` of `table`, in the part the second thread reads, made to end before they start: one thread loads
// `gpuRows` activities and names row `a` as the first of two skipped, and two threads give the same rank; a bad value
// in row `badRow` is then the one-thread error, at its row (expectSameWithTwoThreads).
void expectTailSkipsAsOneThread(const SourceFormat& format, const std::string& db, const std::string& table, int64_t a,
                                int64_t b, size_t gpuRows, int64_t badRow) {
    ASSERT_NO_FATAL_FAILURE(endBeforeStart(db, table, a, b));
    auto one = loadSqlite(format, db, 1);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ(one->front()->gpu.size(), gpuRows);
    EXPECT_TRUE(namesTwoSkipped(*one->front(), table, a));
    expectSameWithTwoThreads(format, db, table, "start", badRow);
}

TEST_F(ParallelReadersConcurrency, NsysRuntimeOnASecondThreadGivesTheOneThreadRanks) {
    const std::string db = (m_dir / "nsys.sqlite").string();
    ASSERT_NO_FATAL_FAILURE(grownNsys(db));
    auto one = loadSqlite(kNsysSqliteFormat, db, 1);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ(one->front()->slices.size(), 100'000u);  // every runtime call (the generator writes 50,000 a batch)
    EXPECT_EQ(one->front()->gpu.size(), 100'000u);
    expectSameWithTwoThreads(kNsysSqliteFormat, db, "CUPTI_ACTIVITY_KIND_RUNTIME", "start", 77777);
}

// The export's kernel table outweighs its runtime calls: the two threads share it (the first reads its rows up to
// rowid (100,000 + 100,000 * 5/18) / 2 = 63,888, the second the rest, then the runtime calls). Two kernels of the
// second half whose end is before their start are skipped and the first named by its row as one thread names it;
// a bad kernel there is the one-thread error, at its row.
TEST_F(ParallelReadersConcurrency, NsysKernelTableSharedByTwoThreadsGivesTheOneThreadRanks) {
    const std::string db = (m_dir / "nsys.sqlite").string();
    ASSERT_NO_FATAL_FAILURE(grownNsys(db));
    expectTailSkipsAsOneThread(kNsysSqliteFormat, db, "CUPTI_ACTIVITY_KIND_KERNEL", 70000, 90000, 99'998u, 88888);
}

TEST_F(ParallelReadersConcurrency, RpdOpsOnASecondThreadGiveTheOneThreadRank) {
    const std::string db = (m_dir / "matmul.rpd").string();
    ASSERT_NO_FATAL_FAILURE(grownRpd(db));
    auto one = loadSqlite(kRpdSqliteFormat, db, 1);
    ASSERT_TRUE(one) << one.error().toString();
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ(one->front()->gpu.size(), 87'040u);  // python3 sqlite3: SELECT count(*) FROM rocpd_op
    expectSameWithTwoThreads(kRpdSqliteFormat, db, "rocpd_op", "start", 60001);
}

// The trace's ops and links outweigh its calls: the two threads share the op table (the part reads the links and
// then the ops after a rowid it works out from them, this thread the calls and then the ops up to it). Two ops
// whose end is before their start near the table's end are skipped and the first named by its row as one thread
// names it; a bad op there is the one-thread error, at its row.
TEST_F(ParallelReadersConcurrency, RpdOpTableSharedByTwoThreadsGivesTheOneThreadRank) {
    const std::string db = (m_dir / "matmul.rpd").string();
    ASSERT_NO_FATAL_FAILURE(grownRpd(db));
    expectTailSkipsAsOneThread(kRpdSqliteFormat, db, "rocpd_op", 86000, 86500, 87'038u, 87000);
}

TEST_F(ParallelReadersConcurrency, RocpdRegionsOnASecondThreadGiveTheOneThreadRanks) {
    const std::string db = (m_dir / "rocpd.db").string();
    const std::string gen = std::string(STROBE_TEST_DATA_DIR) + "/../../bench/gen_rocpd_sqlite.py";
    const std::string seed = std::string(STROBE_TEST_DATA_DIR) + "/sqlite/rocpd_doc_sample.db";
    ASSERT_EQ(std::system(("/usr/bin/python3 " + gen + " " + seed + " " + db + " 12 > /dev/null").c_str()), 0);
    auto one = loadSqlite(kRocpdSqliteFormat, db, 1);
    ASSERT_TRUE(one) << one.error().toString();
    size_t slices = 0, gpu = 0;
    for (const auto& r : *one) slices += r->slices.size(), gpu += r->gpu.size();
    // python3 sqlite3: SELECT count(*) FROM rocpd_region / rocpd_kernel_dispatch + rocpd_memory_copy
    EXPECT_EQ(slices, 163'840u);
    EXPECT_EQ(gpu, 98'304u + 32'768u);
    // The sample's region table (python3 sqlite3: SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_region%').
    expectSameWithTwoThreads(kRocpdSqliteFormat, db, "rocpd_region_0195d4e2_7c1a_7000_8000_0123456789ab", "start",
                             120001, "rocpd_region");
}

}  // namespace
