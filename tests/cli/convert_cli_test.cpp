// strobe-cli convert and the per-rank summaries (issue 29): a local convert of real multi-rank traces (the bundled
// 8-rank DLRM sample and HTA's two sampled ranks) whose summaries equal both an independent Python computation
// (tests/data/expected/convert/make_expected.py: json + the classification rules applied by re) and the full
// analyses on the whole loaded run; resume (current ranks skipped); exit codes 0/1/2/3; summary reading the
// summaries (from_summary) and making a corrupt one again with one warning; the summary reader on broken images;
// the memory budget's cgroup limit.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/cli/cmd_convert.h"
#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/temporal.h"
#include "core/engine/memory_budget.h"
#include "core/engine/rank_summary.h"
#include "core/engine/run_loader.h"
#include "tests/cli/cli_capture.h"
#include "tests/cli/cli_json.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

const std::string kDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
const std::string kSampled = std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter";

int64_t i64(simdjson::dom::element e) { return e.get_int64().value_unsafe(); }
simdjson::dom::array arrayOf(simdjson::dom::element e) { return e.get_array().value_unsafe(); }
simdjson::dom::object objectOf(simdjson::dom::element e) { return e.get_object().value_unsafe(); }

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

test::CliResult convert(std::vector<std::string> args, const fs::path& cache) {
    args.insert(args.end(), {"--cache-dir", cache.string(), "--json"});
    return test::runCli("convert", args);
}

std::map<std::string, std::string> statuses(const test::CliResult& r) {
    std::map<std::string, std::string> out;
    test::Json j(r.out);
    EXPECT_TRUE(j.ok) << r.out;
    if (!j.ok) return out;
    const auto ranks = arrayOf(j.root["ranks"]);
    for (auto rank : ranks)
        out[fs::path(std::string(rank["path"].get_string().value())).filename().string()] =
            std::string(rank["status"].get_string().value());
    return out;
}

core::StoredRankSummary stored(const fs::path& cache, const std::string& file) {
    core::SummaryLookup l = core::lookupRankSummary(cache, file);
    EXPECT_EQ(l.state, core::SummaryState::Current) << file << ": " << l.reason;
    return l.summary;
}

}  // namespace

// Every rank converted; its summary equals the Python computation (rank, kernels, per step: span, activities,
// idle and time by category), and a second run skips every rank.
TEST(ConvertCli, SummariesEqualAnIndependentComputationAndResumeSkips) {
    test::TempDir cache("strobe-convert-cli");
    auto r = convert({kDlrm, kSampled, "--jobs", "2"}, cache.path());
    ASSERT_EQ(r.code, 0) << r.err;
    auto st = statuses(r);
    ASSERT_EQ(st.size(), 10u) << r.out;
    for (const auto& [file, status] : st) EXPECT_EQ(status, "converted") << file;
    EXPECT_EQ(r.err.find("missing"), std::string::npos) << r.err;  // one rank at a time is not a run missing ranks

    const std::string text = readAll(std::string(STROBE_TEST_DATA_DIR) + "/expected/convert/expected.json");
    test::Json expected(text);
    ASSERT_TRUE(expected.ok);
    const std::string root = fs::path(STROBE_RESOURCE_DIR).parent_path().string();
    size_t checked = 0;
    const auto files = objectOf(expected.root);
    for (auto [rel, facts] : files) {
        const core::StoredRankSummary s = stored(cache.path(), root + "/" + std::string(rel));
        SCOPED_TRACE(std::string(rel));
        EXPECT_EQ(s.rank.rank, i64(facts["rank"]));
        EXPECT_EQ(s.rank.kernelCount, uint64_t(i64(facts["kernel_count"])));
        EXPECT_EQ(s.rank.kernelTimeNs, i64(facts["kernel_ns"]));
        const auto steps = arrayOf(facts["steps"]);
        ASSERT_EQ(s.steps.size(), steps.size());
        size_t i = 0;
        for (auto step : steps) {
            const core::StepSummary& got = s.steps[i++];
            EXPECT_EQ(got.number, i64(step["number"]));
            EXPECT_EQ(got.startNs, i64(step["start_ns"]));
            EXPECT_EQ(got.endNs, i64(step["end_ns"]));
            EXPECT_EQ(got.activities, uint64_t(i64(step["activities"])));
            EXPECT_EQ(got.idleNs, i64(step["idle_ns"]));
            std::map<std::string, int64_t> want, have(got.timeByCategory.begin(), got.timeByCategory.end());
            const auto cats = objectOf(step["time_by_category"]);
            for (auto [cat, ns] : cats) want[std::string(cat)] = i64(ns);
            EXPECT_EQ(have, want);
        }
        ++checked;
    }
    EXPECT_EQ(checked, 10u);

    auto again = convert({kDlrm, kSampled}, cache.path());
    EXPECT_EQ(again.code, 0) << again.err;
    for (const auto& [file, status] : statuses(again)) EXPECT_EQ(status, "skipped") << file;
    // Each rank's status file says what happened to it last.
    const auto status = app::readConvertStatus(cache.path(), kDlrm + "/worker3_step_12.1694128201557.pt.trace.json");
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(status->rank, 3);
    EXPECT_EQ(status->status, app::ConvertStatus::Skipped);
}

