// strobe-cli summary: per-rank facts of a run (platform, GPU, rank/world, event counts, kernel time,
// span, steps, time per kernel category, top kernels), as readable text or one JSON document.
#include "app/cli/cmd_summary.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/cmd_convert.h"
#include "app/cli/command.h"
#include "core/engine/load_cache.h"
#include "core/engine/rank_summary.h"
#include "core/io/resources.h"
#include "core/engine/run_loader.h"
#include "core/model/clock_rules.h"
#include "core/model/duration_text.h"

namespace strobe::app {

namespace {

using core::RankSummary;
using core::RunSummary;
using core::TimeNs;

constexpr const char* kSummaryHelp =
    "Usage: strobe-cli summary PATH... [--json] [--top N] [--no-cache] [--cache-dir DIR] [--clock-offset NS]\n"
    "\n"
    "Loads a run (trace files, or directories of them: one PyTorch profiler / Kineto trace per rank, or any other\n"
    "format Strobe reads: rocprofv3 CSV/JSON, rocprof .xr run directories ...; see the README's formats table), lists\n"
    "its sources (format, rows, span, kernels, counters, samples, join match rate) and prints\n"
    "per rank: platform, GPU name, rank and world size, events per raw category, kernel count and total kernel\n"
    "time (kernels only; memcpy and memset apart), time span, profiler steps, GPU time per kernel category and\n"
    "the top kernels by total time. Run-level warnings (duplicate or missing ranks...) follow.\n"
    "\n"
    "Options:\n"
    "  --json        one JSON document on stdout (keys are documented in the README)\n"
    "  --top N       how many kernels to list per rank (default 10, 0 for none)\n"
    "  --no-cache    neither read nor write the on-disk load cache (nor read `convert`'s summaries)\n"
    "  --cache-dir DIR  the cache directory (default: $XDG_CACHE_HOME/strobe)\n"
    "  --clock-offset NS  nanoseconds added to the times of sources not on the realtime clock (rocprof, nsys...)\n"
    "  -h, --help    show this help\n"
    "\n"
    "On a run converted by `strobe-cli convert`, each rank whose summary is current is read from it (marked\n"
    "[from summary], \"from_summary\": true) and its events are not loaded; a rank without a current summary\n"
    "(stale, corrupt or foreign: one warning names the file) is loaded from its trace and its summary made again.\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input (a file failed to load, or no traces found).\n"
    "Errors go to stderr and name the file.";

// Its own option, declared once: ArgParser parses and coerces it, the code reads it through the handle.
const core::StringParam kSummaryCacheDir{"cache-dir", "Cache directory",
                                         "Where the load cache and the summaries of `convert` are", ""};
const core::IntParam kTop =
    core::IntParam{"top", "Top kernels", "How many kernels to list per rank (0 for none)", 10}.bounded(0, 1000000, 1);

using core::formatDuration;  // the one human-readable duration (core/model/duration_text.h)

std::string percentOf(TimeNs part, TimeNs whole) {
    if (whole <= 0) return "-";
    return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string_view rankSourceName(core::RankSource s) {
    switch (s) {
    case core::RankSource::DistributedInfo: return "distributed_info";
    case core::RankSource::FileName: return "file_name";
    case core::RankSource::FileOrder: return "file_order";
    case core::RankSource::MergedTrace: return "merged_trace";
    }
    return "file_order";
}

std::string displayName(const std::string& path) {
    const std::string name = std::filesystem::path(path).filename().string();
    return name.empty() ? path : name;
}

// Kernel names can run to kilobytes (templated CUTLASS names): keep the text output readable. The middle goes, not
// the end: two instantiations of one template differ in their last parameters, and cut at the end they printed the
// same. Cuts fall on UTF-8 character boundaries.
std::string shortName(const std::string& name, size_t max = 100) {
    if (name.size() <= max) return name;
    const auto isContinuation = [&](size_t i) { return (static_cast<unsigned char>(name[i]) & 0xC0) == 0x80; };
    size_t head = (max - 3) * 3 / 5;
    size_t tail = name.size() - (max - 3 - head);
    while (head > 0 && isContinuation(head)) --head;
    while (tail < name.size() && isContinuation(tail)) ++tail;
    return name.substr(0, head) + "..." + name.substr(tail);
}

// What the trace says about its platform and GPUs, and no more.
std::string platformText(const RankSummary& r) {
    const std::string_view platform = core::toString(r.platform);
    // Kineto names its GPUs in deviceProperties; other sources in their own tables (or not at all).
    const bool kineto = r.format.rfind("kineto", 0) == 0;
    if (r.cpuOnly)
        return fmt::format("{} (CPU only: no GPU activity{})", platform,
                           kineto ? " and no deviceProperties in the trace" : " in the source");
    std::string gpu = !r.gpuName.empty() ? r.gpuName
                      : kineto           ? std::string("GPU not named (no deviceProperties in the trace)")
                                         : std::string("GPU not named (the source records no GPU model)");
    if (r.gpuCount > 1) gpu += fmt::format(" (x{} devices)", r.gpuCount);
    return fmt::format("{}, {}", platform, gpu);
}

// One source of the run: the ranks (or the host telemetry) that came from one file or directory in one format.
struct SourceFacts {
    std::string path;
    std::string format;
    std::string toolVersion;
    uint64_t rows = 0;
    TimeNs start = 0, end = 0;
    bool timed = false;
    bool hasGpu = false;
    uint64_t kernels = 0;
    TimeNs kernelNs = 0;
    uint64_t counters = 0;
    uint64_t samples = 0;
    TimeNs sampleStart = 0, sampleEnd = 0;  // the samples' own span (telemetry beside a trace's events)
    double matchRate = -1;
};

void extend(SourceFacts& s, TimeNs a, TimeNs b) {
    if (!s.timed || a < s.start) s.start = a;
    if (!s.timed || b > s.end) s.end = b;
    s.timed = true;
}

std::vector<SourceFacts> sourcesOf(const core::Dataset& ds) {
    std::vector<SourceFacts> out;
    for (const core::RankData* rp : ds.allSources()) {  // the ranks, then the hosts' telemetry
        const core::RankData& r = *rp;
        const std::string path = r.path.empty() ? r.info.path : r.path;
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const SourceFacts& s) { return s.path == path && s.format == r.info.format; });
        if (it == out.end()) {
            out.push_back(SourceFacts{});
            it = out.end() - 1;
            it->path = path;
            it->format = r.info.format;
            it->toolVersion = r.info.toolVersion;
        }
        SourceFacts& s = *it;
        s.rows += r.gpu.size() + r.slices.size() + r.counters.size() + r.kernelCounters.size() + r.samples.size();
        for (size_t i = 0; i < r.gpu.size(); ++i) {
            extend(s, r.gpu.ts[i], r.gpu.ts[i] + r.gpu.dur[i]);
            if (r.gpu.kind[i] != core::EventKind::Kernel) continue;
            ++s.kernels;
            s.kernelNs += r.gpu.dur[i];
        }
        for (size_t i = 0; i < r.slices.size(); ++i) extend(s, r.slices.ts[i], r.slices.ts[i] + r.slices.dur[i]);
        // The span is the events' (the rank's "Time span"); samples have their own, said beside their count. A
        // source of samples only (telemetry) spans its samples.
        const bool eventless = r.gpu.size() == 0 && r.slices.size() == 0;
        for (size_t i = 0; i < r.samples.size(); ++i) {
            const TimeNs t = r.samples.ts[i];
            if (s.samples == 0 && i == 0) s.sampleStart = s.sampleEnd = t;
            s.sampleStart = std::min(s.sampleStart, t);
            s.sampleEnd = std::max(s.sampleEnd, t);
            if (eventless) extend(s, t, t);
        }
        s.hasGpu = s.hasGpu || r.gpu.size() > 0;
        s.counters += r.kernelCounters.size();
        s.samples += r.samples.size();
        if (r.stats.joinMatchRate >= 0) s.matchRate = r.stats.joinMatchRate;
    }
    return out;
}

std::string sourcesJson(const core::Dataset& ds) {
    std::string j = "[";
    const auto sources = sourcesOf(ds);
    auto count = [](bool applies, auto v) { return applies ? fmt::format("{}", v) : std::string("null"); };
    for (size_t i = 0; i < sources.size(); ++i) {
        const SourceFacts& s = sources[i];
        j += fmt::format(
            "{}\n    {{\"path\": {}, \"format\": {}, \"tool_version\": {}, \"rows\": {}, \"span_ns\": {}, "
            "\"kernels\": {}, \"kernel_time_ns\": {}, \"counters\": {}, \"samples\": {}, \"match_rate\": {}}}",
            i ? "," : "", jsonQuote(s.path), jsonQuote(s.format),
            s.toolVersion.empty() ? std::string("null") : jsonQuote(s.toolVersion), s.rows,
            count(s.timed, s.end - s.start), count(s.hasGpu, s.kernels), count(s.hasGpu, s.kernelNs),
            count(s.counters > 0, s.counters), count(s.samples > 0, s.samples),
            s.matchRate >= 0 ? fmt::format("{:.6f}", s.matchRate) : std::string("null"));
    }
    j += sources.empty() ? "]" : "\n  ]";
    return j;
}

std::string sourcesText(const core::Dataset& ds) {
    std::string text = "Sources:\n";
    for (const SourceFacts& s : sourcesOf(ds)) {
        text += fmt::format("  {} [{}{}]: {} rows", s.path, s.format,
                            s.toolVersion.empty() ? std::string() : " " + s.toolVersion, s.rows);
        if (s.timed) text += ", span " + formatDuration(s.end - s.start);
        if (s.hasGpu) text += fmt::format(", {} kernels ({})", s.kernels, formatDuration(s.kernelNs));
        if (s.counters) text += fmt::format(", {} counter values", s.counters);
        if (s.samples && s.hasGpu)
            text += fmt::format(", {} samples over {}", s.samples, formatDuration(s.sampleEnd - s.sampleStart));
        else if (s.samples)
            text += fmt::format(", {} samples", s.samples);
        if (s.matchRate >= 0) text += fmt::format(", join match {:.1f}%", 100.0 * s.matchRate);
        text += "\n";
    }
    return text;
}

}  // namespace

