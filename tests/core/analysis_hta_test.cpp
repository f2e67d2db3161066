// Strobe's HTA-defined analyses against Holistic Trace Analysis' own outputs (tests/data/expected/hta: HTA at
// commit f4d0062 run on the same traces; times in µs, percentages rounded by HTA to 2 decimals — 1 for the
// kernel-type breakdown), with the `hta` / `hta-include-last` windows. Tolerances: times must agree to
// 0.001 µs (HTA's µs are whole numbers after its rounding of fractional timestamps, which the hta windows
// reproduce); percentages within HTA's rounding (0.005, or 0.05 where HTA rounds to one decimal), ratios
// within 0.005. Where Strobe reports more than HTA (named kernels keep per-launch statistics after HTA folds
// the rest into "others"), only what HTA prints is compared; see core/analysis/kernel_types.h.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/context.h"
#include "core/analysis/registry.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

const std::string kData = STROBE_TEST_DATA_DIR;
const std::string kRes = STROBE_RESOURCE_DIR;

// RFC 4180 CSV (quoted fields with commas and doubled quotes), header row first.
std::vector<std::map<std::string, std::string>> readCsv(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string s = ss.str();
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false, any = false;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (quoted) {
            if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            rows.back().push_back(field);
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
            any = true;
        }
    }
    if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
    (void)any;
    std::vector<std::map<std::string, std::string>> out;
    if (rows.empty()) return out;
    const auto header = rows[0];
    for (size_t r = 1; r < rows.size(); ++r) {
        if (rows[r].size() < header.size()) continue;
        std::map<std::string, std::string> m;
        for (size_t c = 0; c < header.size(); ++c) m[header[c]] = rows[r][c];
        out.push_back(std::move(m));
    }
    return out;
}

double toD(const std::string& s) { return s.empty() ? NAN : std::stod(s); }
double cellD(const Table& t, size_t r, const char* col) { return Table::number(t.at(r, col), NAN); }
std::string cellS(const Table& t, size_t r, const char* col) { return Table::text(t.at(r, col)); }

void expectUs(double oursNs, double htaUs, const std::string& what) {
    EXPECT_NEAR(oursNs / 1000.0, htaUs, 1e-3 + 1e-12 * std::abs(htaUs)) << what;
}
void expectPct(double ours, const std::string& hta, double tol, const std::string& what) {
    if (hta.empty()) {
        EXPECT_TRUE(std::isnan(ours)) << what << ": HTA has no value, Strobe " << ours;
        return;
    }
    EXPECT_NEAR(ours, toD(hta), tol + 1e-9) << what;
}

struct Case {
    std::string folder;             // under expected/hta
    std::vector<std::string> paths;  // inputs
    std::string window;
};

std::vector<Case> cases() {
    const std::string k = kData + "/kineto/";
    const std::string dlrm = kRes + "/sample/param-dlrm-8rank";
    const std::string mi300 = k + "tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz";
    return {
        {"trace_filter", {k + "hta/trace_filter"}, "hta"},
        {"trace_filter-include-last", {k + "hta/trace_filter"}, "hta-include-last"},
        {"df_index_resolver", {k + "hta/df_index_resolver"}, "hta"},
        {"ns_resolution_trace", {k + "hta/ns_resolution_trace"}, "hta"},
        {"param-dlrm-8rank", {dlrm}, "hta"},
        {"param-dlrm-8rank-include-last", {dlrm}, "hta-include-last"},
        {"mi300x_resnet", {mi300}, "hta"},
        {"mi300x_resnet-include-last", {mi300}, "hta-include-last"},
    };
}

// The run loader is written on another branch; until it lands on main its STUB answers "not implemented".
DatasetPtr load(const std::vector<std::string>& paths) {
    RunLoadOptions o;
    o.useCache = false;
    auto r = loadRun(paths, o);
    if (!r.ok()) {
        ADD_FAILURE() << r.error().toString();
        return nullptr;
    }
    return r.value();
}

// Where Strobe must differ from HTA: in the 8-rank DLRM sample, ranks 1 and 3 have 64 kernels on stream 7 whose
// correlation id matches no CPU-side event (and HTA does not filter this run: one ProfilerStep name). HTA then
// joins them to the trace's event #0 (its "index_correlation" 0 means "no match", but the join on the index
// finds event 0, an unrelated cpu_op) and compares that op's start with the previous kernel's end, calling 63
// of these gaps host waits. Strobe has no launching call for them, so the gaps fall under kernel wait or other
// by their length. Verified outside Strobe: the same rules in Python with "no match → not a host wait" give
// Strobe's split (host 17356 / kernel 208 µs on rank 1); the stream's total idle agrees with HTA exactly.
bool knownIdleDifference(const std::string& folder, const std::string& rank, const std::string& stream) {
    return folder.rfind("param-dlrm-8rank", 0) == 0 && (rank == "1" || rank == "3") && stream == "7";
}

class HtaAgreement : public testing::TestWithParam<Case> {};

}  // namespace