// The summaries equal the analyses run on the whole loaded run (every rank at once, one shared context): per step,
// kernelStatistics by category and the temporal breakdown's idle time; per rank, summarizeRank's totals.
TEST(ConvertCli, SummariesEqualTheFullAnalysesOfTheLoadedRun) {
    test::TempDir cache("strobe-convert-cli");
    ASSERT_EQ(convert({kDlrm}, cache.path()).code, 0);
    core::RunLoadOptions options;
    options.useCache = false;
    auto ds = core::loadRun({kDlrm}, options);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    core::AnalysisContext ctx(*ds);
    core::KernelStatsOptions byCategory;
    byCategory.groupBy = core::KernelGroupBy::Category;
    for (size_t ri = 0; ri < (*ds)->ranks.size(); ++ri) {
        const core::RankData& rank = *(*ds)->ranks[ri];
        const core::StoredRankSummary s = stored(cache.path(), rank.path);
        const core::RankSummary full = core::summarizeRank(rank);
        EXPECT_EQ(s.rank.kernelTimeNs, full.kernelTimeNs);
        EXPECT_EQ(s.rank.timeByCategory, full.timeByCategory);
        ASSERT_EQ(s.rank.topKernels.size(), full.topKernels.size());
        for (size_t k = 0; k < full.topKernels.size(); ++k) EXPECT_EQ(s.rank.topKernels[k].totalNs, full.topKernels[k].totalNs);
        for (const core::StepSummary& step : s.steps) {
            const auto window = core::WindowSpec::stepList({step.number});
            auto cats = core::kernelStatistics(ctx, window, byCategory);
            ASSERT_TRUE(cats.ok());
            std::map<std::string, int64_t> want, have(step.timeByCategory.begin(), step.timeByCategory.end());
            for (size_t row = 0; row < cats->rows.size(); ++row)
                if (core::Table::number(cats->at(row, core::col::kRank)) == rank.rank)
                    want[core::Table::text(cats->at(row, core::col::kName))] =
                        static_cast<int64_t>(core::Table::number(cats->at(row, core::col::kTotalNs)));
            EXPECT_EQ(have, want) << "rank " << rank.rank << " step " << step.number;
            auto temporal = core::temporalBreakdown(ctx, window);
            ASSERT_TRUE(temporal.ok());
            EXPECT_EQ(step.idleNs, static_cast<int64_t>(core::Table::number(temporal->at(ri, core::col::kIdleNs))));
        }
        // Collectives: the rank's communication kernels, each with its size where the trace gives one.
        EXPECT_FALSE(s.collectives.empty()) << rank.path;
        for (const auto& c : s.collectives) EXPECT_LT(c.startNs, c.endNs);
    }
}

