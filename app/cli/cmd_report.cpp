// strobe-cli report: the one-run report (plots/report/run_report.h) as one self-contained HTML page or as Markdown.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/cli/command.h"
#include "core/analysis/context.h"
#include "core/analysis/findings.h"
#include "core/engine/run_loader.h"
#include "core/model/run_set.h"
#ifdef STROBE_HAVE_PLOTS
#include "plots/render.h"
#include "plots/report/run_report.h"
#endif

namespace strobe::app {

namespace {

constexpr const char* kRunReportHelp =
    "Usage: strobe-cli report PATH... -o FILE.html|FILE.md [--title T] [--no-critical-path] [--no-cache]\n"
    "\n"
    "One page on one run (trace files or directories, one Kineto trace per rank): its facts (platform, GPUs,\n"
    "ranks, steps; from the run's manifest.yaml when there is one: command, environment differences, tools, host),\n"
    "step time and its spread (median, p5, p95 over every step of every rank), the findings of strobe-cli advise,\n"
    "each with its evidence, what to try and the plot that shows it, the temporal breakdown, the top kernels and\n"
    "operators, and MFU where the recorded shapes allow.\n"
    "\n"
    "  .html  self-contained: inline CSS and SVG, no script, nothing fetched\n"
    "  .md    the same content as Markdown tables, for issues and reviews; its pictures are PNG files written\n"
    "         beside it (FILE-NAME.png) and linked relatively\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   the report to write (.html, .htm or .md)\n"
    "  --title T           the page's title (default: Run report)\n"
    "  --no-critical-path  do not mark findings on/off the critical path (faster on big runs)\n"
    "  --no-cache          neither read nor write the on-disk load cache\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit codes: 0 ok, 1 cannot write, 2 usage error, 3 unreadable input.";

const core::PathParam kRunReportOutput{"output", "Output file", "The report to write (.html or .md)", ""};
const core::StringParam kRunReportTitle{"title", "Title", "The report's title", "Run report"};
const core::BoolParam kRunReportNoCriticalPath{"no-critical-path", "No critical path",
                                               "Do not mark findings on or off the critical path", false};

bool writeReportFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    if (f) f << text;
    if (!f) fmt::print(stderr, "strobe-cli report: cannot write {}\n", path.string());
    return static_cast<bool>(f);
}

int runRunReport(const std::vector<std::string>& args) {
    ArgParser p("report", {{kRunReportOutput, 'o'}, kRunReportTitle, kNoCacheFlag, kRunReportNoCriticalPath});
    if (!p.parse(args)) return usageError("report", p.error());
    if (p.positionals().empty()) return usageError("report", "expected at least one trace file or directory");
    const std::filesystem::path out = p.get(kRunReportOutput);
    if (out.empty()) return usageError("report", "-o FILE.html or -o FILE.md is required");
    std::string ext = out.extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".html" && ext != ".htm" && ext != ".md")
        return usageError("report", fmt::format("-o {}: unknown extension '{}' (use .html or .md)", out.string(), ext));
#ifdef STROBE_HAVE_PLOTS
    core::RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    std::unique_ptr<QGuiApplication> app = plots::makeHeadlessGuiApplication();  // fonts for the pictures
    const CommandRun run = loadCommandRun("report", p.positionals(), options);
    if (!run.data) return run.exit;
    const bool loadFailed = run.loadFailed;
    const core::DatasetPtr loaded = run.data;
    core::RunEntry entry{fmt::format("{}", fmt::join(p.positionals(), " ")), loaded, {}, p.positionals()};
    if (core::Status manifest = core::attachRunManifest(entry); !manifest)
        fmt::print(stderr, "strobe-cli report: the run manifest is not used: {}\n", manifest.error().toString());
    auto ctx = core::AnalysisContext::of(loaded);
    core::FindingsOptions fo;
    fo.criticalPath = !p.get(kRunReportNoCriticalPath);
    auto findings = core::computeFindings(*ctx, fo);
    if (!findings) {
        fmt::print(stderr, "strobe-cli report: {}\n", findings.error().message);
        return kExitFailure;
    }
    plots::RunReportOptions o;
    o.title = p.get(kRunReportTitle);
    o.format = ext == ".md" ? plots::RunReportFormat::Markdown : plots::RunReportFormat::Html;
    o.imagePrefix = out.stem().string();
    const plots::RunReport report = plots::buildRunReport(entry, findings.value(), o);
    if (!writeReportFile(out, report.text)) return kExitFailure;
    for (const auto& [name, bytes] : report.files)
        if (!writeReportFile(out.parent_path() / name, bytes)) return kExitFailure;
    fmt::print("wrote {}{}\n", out.string(),
               report.files.empty() ? std::string() : fmt::format(" and {} PNG files beside it", report.files.size()));
    return loadFailed ? kExitBadInput : kExitOk;
#else
    fmt::print(stderr, "strobe-cli report: this strobe-cli was built without plots\n");
    return kExitUsage;
#endif
}

const CommandRegistrar kRunReportRegistrar({"report", "One-run report: facts, step time, findings, breakdowns (HTML/Markdown)",
                                            kRunReportHelp, runRunReport});

}  // namespace

}  // namespace strobe::app