std::string summaryText(const RunSummary& run, const core::Dataset& ds, const core::RunEntry* entry) {
    std::string text;
    auto out = std::back_inserter(text);
    fmt::format_to(out, "Run: {} ({} rank{})\n", fmt::join(ds.sources, " "), run.ranks.size(),
                   run.ranks.size() == 1 ? "" : "s");
    if (entry) {
        if (entry->manifest) fmt::format_to(out, "  {:<16}{}\n", "Manifest", core::findRunManifest(entry->path()));
        for (const auto& [name, value] : core::runFacts(*entry)) fmt::format_to(out, "  {:<16}{}\n", name, value);
    }
    text += sourcesText(ds);
    if (const auto n = std::count_if(run.ranks.begin(), run.ranks.end(), [](const RankSummary& r) { return r.fromSummary; }))
        fmt::format_to(out, "  {} rank{} read from {} summary file{} (strobe-cli convert): events not loaded\n", n,
                       n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "" : "s");
    for (const core::HostTelemetry& h : ds.hosts) {
        uint64_t samples = 0;
        for (const auto& s : h.sources) samples += s->samples.size();
        fmt::format_to(out, "Host telemetry{}: {} source{}, {} samples (not ranks)\n",
                       h.host.empty() ? std::string() : " of " + h.host, h.sources.size(),
                       h.sources.size() == 1 ? "" : "s", samples);
    }
    for (const RankSummary& r : run.ranks) {
        fmt::format_to(out, "\nRank {}", r.rank);
        if (r.worldSize > 0) fmt::format_to(out, " of {}", r.worldSize);
        fmt::format_to(out, "  {}\n", displayName(r.path));
        fmt::format_to(out, "  {:<16}{}\n", "File", r.path);
        fmt::format_to(out, "  {:<16}{}\n", "Platform", platformText(r));
        std::string events = fmt::format("{}", r.events);
        if (r.skippedEvents != 0) events += fmt::format(" ({} skipped)", r.skippedEvents);
        if (r.truncated) events += " (file truncated)";
        if (r.fromCache) events += " [from load cache]";
        if (r.fromSummary) events += " [from summary]";
        fmt::format_to(out, "  {:<16}{}\n", "Events", events);
        fmt::format_to(out, "  {:<16}{} kernels, {} total\n", "Kernels", r.kernelCount, formatDuration(r.kernelTimeNs));
        fmt::format_to(out, "  {:<16}{}, {} total\n", "Memcpy", r.memcpyCount, formatDuration(r.memcpyTimeNs));
        fmt::format_to(out, "  {:<16}{}, {} total\n", "Memset", r.memsetCount, formatDuration(r.memsetTimeNs));
        fmt::format_to(out, "  {:<16}{} (first start {} ns, last end {} ns)\n", "Time span", formatDuration(r.spanNs()),
                       r.spanStart, r.spanEnd);
        if (r.stepSpans.empty()) {
            fmt::format_to(out, "  {:<16}none\n", "Steps");
        } else {
            std::string steps;
            for (const auto& st : r.stepSpans) {
                if (!steps.empty()) steps += ", ";
                steps += fmt::format("#{} ({})", st.number, formatDuration(st.endNs - st.startNs));
            }
            fmt::format_to(out, "  {:<16}{}\n", "Steps", steps);
        }
        TimeNs gpuTotal = 0;
        for (const auto& [cat, t] : r.timeByCategory) gpuTotal += t;
        if (!r.timeByCategory.empty()) {
            fmt::format_to(out, "  GPU time by category (kernels, memcpy and memset; share of {}):\n",
                           formatDuration(gpuTotal));
            std::vector<size_t> order(r.timeByCategory.size());
            for (size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
                return r.timeByCategory[a].second > r.timeByCategory[b].second;
            });
            for (size_t i : order) {
                const auto& [cat, t] = r.timeByCategory[i];
                fmt::format_to(out, "    {:<16}{:>14}  {:>6}  {:>8} events\n", core::toString(cat), formatDuration(t),
                               percentOf(t, gpuTotal), r.countByCategory[i].second);
            }
            // The header counts activities by what the source calls them (memcpy and memset records); the table
            // by Strobe's classification, which also files copy and fill kernels under memcpy and memset.
            uint64_t copies = 0, fills = 0;
            for (const auto& [cat, n] : r.countByCategory) {
                if (core::toString(cat) == "memcpy") copies = n;
                if (core::toString(cat) == "memset") fills = n;
            }
            if (copies != r.memcpyCount || fills != r.memsetCount)
                fmt::format_to(out,
                               "    (memcpy {} and memset {} here, {} and {} above: the table also files copy and fill "
                               "kernels under them; the counts above are the source's memcpy and memset records)\n",
                               copies, fills, r.memcpyCount, r.memsetCount);
        }
        if (!r.topKernels.empty()) {
            fmt::format_to(out, "  Top kernels by total time (share of kernel time):\n");
            for (const auto& k : r.topKernels)
                fmt::format_to(out, "    {:>14}  {:>6}  {:>6}x  {:<14} {}\n", formatDuration(k.totalNs),
                               percentOf(k.totalNs, r.kernelTimeNs), k.count, core::toString(k.category),
                               shortName(k.name));
        }
        if (!r.eventsByCategory.empty()) {
            std::string cats;
            for (const auto& [cat, n] : r.eventsByCategory) {
                if (!cats.empty()) cats += ", ";
                cats += fmt::format("{} {}", cat.empty() ? std::string("(no cat)") : cat, n);
            }
            fmt::format_to(out, "  {:<16}{}\n", "Raw categories", cats);
        }
        for (const auto& w : r.warnings) fmt::format_to(out, "  warning: {}\n", w);
    }
    if (!run.warnings.empty()) {
        fmt::format_to(out, "\nRun warnings:\n");
        for (const auto& w : run.warnings) fmt::format_to(out, "  {}\n", w);
    }
    return text;
}