// Exit codes: 1 when a rank fails (listed with rank, path and reason), 3 when none is readable, 2 for usage, and a
// fixed rank converts on the next run while the done ones are skipped.
TEST(ConvertCli, FailedRanksAreListedAndResumeConvertsTheFixedOne) {
    test::TempDir cache("strobe-convert-cli"), run("strobe-convert-run");
    const std::string good = "worker0_step_12.1694128201545.pt.trace.json";
    fs::copy_file(kDlrm + "/" + good, run.path() / "rank0.json");
    test::writeFile(run.path() / "rank1.json", "this is not a trace");
    auto r = convert({run.path().string()}, cache.path());
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    auto st = statuses(r);
    EXPECT_EQ(st["rank0.json"], "converted");
    EXPECT_EQ(st["rank1.json"], "failed");
    EXPECT_NE(r.err.find("rank 1: " + (run.path() / "rank1.json").string() + ": "), std::string::npos) << r.err;
    test::Json j(r.out);
    ASSERT_TRUE(j.ok);
    const auto ranks = arrayOf(j.root["ranks"]);
    for (auto rank : ranks) {
        if (std::string(rank["status"].get_string().value()) == "failed") {
            EXPECT_FALSE(std::string(rank["reason"].get_string().value()).empty());
        }
    }

    fs::copy_file(kDlrm + "/worker1_step_12.1694128201556.pt.trace.json", run.path() / "rank1.json",
                  fs::copy_options::overwrite_existing);
    auto resumed = convert({run.path().string()}, cache.path());
    EXPECT_EQ(resumed.code, 0) << resumed.err;
    st = statuses(resumed);
    EXPECT_EQ(st["rank0.json"], "skipped");
    EXPECT_EQ(st["rank1.json"], "converted");

    test::TempDir bad("strobe-convert-bad");
    test::writeFile(bad.path() / "rank0.json", "not json");
    EXPECT_EQ(convert({bad.path().string()}, cache.path()).code, 3);
    EXPECT_EQ(convert({(bad.path() / "absent.json").string()}, cache.path()).code, 3);
    EXPECT_EQ(test::runCli("convert", {}).code, 2);
    EXPECT_EQ(test::runCli("convert", {kDlrm, "--slurm-arg", "-p"}).code, 2);
}

