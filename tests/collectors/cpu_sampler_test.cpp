// The CPU sampler: /proc/stat and /proc/meminfo parsing on fixed texts (values worked out by hand in the comments),
// and real sampling of this machine read back through Strobe's sampler CSV loader.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "collectors/cpu_sampler.h"
#include "core/formats/strobe_sampler_csv.h"
#include "core/formats/telemetry_metrics.h"

using namespace strobe;
using namespace strobe::collectors;
namespace fs = std::filesystem;

namespace {

TEST(CpuSampler, ProcStatJiffiesAndUtilisation) {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const char* a = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 60 0 20 400 20 0 0 0 0 0\ncpu1 40 0 30 400 30 0 0 0 0 0\n"
                    "intr 12345\nctxt 1\n";
    const char* b = "cpu  200 0 100 850 50 0 0 0 0 0\ncpu0 160 0 20 420 20 0 0 0 0 0\ncpu1 40 0 80 430 30 0 0 0 0 0\n";
    auto sa = parseProcStat(a), sb = parseProcStat(b);
    ASSERT_TRUE(sa && sb);
    ASSERT_EQ(sa->cores.size(), 2u);
    EXPECT_EQ(sa->all.busy, 150u);   // 100 + 50
    EXPECT_EQ(sa->all.total, 1000u);  // + idle 800 + iowait 50
    // whole machine: busy +150 of +200 jiffies = 75 %; cpu0: +100 of +120; cpu1: +50 of +80
    EXPECT_DOUBLE_EQ(*utilisationPct(sa->all, sb->all), 75.0);
    EXPECT_DOUBLE_EQ(*utilisationPct(sa->cores[0], sb->cores[0]), 100.0 * 100 / 120);
    EXPECT_DOUBLE_EQ(*utilisationPct(sa->cores[1], sb->cores[1]), 62.5);
    EXPECT_FALSE(utilisationPct(sa->all, sa->all).has_value());  // no time passed
    EXPECT_FALSE(parseProcStat("intr 1\n").has_value());
    EXPECT_FALSE(parseProcStat("cpu 1 2\n").has_value());
}

TEST(CpuSampler, Meminfo) {
    auto m = parseMeminfo("MemTotal:       16384000 kB\nMemFree:  1000 kB\nMemAvailable:    4096000 kB\n");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->totalKiB, 16384000u);
    EXPECT_EQ(m->availableKiB, 4096000u);
    EXPECT_FALSE(parseMeminfo("MemTotal: 1 kB\n").has_value());
}

TEST(CpuSampler, RealSamplesLoadAsASamplerSource) {
    const fs::path out = fs::temp_directory_path() / ("strobe-cpu-sampler-" + std::to_string(::getpid()) + ".csv");
    std::atomic<bool> stop{false};
    CpuSamplerOptions o;
    o.outPath = out.string();
    o.rateHz = 50;
    o.durationS = 0.5;
    ASSERT_TRUE(runCpuSampler(o, stop).ok());
    auto text = core::readFileText(out.string());
    ASSERT_TRUE(text.ok());
    auto rank = core::parseStrobeSamplerCsv(text->text, out.string(), {});
    ASSERT_TRUE(rank.ok()) << rank.error().toString();
    const auto& s = (*rank)->samples;
    size_t whole = 0, core0 = 0, mem = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const auto metric = (*rank)->strings.view(s.metric[i]);
        if (metric == "cpu.util_pct") ++whole;
        if (metric == "cpu0.util_pct") ++core0;
        if (metric == "mem_used_mib") ++mem;
        if (metric.find("util_pct") != std::string_view::npos) {
            EXPECT_GE(s.value[i], 0.0);
            EXPECT_LE(s.value[i], 100.0);
        }
    }
    // 50 Hz for 0.5 s: about 25 rows (at least a few on a loaded machine), each with the whole machine and memory.
    // A core's cell is empty in a row where that core had no clock tick of its own (USER_HZ: 10 ms), so cpu0 has a
    // value in most rows but not necessarily all.
    EXPECT_GE(whole, 5u);
    EXPECT_GE(core0, 1u);
    EXPECT_LE(core0, whole);
    EXPECT_EQ(mem, whole);
    fs::remove(out);
}

TEST(CpuSampler, StopFlagEndsSamplingPromptly) {
    const fs::path out = fs::temp_directory_path() / ("strobe-cpu-sampler-stop-" + std::to_string(::getpid()) + ".csv");
    std::atomic<bool> stop{false};
    CpuSamplerOptions o;
    o.outPath = out.string();
    o.rateHz = 0.05;  // one sample in 20 s: the stop must not wait for it
    std::thread t([&] { EXPECT_TRUE(runCpuSampler(o, stop).ok()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto t0 = std::chrono::steady_clock::now();
    stop = true;
    t.join();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));  // not the 20 s period
    EXPECT_TRUE(fs::exists(out));  // the header at least
    fs::remove(out);
    o.outPath = "/nonexistent-dir/strobe.csv";
    auto st = runCpuSampler(o, stop);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().toString().find("/nonexistent-dir/strobe.csv"), std::string::npos);
}

}  // namespace