TEST_P(HtaAgreement, MatchesHtaOutputs) {
    const Case& c = GetParam();
    const std::string exp = kData + "/expected/hta/" + c.folder + "/";
    DatasetPtr ds = load(c.paths);
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    AnalysisRequest req;
    req.window = WindowSpec::parse(c.window).value();
    auto run = [&](const char* name, std::map<std::string, std::string> values = {}) {
        AnalysisRequest r = req;
        r.values = ParamValues(values.begin(), values.end());  // as text, like the command line
        auto t = runAnalysis(ctx, name, r);
        EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().toString());
        return t.ok() ? t.value() : Table{};
    };
    auto rowOfRank = [](const Table& t, const std::string& rank) {
        for (size_t i = 0; i < t.rows.size(); ++i)
            if (cellS(t, i, "rank") == rank) return i;
        return t.rows.size();
    };

    // Temporal breakdown.
    Table temporal = run("temporal");
    for (const auto& e : readCsv(exp + "temporal_breakdown.csv")) {
        size_t i = rowOfRank(temporal, e.at("rank"));
        ASSERT_LT(i, temporal.rows.size()) << "rank " << e.at("rank");
        const std::string w = c.folder + " rank " + e.at("rank") + " ";
        expectUs(cellD(temporal, i, "idle_ns"), toD(e.at("idle_time(us)")), w + "idle");
        expectUs(cellD(temporal, i, "compute_ns"), toD(e.at("compute_time(us)")), w + "compute");
        expectUs(cellD(temporal, i, "non_compute_ns"), toD(e.at("non_compute_time(us)")), w + "non-compute");
        expectUs(cellD(temporal, i, "window_ns"), toD(e.at("kernel_time(us)")), w + "window");
        expectPct(cellD(temporal, i, "idle_pct"), e.at("idle_time_pctg"), 0.005, w + "idle %");
        expectPct(cellD(temporal, i, "compute_pct"), e.at("compute_time_pctg"), 0.005, w + "compute %");
        expectPct(cellD(temporal, i, "non_compute_pct"), e.at("non_compute_time_pctg"), 0.005, w + "non-compute %");
    }

    // Communication/computation overlap.
    Table overlap = run("overlap");
    for (const auto& e : readCsv(exp + "comm_comp_overlap.csv")) {
        size_t i = rowOfRank(overlap, e.at("rank"));
        ASSERT_LT(i, overlap.rows.size());
        expectPct(cellD(overlap, i, "overlap_pct"), e.at("comp_comm_overlap_pctg"), 0.005,
                  c.folder + " overlap rank " + e.at("rank"));
    }

    // Kernel-type breakdown (HTA sums over ranks).
    Table types = run("kernel-types");
    std::map<std::string, std::pair<double, double>> ours;
    const bool multi = ds->ranks.size() > 1;
    for (size_t i = 0; i < types.rows.size(); ++i)
        if ((cellS(types, i, "rank") == "all") == multi)
            ours[cellS(types, i, "type")] = {cellD(types, i, "time_ns"), cellD(types, i, "pct")};
    size_t htaRows = 0;
    for (const auto& e : readCsv(exp + "gpu_kernel_breakdown_0.csv")) {
        const std::string type = e.at("kernel_type");
        if (toD(e.at("sum")) == 0 && !ours.count(type)) continue;  // zero-length overlaps: nothing to report
        ++htaRows;
        ASSERT_TRUE(ours.count(type)) << c.folder << ": Strobe has no " << type;
        expectUs(ours[type].first, toD(e.at("sum")), c.folder + " " + type);
        expectPct(ours[type].second, e.at("percentage"), 0.05, c.folder + " " + type + " %");
    }
    EXPECT_EQ(ours.size(), htaRows) << c.folder << ": kernel types only Strobe reports";

    // Top kernels per type, "others" folded as HTA does.
    Table kernels = run("kernel-types", {{"view", "kernels"}});
    std::map<std::string, size_t> kernelRow;
    std::set<std::string> folded;  // rank/type with an "others" row
    for (size_t i = 0; i < kernels.rows.size(); ++i) {
        const std::string key = cellS(kernels, i, "type") + "|" + cellS(kernels, i, "rank") + "|" + cellS(kernels, i, "name");
        kernelRow[key] = i;
        if (cellS(kernels, i, "name") == "others") folded.insert(cellS(kernels, i, "type") + "|" + cellS(kernels, i, "rank"));
    }
    auto expected1 = readCsv(exp + "gpu_kernel_breakdown_1.csv");
    for (const auto& e : expected1) {
        const std::string group = e.at("kernel_type") + "|" + e.at("rank");
        const std::string key = group + "|" + e.at("name");
        auto it = kernelRow.find(key);
        ASSERT_NE(it, kernelRow.end()) << c.folder << ": Strobe has no row for " << key.substr(0, 200);
        size_t i = it->second;
        const std::string w = c.folder + " " + key.substr(0, 120);
        expectUs(cellD(kernels, i, "sum_ns"), toD(e.at("sum (us)")), w + " sum");
        if (e.at("name") == "others" || !folded.count(group)) {
            expectUs(cellD(kernels, i, "max_ns"), toD(e.at("max (us)")), w + " max");
            expectUs(cellD(kernels, i, "min_ns"), toD(e.at("min (us)")), w + " min");
            EXPECT_NEAR(cellD(kernels, i, "mean_ns") / 1000, toD(e.at("mean (us)")), 1e-6 * (1 + toD(e.at("mean (us)")))) << w;
            EXPECT_NEAR(cellD(kernels, i, "stddev_ns") / 1000, toD(e.at("stddev")), 1e-6 * (1 + toD(e.at("stddev")))) << w;
        }
    }
    EXPECT_EQ(kernels.rows.size(), expected1.size()) << c.folder;

    // Idle time by cause, per stream (HTA's default threshold: 30 µs).
    Table idle = run("idle");
    std::map<std::string, size_t> idleRow;
    for (size_t i = 0; i < idle.rows.size(); ++i)
        idleRow[cellS(idle, i, "rank") + "|" + cellS(idle, i, "stream") + "|" + cellS(idle, i, "cause")] = i;
    auto expectedIdle = readCsv(exp + "idle_time_breakdown_0.csv");
    std::set<std::string> idleRanks;
    for (const auto& e : expectedIdle) {
        idleRanks.insert(e.at("rank"));
        const std::string key = e.at("rank") + "|" + e.at("stream") + "|" + e.at("idle_category");
        auto it = idleRow.find(key);
        ASSERT_NE(it, idleRow.end()) << c.folder << ": no idle row " << key;
        if (knownIdleDifference(c.folder, e.at("rank"), e.at("stream"))) continue;  // checked below
        expectUs(cellD(idle, it->second, "idle_ns"), toD(e.at("idle_time")), c.folder + " idle " + key);
        expectPct(cellD(idle, it->second, "ratio"), e.at("idle_time_ratio"), 0.005, c.folder + " idle ratio " + key);
    }
    // Where Strobe differs on purpose (see knownIdleDifference): the stream's total idle time still agrees.
    std::map<std::string, std::pair<double, double>> idleTotals;  // rank|stream → (HTA µs, Strobe ns)
    for (const auto& e : expectedIdle)
        if (knownIdleDifference(c.folder, e.at("rank"), e.at("stream")))
            idleTotals[e.at("rank") + "|" + e.at("stream")].first += toD(e.at("idle_time"));
    for (size_t i = 0; i < idle.rows.size(); ++i) {
        auto it = idleTotals.find(cellS(idle, i, "rank") + "|" + cellS(idle, i, "stream"));
        if (it != idleTotals.end()) it->second.second += cellD(idle, i, "idle_ns");
    }
    for (const auto& [k, v] : idleTotals) expectUs(v.second, v.first, c.folder + " total idle " + k);
    size_t ourIdleRows = 0;
    for (size_t i = 0; i < idle.rows.size(); ++i) ourIdleRows += idleRanks.count(cellS(idle, i, "rank"));
    EXPECT_EQ(ourIdleRows, expectedIdle.size()) << c.folder;
    for (const auto& e : readCsv(exp + "idle_time_breakdown_1.csv")) {
        const std::string key = e.at("rank") + "|" + e.at("stream") + "|" + e.at("idle_category");
        auto it = idleRow.find(key);
        ASSERT_NE(it, idleRow.end()) << key;
        if (knownIdleDifference(c.folder, e.at("rank"), e.at("stream"))) continue;
        EXPECT_EQ(cellD(idle, it->second, "count"), toD(e.at("count"))) << c.folder << " idle count " << key;
        if (!e.at("max").empty()) expectUs(cellD(idle, it->second, "max_ns"), toD(e.at("max")), c.folder + " idle max " + key);
    }

    // HTA's event table after its window filter.
    Table events = run("events");
    for (const auto& entry : fs::directory_iterator(exp)) {
        const std::string fn = entry.path().filename().string();
        if (fn.rfind("event_summary_rank", 0) != 0) continue;
        const std::string rank = fn.substr(18, fn.size() - 18 - 4);
        std::map<std::string, size_t> evRow;
        for (size_t i = 0; i < events.rows.size(); ++i)
            if (cellS(events, i, "rank") == rank) evRow[cellS(events, i, "category")] = i;
        for (const auto& e : readCsv(entry.path().string())) {
            auto it = evRow.find(e.at("cat_s"));
            ASSERT_NE(it, evRow.end()) << c.folder << " rank " << rank << ": no " << e.at("cat_s");
            EXPECT_EQ(cellD(events, it->second, "count"), toD(e.at("count"))) << c.folder << " rank " << rank << " " << e.at("cat_s");
            expectUs(cellD(events, it->second, "dur_ns"), toD(e.at("dur_sum")), c.folder + " rank " + rank + " " + e.at("cat_s"));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Expected, HtaAgreement, testing::ValuesIn(cases()), [](const auto& info) {
    std::string n = info.param.folder;
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});