std::string summaryJson(const RunSummary& run, const core::Dataset& ds, const core::RunEntry* entry) {
    std::string j;
    j.reserve(4096);
    auto list = [&](const std::vector<std::string>& v) {
        j += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) j += ", ";
            j += jsonQuote(v[i]);
        }
        j += ']';
    };
    int worldSize = -1;
    for (const auto& r : run.ranks)
        if (r.worldSize > 0) worldSize = r.worldSize;
    j += fmt::format("{{\n  \"strobe_version\": {},\n  \"inputs\": ", jsonQuote(STROBE_VERSION));
    list(ds.sources);
    j += ",\n  \"sources\": " + sourcesJson(ds);
    if (entry) {
        std::string params, facts;
        for (const auto& [k, v] : entry->parameters) {
            params += (params.empty() ? "" : ", ") + jsonQuote(k) + ": ";
            if (const auto* text = std::get_if<std::string>(&v)) params += jsonQuote(*text);
            else params += core::runValueText(v);
        }
        for (const auto& [name, value] : core::runFacts(*entry))
            facts += (facts.empty() ? "" : ", ") + jsonQuote(name) + ": " + jsonQuote(value);
        j += fmt::format(",\n  \"run\": {{\"parameters\": {{{}}}, \"repeat\": {}, \"manifest\": {}, \"facts\": {{{}}}}}",
                         params, entry->manifest || entry->repeat ? std::to_string(entry->repeat) : "null",
                         entry->manifest ? jsonQuote(core::findRunManifest(entry->path())) : "null", facts);
    }
    j += fmt::format(",\n  \"rank_count\": {},\n  \"world_size\": {},\n  \"warnings\": ", run.ranks.size(),
                     worldSize > 0 ? fmt::format("{}", worldSize) : "null");
    list(run.warnings);
    // Host telemetry (samplers): the host's, never a rank (Dataset::hosts).
    j += ",\n  \"host_telemetry\": [";
    for (size_t hi = 0; hi < ds.hosts.size(); ++hi) {
        const core::HostTelemetry& h = ds.hosts[hi];
        std::vector<std::string> paths;
        uint64_t samples = 0;
        for (const auto& s : h.sources) {
            paths.push_back(s->path.empty() ? s->info.path : s->path);
            samples += s->samples.size();
        }
        j += fmt::format("{}{{\"host\": {}, \"samples\": {}, \"sources\": ", hi ? ", " : "",
                         h.host.empty() ? std::string("null") : jsonQuote(h.host), samples);
        list(paths);
        j += '}';
    }
    j += ']';
    j += ",\n  \"ranks\": [";
    for (size_t ri = 0; ri < run.ranks.size(); ++ri) {
        const RankSummary& r = run.ranks[ri];
        j += ri ? ",\n    {" : "\n    {";
        j += fmt::format("\"rank\": {}, \"world_size\": {}, \"rank_source\": \"{}\", \"path\": {},\n", r.rank,
                         r.worldSize > 0 ? fmt::format("{}", r.worldSize) : "null", rankSourceName(r.rankSource),
                         jsonQuote(r.path));
        j += fmt::format("      \"platform\": {}, \"gpu_name\": {}, \"gpu_count\": {}, \"cpu_only\": {},\n",
                         jsonQuote(core::toString(r.platform)), r.gpuCount == 0 ? "null" : jsonQuote(r.gpuName),
                         r.gpuCount, r.cpuOnly);
        j += fmt::format("      \"events\": {}, \"skipped_events\": {}, \"truncated\": {}, \"from_cache\": {}, "
                         "\"from_summary\": {},\n",
                         r.events, r.skippedEvents, r.truncated, r.fromCache, r.fromSummary);
        j += "      \"events_by_category\": {";
        for (size_t i = 0; i < r.eventsByCategory.size(); ++i)
            j += fmt::format("{}{}: {}", i ? ", " : "", jsonQuote(r.eventsByCategory[i].first),
                             r.eventsByCategory[i].second);
        j += "},\n";
        j += fmt::format("      \"kernels\": {{\"count\": {}, \"total_ns\": {}}},\n", r.kernelCount, r.kernelTimeNs);
        j += fmt::format("      \"memcpy\": {{\"count\": {}, \"total_ns\": {}}},\n", r.memcpyCount, r.memcpyTimeNs);
        j += fmt::format("      \"memset\": {{\"count\": {}, \"total_ns\": {}}},\n", r.memsetCount, r.memsetTimeNs);
        j += fmt::format("      \"span\": {{\"start_ns\": {}, \"end_ns\": {}, \"duration_ns\": {}}},\n", r.spanStart,
                         r.spanEnd, r.spanNs());
        j += "      \"steps\": [";
        for (size_t i = 0; i < r.stepSpans.size(); ++i)
            j += fmt::format("{}{{\"number\": {}, \"start_ns\": {}, \"end_ns\": {}}}", i ? ", " : "",
                             r.stepSpans[i].number, r.stepSpans[i].startNs, r.stepSpans[i].endNs);
        j += "],\n      \"time_by_category\": {";
        for (size_t i = 0; i < r.timeByCategory.size(); ++i)
            j += fmt::format("{}\"{}\": {{\"count\": {}, \"total_ns\": {}}}", i ? ", " : "",
                             core::toString(r.timeByCategory[i].first), r.countByCategory[i].second,
                             r.timeByCategory[i].second);
        j += "},\n      \"top_kernels\": [";
        for (size_t i = 0; i < r.topKernels.size(); ++i) {
            const auto& k = r.topKernels[i];
            j += fmt::format(
                "{}\n        {{\"name\": {}, \"category\": \"{}\", \"count\": {}, \"total_ns\": {}, "
                "\"min_ns\": {}, \"max_ns\": {}}}",
                i ? "," : "", jsonQuote(k.name), core::toString(k.category), k.count, k.totalNs, k.minNs, k.maxNs);
        }
        j += r.topKernels.empty() ? "],\n      \"warnings\": " : "\n      ],\n      \"warnings\": ";
        list(r.warnings);
        j += "}";
    }
    j += run.ranks.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return j;
}