// summary on a converted run reads the summaries (from_summary); a corrupt one is named in one warning, its rank
// loaded from the trace and the summary made again.
TEST(ConvertCli, SummaryReadsSummariesAndRemakesACorruptOne) {
    test::TempDir cache("strobe-convert-cli");
    ASSERT_EQ(convert({kDlrm}, cache.path()).code, 0);
    const std::string victim = kDlrm + "/worker2_step_12.1694128201554.pt.trace.json";
    const fs::path file = core::rankSummaryPath(cache.path(), victim);
    std::string image = readAll(file);
    image[image.size() / 2] ^= 0x5a;
    test::writeFile(file, image);

    auto r = test::runCli("summary", {kDlrm, "--cache-dir", cache.path().string(), "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    size_t warnings = 0;
    for (size_t at = r.err.find("warning: corrupt summary " + file.string()); at != std::string::npos;
         at = r.err.find("warning: corrupt summary", at + 1))
        ++warnings;
    EXPECT_EQ(warnings, 1u) << r.err;
    test::Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out;
    size_t ranks = 0;
    const auto all = arrayOf(j.root["ranks"]);
    for (auto rank : all) {
        EXPECT_EQ(rank["from_summary"].get_bool().value_unsafe(), i64(rank["rank"]) != 2);
        ++ranks;
    }
    EXPECT_EQ(ranks, 8u);
    EXPECT_EQ(core::lookupRankSummary(cache.path(), victim).state, core::SummaryState::Current);

    auto text = test::runCli("summary", {kDlrm, "--cache-dir", cache.path().string()});
    EXPECT_EQ(text.code, 0);
    EXPECT_NE(text.out.find("8 ranks read from their summary files"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("[from summary]"), std::string::npos);
    EXPECT_TRUE(text.err.empty()) << text.err;

    // A rank of a converted run that cannot be loaded at all: the others are still shown from their summaries, and
    // the exit is 3 with the file named.
    test::TempDir run("strobe-convert-run");
    fs::copy_file(kDlrm + "/worker0_step_12.1694128201545.pt.trace.json", run.path() / "rank0.json");
    ASSERT_EQ(convert({run.path().string()}, cache.path()).code, 0);
    test::writeFile(run.path() / "rank1.json", "this is not a trace");
    auto broken = test::runCli("summary", {run.path().string(), "--cache-dir", cache.path().string()});
    EXPECT_EQ(broken.code, 3);
    EXPECT_NE(broken.out.find("Rank 0"), std::string::npos) << broken.out;
    EXPECT_NE(broken.err.find((run.path() / "rank1.json").string()), std::string::npos) << broken.err;
}

// The reader answers an error naming the file and a byte offset for every truncation and for foreign files, and
// round-trips what it wrote.
TEST(RankSummaryFile, BrokenImagesGiveAnErrorNamingFileAndOffset) {
    test::TempDir cache("strobe-convert-cli");
    ASSERT_EQ(convert({kDlrm}, cache.path()).code, 0);
    const std::string source = kDlrm + "/worker0_step_12.1694128201545.pt.trace.json";
    const std::string image = readAll(core::rankSummaryPath(cache.path(), source));
    auto whole = core::decodeRankSummary(image, "x.strobe-summary");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(core::encodeRankSummary(*whole), image);
    for (size_t n = 0; n < image.size(); n += 7) {
        auto cut = core::decodeRankSummary(image.substr(0, n), "x.strobe-summary");
        ASSERT_FALSE(cut.ok()) << n;
        EXPECT_EQ(cut.error().where.file, "x.strobe-summary");
        EXPECT_GE(cut.error().where.byteOffset, 0);
    }
    // Another source's summary in this one's place is foreign.
    const std::string other = kDlrm + "/worker1_step_12.1694128201556.pt.trace.json";
    fs::copy_file(core::rankSummaryPath(cache.path(), source), core::rankSummaryPath(cache.path(), other),
                  fs::copy_options::overwrite_existing);
    EXPECT_EQ(core::lookupRankSummary(cache.path(), other).state, core::SummaryState::Foreign);
}

// A cgroup's limit bounds the budget: v2 (memory.max - memory.current) and v1 (limit_in_bytes - usage_in_bytes),
// the least of the process's own cgroup and the root; "max" and v1's huge "no limit" set none.
TEST(MemoryBudgetCgroup, TheProcessAllocationBoundsTheBudget) {
    test::TempDir root("strobe-cgroup");
    const fs::path self = root.path() / "self";
    test::writeFile(self, "0::/slurm/job_7/step_0\n");
    EXPECT_EQ(core::MemoryBudget::cgroupAvailable(root.path().string(), self.string()), 0u);
    test::writeFile(root.path() / "slurm/job_7/step_0/memory.max", "4294967296\n");
    test::writeFile(root.path() / "slurm/job_7/step_0/memory.current", "1073741824\n");
    EXPECT_EQ(core::MemoryBudget::cgroupAvailable(root.path().string(), self.string()), 3221225472u);
    test::writeFile(root.path() / "memory.max", "max\n");
    EXPECT_EQ(core::MemoryBudget::cgroupAvailable(root.path().string(), self.string()), 3221225472u);

    test::TempDir v1("strobe-cgroup-v1");
    test::writeFile(self, "4:memory:/slurm/uid_0/job_8\n1:cpu:/\n");
    test::writeFile(v1.path() / "memory/memory.limit_in_bytes", "9223372036854771712\n");
    test::writeFile(v1.path() / "memory/slurm/uid_0/job_8/memory.limit_in_bytes", "2147483648\n");
    test::writeFile(v1.path() / "memory/slurm/uid_0/job_8/memory.usage_in_bytes", "147483648\n");
    EXPECT_EQ(core::MemoryBudget::cgroupAvailable(v1.path().string(), self.string()), 2000000000u);
}

// convert --slurm's default --ranks-per-task (issue 29): one task per CPU Slurm can start a task on, at least 8
// ranks a task. The sinfo lines are `sinfo --noheader --format='%P %C'` as Slurm 22.05 prints them (the first one
// copied from tests/slurm/start_cluster.sh's one-node cluster; "A/I/O/T" = allocated/idle/other/total CPUs).
TEST(ConvertSlurmDefaults, RanksPerTaskFollowTheIdleCpusOfThePartition) {
    // 512 ranks over 2 CPUs: 256 a task; 1,024 over 2: 512; 1,000 over 3: ceil(333.3) = 334; 32 over 64: the floor 8.
    EXPECT_EQ(app::defaultRanksPerTask(512, 2), 256u);
    EXPECT_EQ(app::defaultRanksPerTask(1024, 2), 512u);
    EXPECT_EQ(app::defaultRanksPerTask(1000, 3), 334u);
    EXPECT_EQ(app::defaultRanksPerTask(32, 64), app::kMinRanksPerTask);
    EXPECT_EQ(app::defaultRanksPerTask(512, 0), app::kMinRanksPerTask);  // sinfo did not answer

    EXPECT_EQ(app::partitionCpus("debug* 0/2/0/2\n", ""), 2u);
    const std::string two = "debug* 1/1/0/2\ngpu 100/28/0/128\nbig 64/0/0/64\n";
    EXPECT_EQ(app::partitionCpus(two, ""), 1u);           // the default partition's idle CPUs
    EXPECT_EQ(app::partitionCpus(two, "gpu"), 28u);
    EXPECT_EQ(app::partitionCpus(two, "big"), 64u);       // none idle: all of them
    EXPECT_EQ(app::partitionCpus(two, "gpu,big"), 92u);   // 28 + 64
    EXPECT_EQ(app::partitionCpus(two, "nosuch"), 0u);
    EXPECT_EQ(app::partitionCpus("", ""), 0u);
    EXPECT_EQ(app::partitionCpus("debug* n/a\n", ""), 0u);  // not the A/I/O/T counts
}
