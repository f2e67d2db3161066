// strobe-cli report (issue 30): the one-run report on the bundled DLRM sample holds the findings strobe-cli advise
// gives (same rule ids in the same order, same ms_per_step text; advise's own figures are checked against the Python
// oracle tests/data/expected/findings.py in advise_cli_test), the run's facts (8 ranks, Tesla V100-SXM2-32GB), is
// self-contained (no script, no http(s) src or href) and opens in Debian's chromium, headless; the Markdown form has
// the same findings table and its pictures beside it; usage errors and unreadable input.
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_capture.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace {

const std::string kReportDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

struct AdviseRow {
    std::string rule, severity, ms;
};

// advise --json on the sample: each finding's rule, severity and ms_per_step as the report prints it (3 decimals).
std::vector<AdviseRow> adviseRows() {
    const auto r = strobe::test::runCli("advise", {kReportDlrm, "--json", "--no-cache"});
    EXPECT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    EXPECT_FALSE(p.parse(r.out).get(doc)) << r.out;
    std::vector<AdviseRow> rows;
    for (auto f : doc["findings"].get_array())
        rows.push_back({std::string(f["rule"].get_string().value_unsafe()),
                        std::string(f["severity"].get_string().value_unsafe()),
                        fmt::format("{:.3f}", f["ms_per_step"].get_double().value_unsafe())});
    return rows;
}

size_t countIn(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(RunReportCli, HtmlHoldsFactsAndAdviseFindingsAndOpensInChromium) {
    strobe::test::TempDir dir("strobe-run-report");
    const auto html = dir.path() / "dlrm.html";
    const auto r = strobe::test::runCli("report", {kReportDlrm, "--no-cache", "-o", html.string(), "--title", "DLRM"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string page = strobe::test::readAll(html);
    EXPECT_NE(page.find("<h1>DLRM</h1>"), std::string::npos);
    EXPECT_NE(page.find("<td>Ranks</td><td>8</td>"), std::string::npos);
    EXPECT_NE(page.find("Tesla V100-SXM2-32GB"), std::string::npos);
    // The findings table: advise's rows in advise's order.
    const auto rows = adviseRows();
    ASSERT_FALSE(rows.empty());
    size_t at = page.find("<h2>Findings</h2>");
    ASSERT_NE(at, std::string::npos);
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string row = fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", i + 1, rows[i].rule,
                                            rows[i].severity, rows[i].ms);
        const size_t next = page.find(row, at);
        EXPECT_NE(next, std::string::npos) << row;
        if (next != std::string::npos) at = next;
        EXPECT_NE(page.find(fmt::format("{}. {} [{}]", i + 1, rows[i].rule, rows[i].severity)), std::string::npos);
    }
    // Self-contained: no script, nothing fetched (the SVG namespace is a name, not a fetch).
    EXPECT_EQ(page.find("<script"), std::string::npos);
    EXPECT_FALSE(std::regex_search(page, std::regex(R"re((src|href)\s*=\s*["']?\s*(https?:)?//)re", std::regex::icase)));
    const size_t svgs = countIn(page, "<svg");
    EXPECT_GE(svgs, rows.size());  // a picture per finding at least

    const char* chromium = "/usr/bin/chromium";
    if (!std::filesystem::exists(chromium)) GTEST_SKIP() << "chromium is not installed (.ci/setup installs it)";
    const auto dom = dir.path() / "dom.html", log = dir.path() / "chromium.log";
    const std::string flags = "--headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --user-data-dir=" +
                              (dir.path() / "profile").string();
    ASSERT_EQ(std::system((std::string(chromium) + " " + flags + " --dump-dom 'file://" + html.string() + "' > '" +
                           dom.string() + "' 2> '" + log.string() + "'")
                              .c_str()),
              0)
        << strobe::test::readAll(log);
    const std::string built = strobe::test::readAll(dom);
    EXPECT_EQ(countIn(built, "<svg"), svgs);
    EXPECT_NE(built.find("Tesla V100-SXM2-32GB"), std::string::npos);
    const std::string console = strobe::test::readAll(log);
    EXPECT_EQ(console.find(":CONSOLE"), std::string::npos) << console;
}

TEST(RunReportCli, MarkdownHasTheSameFindingsTableAndItsPicturesBesideIt) {
    strobe::test::TempDir dir("strobe-run-report-md");
    const auto md = dir.path() / "dlrm.md";
    const auto r = strobe::test::runCli("report", {kReportDlrm, "--no-cache", "-o", md.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string text = strobe::test::readAll(md);
    EXPECT_NE(text.find("| Ranks | 8 |"), std::string::npos);
    EXPECT_NE(text.find("Tesla V100-SXM2-32GB"), std::string::npos);
    EXPECT_NE(text.find("| # | rule | severity | ms/step | share | ranks | critical path |"), std::string::npos);
    const auto rows = adviseRows();
    ASSERT_FALSE(rows.empty());
    for (size_t i = 0; i < rows.size(); ++i)
        EXPECT_NE(text.find(fmt::format("| {} | {} | {} | {} |", i + 1, rows[i].rule, rows[i].severity, rows[i].ms)),
                  std::string::npos)
            << rows[i].rule;
    // Every picture it links lies beside it, relative, as PNG.
    const std::regex image(R"re(!\[[^\]]*\]\(([^)]+)\))re");
    size_t images = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), image); it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1].str();
        EXPECT_EQ(file.find('/'), std::string::npos) << file;
        const std::string bytes = strobe::test::readAll(dir.path() / file);
        EXPECT_EQ(bytes.substr(0, 4), "\x89PNG") << file;
        ++images;
    }
    EXPECT_GE(images, rows.size());
}

TEST(RunReportCli, UsageErrorsAndUnreadableInput) {
    strobe::test::TempDir dir("strobe-run-report-err");
    const auto bad = strobe::test::runCli("report", {kReportDlrm, "-o", (dir.path() / "r.pdf").string()});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("unknown extension '.pdf'"), std::string::npos) << bad.err;
    const auto none = strobe::test::runCli("report", {kReportDlrm});
    EXPECT_EQ(none.code, 2);
    const auto missing = strobe::test::runCli("report", {kReportDlrm + "/nope.json", "-o", (dir.path() / "r.html").string()});
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
    const auto garbage = dir.path() / "garbage.json";
    strobe::test::writeFile(garbage, "hello, not a trace");
    const auto broken = strobe::test::runCli("report", {garbage.string(), "-o", (dir.path() / "r.html").string()});
    EXPECT_EQ(broken.code, 3);
    EXPECT_NE(broken.err.find("garbage.json"), std::string::npos) << broken.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "r.html"));
}

}  // namespace