namespace {

// Loads the sources the plan could not read from summaries, makes their summaries again (when the load cache is
// written) and prints the whole run. Returns the exit code.
int summaryOfConvertedRun(const ArgParser& p, SummaryPlan plan, const core::RunLoadOptions& options, size_t top) {
    const uint64_t key = plan.optionsKey;
    auto empty = std::make_shared<core::Dataset>();
    empty->sources = p.positionals();
    core::DatasetPtr ds = empty;  // the loaded ranks' (its Sources section), else none
    RunSummary run;
    bool failed = false;
    if (!plan.toLoad.empty()) {
        std::vector<core::SourceStamp> stamps;
        for (const auto& source : plan.toLoad) {
            auto stamp = core::LoadCache::stamp(source);
            stamps.push_back(stamp ? *stamp : core::SourceStamp{});
        }
        core::RunLoadOptions partial = options;
        partial.wholeRun = false;
        auto loaded = loadRunAsJob(plan.toLoad, partial);
        if (!loaded) {
            // Every source to load failed: the ranks read from summaries are still shown, and the exit is 3.
            fmt::print(stderr, "strobe-cli summary: {}\n", loaded.error().toString());
            if (plan.fromSummary.empty()) return kExitBadInput;
            failed = true;
        } else {
            for (size_t i = 0; i < plan.toLoad.size(); ++i)
                if (!stamps[i].absolutePath.empty())
                    if (auto st = writeSourceSummaries(**loaded, plan.toLoad[i], stamps[i], options.cacheDir, key); !st)
                        fmt::print(stderr, "strobe-cli summary: warning: {}\n", st.error().toString());
            run = core::summarizeRun(**loaded, top);
            failed = reportLoadDiagnostics("summary", **loaded);
            ds = *loaded;
        }
    }
    for (core::StoredRankSummary& stored : plan.fromSummary) {
        RankSummary r = std::move(stored.rank);
        if (r.topKernels.size() > top) r.topKernels.resize(top);
        r.fromSummary = true;
        run.ranks.push_back(std::move(r));
    }
    std::stable_sort(run.ranks.begin(), run.ranks.end(), [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    const std::string doc = p.get(kJsonFlag) ? summaryJson(run, *ds) : summaryText(run, *ds);
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fflush(stdout);
    return failed ? kExitBadInput : kExitOk;
}

int runSummary(const std::vector<std::string>& args) {
    ArgParser p("summary", {kJsonFlag, kTop, kNoCacheFlag, kClockOffset, kSummaryCacheDir});
    if (!p.parse(args)) return usageError("summary", p.error());
    const long long top = p.get(kTop);
    if (p.positionals().empty()) return usageError("summary", "no trace file or directory given");

    // Name a path that does not exist before loading anything (the loader would too, less directly).
    for (const auto& path : p.positionals()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            fmt::print(stderr, "strobe-cli summary: {}: no such file or directory\n", path);
            return kExitBadInput;
        }
    }

    core::RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    options.cacheDir = p.get(kSummaryCacheDir);
    options.sources.hasClockOffset = p.has(kClockOffset);
    options.sources.clockOffsetNs = p.get(kClockOffset);
    logToStderr();
    // A converted run reads its ranks' summaries (those hold the top 10 kernels; the cache and the default clocks).
    if (options.useCache && !p.has(kClockOffset) && top <= 10) {
        if (auto plan = planFromSummaries(p.positionals(), options.cacheDir, "summary")) {
            options.cacheDir = plan->dir;
            return summaryOfConvertedRun(p, std::move(*plan), options, static_cast<size_t>(top));
        }
    }
    auto loaded = loadRunAsJob(p.positionals(), options);
    if (!loaded) {
        fmt::print(stderr, "strobe-cli summary: {}\n", loaded.error().toString());
        return kExitBadInput;
    }
    const core::Dataset& ds = **loaded;
    if (ds.ranks.empty() && ds.hosts.empty()) {
        fmt::print(stderr, "strobe-cli summary: no traces found in {}\n", fmt::join(p.positionals(), ", "));
        return kExitBadInput;
    }
    // The run as a run: its directory's manifest (parameters, tools, host, clocks), when it lies in one.
    core::RunEntry entry{fmt::format("{}", fmt::join(p.positionals(), " ")), *loaded, {}, p.positionals()};
    if (core::Status manifest = core::attachRunManifest(entry); !manifest)
        fmt::print(stderr, "strobe-cli summary: the run manifest is not used: {}\n", manifest.error().toString());
    const RunSummary run = core::summarizeRun(ds, static_cast<size_t>(top));
    const std::string doc = p.get(kJsonFlag) ? summaryJson(run, ds, &entry) : summaryText(run, ds, &entry);
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fflush(stdout);

    // A file that failed to load (while others loaded) is a run-level error: shown, and exit 3.
    return reportLoadDiagnostics("summary", ds) ? kExitBadInput : kExitOk;
}

const CommandRegistrar kSummaryRegistrar(CliCommand{
    "summary", "per-rank summary of a run: platform, GPU, kernels, span, steps, top kernels", kSummaryHelp,
    runSummary});

}  // namespace

}  // namespace strobe::app
