// strobe-cli query: SQL over loaded runs (core/query/sql_query.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/query/sql_query.h"

namespace strobe::app {

namespace {

using namespace strobe::core;

constexpr const char* kQueryHelp =
    "Usage: strobe-cli query PATH... \"SQL\" [--csv FILE | --json] [--max-rows N] [--no-cache]\n"
    "       strobe-cli query --tables\n"
    "\n"
    "Runs one read-only SQL statement (SQLite's dialect) over the runs at PATH... (each PATH is one run: a trace\n"
    "file or a run directory). The tables read the loaded columns in place (the load cache, no copy): kernels,\n"
    "slices, flows, counters, samples, steps, ranks, runs; views: kernel_time_per_step, launch_latency,\n"
    "collective_arrival, collective_skew. `--tables` lists every column. Constraints on run, rank, ts_ns and\n"
    "name are pushed down to the tables. Times are ns on each rank's own clock. Only reading is allowed: one\n"
    "statement, no ATTACH, PRAGMA, CREATE or writes.\n"
    "\n"
    "  --csv FILE      write the rows as CSV to FILE ('-' for stdout)\n"
    "  --json          {\"schema\": 1, \"columns\": [...], \"rows\": [{column: value}], \"messages\": [...]}\n"
    "  --max-rows N    stop after N rows (0: all; the default prints all)\n"
    "  --tables        print the tables, their columns and the views, then exit\n"
    "  --no-cache      neither read nor write the load cache\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error or bad SQL (SQLite's message and the byte offset on stderr), 3 unreadable input.";

const core::PathParam kQueryCsv{"csv", "CSV file", "Write the rows as CSV to this file ('-' for stdout)", ""};
const core::IntParam kQueryMaxRows =
    core::IntParam{"max-rows", "Maximum rows", "Stop after this many rows (0: all)", 0}.bounded(0, 1LL << 40, 1);
const core::BoolParam kQueryTables{"tables", "Tables", "Print the tables and views, then exit", false};

std::string valueText(const QueryValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return {};
    if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
    return std::get<std::string>(v);
}

std::string valueJson(const QueryValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return "null";
    if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? fmt::format("{}", *d) : "null";
    return jsonQuote(std::get<std::string>(v));
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void writeQueryCsv(std::ostream& os, const QueryResult& r) {
    for (size_t i = 0; i < r.columns.size(); ++i) os << (i ? "," : "") << csvField(r.columns[i]);
    os << "\r\n";
    for (const auto& row : r.rows) {
        for (size_t i = 0; i < row.size(); ++i) os << (i ? "," : "") << csvField(valueText(row[i]));
        os << "\r\n";
    }
}

void printQueryJson(const QueryResult& r) {
    std::string out = "{\"schema\": 1, \"columns\": [";
    for (size_t i = 0; i < r.columns.size(); ++i) out += (i ? ", " : "") + jsonQuote(r.columns[i]);
    out += "], \"rows\": [";
    for (size_t k = 0; k < r.rows.size(); ++k) {
        out += k ? ",\n  {" : "\n  {";
        for (size_t i = 0; i < r.columns.size(); ++i)
            out += (i ? ", " : "") + jsonQuote(r.columns[i]) + ": " + valueJson(r.rows[k][i]);
        out += "}";
    }
    out += r.rows.empty() ? "], \"messages\": [" : "\n], \"messages\": [";
    for (size_t i = 0; i < r.messages.size(); ++i) out += (i ? ", " : "") + jsonQuote(r.messages[i]);
    out += "]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
}

void printTables() {
    for (const auto& t : QueryEngine::tables()) {
        fmt::print("{} — {}\n", t.name, t.doc);
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : t.columns) rows.push_back({"  " + c.name, c.type, c.doc});
        printAlignedTable(rows);
        fmt::print("\n");
    }
    for (const auto& v : QueryEngine::views()) fmt::print("{} (view) — {}\n  {}\n\n", v.name, v.doc, v.sql);
}

// Each run's label: the file or directory name, the whole path where two names are the same.
std::vector<std::string> runLabels(const std::vector<std::string>& paths) {
    std::vector<std::string> names;
    std::multiset<std::string> seen;
    for (const auto& p : paths) {
        std::string n = std::filesystem::path(p).filename().string();
        if (n.empty()) n = std::filesystem::path(p).parent_path().filename().string();
        names.push_back(n);
        seen.insert(n);
    }
    for (size_t i = 0; i < names.size(); ++i)
        if (seen.count(names[i]) > 1 || names[i].empty()) names[i] = paths[i];
    return names;
}

int runQuery(const std::vector<std::string>& args) {
    ArgParser p("query", {CliOption(kQueryCsv), CliOption(kJsonFlag), CliOption(kQueryMaxRows), CliOption(kQueryTables),
                          CliOption(kNoCacheFlag)});
    if (!p.parse(args)) return usageError("query", p.error());
    if (p.get(kQueryTables)) {
        printTables();
        return kExitOk;
    }
    if (p.has(kQueryCsv) && p.get(kJsonFlag)) return usageError("query", "--csv and --json exclude each other");
    const auto& pos = p.positionals();
    if (pos.size() < 2) return usageError("query", "give one or more PATHs and then the SQL");
    logToStderr();
    const std::vector<std::string> paths(pos.begin(), pos.end() - 1);
    const std::string sql = pos.back();
    RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    std::vector<std::vector<std::string>> runs;
    for (const auto& path : paths) runs.push_back({path});
    auto loaded = loadRunsAsJobs(runs, options);
    std::vector<QueryRun> queryRuns;
    const auto labels = runLabels(paths);
    for (size_t i = 0; i < loaded.size(); ++i) {
        if (!loaded[i]) {
            fmt::print(stderr, "strobe-cli query: {}\n", loaded[i].error().toString());
            return kExitBadInput;
        }
        if (reportLoadDiagnostics("query", **loaded[i])) return kExitBadInput;
        queryRuns.push_back({labels[i], *loaded[i]});
    }
    auto engine = QueryEngine::open(std::move(queryRuns));
    if (!engine) {
        fmt::print(stderr, "strobe-cli query: {}\n", engine.error().toString());
        return kExitFailure;
    }
    auto result = (*engine)->run(sql, static_cast<size_t>(p.get(kQueryMaxRows)));
    if (!result) {
        const Error& e = result.error();
        if (e.where.byteOffset >= 0)
            fmt::print(stderr, "strobe-cli query: SQL error at byte {}: {}\n  {}\n  {}^\n", e.where.byteOffset, e.message,
                       sql, std::string(static_cast<size_t>(std::min<int64_t>(e.where.byteOffset, 10000)), ' '));
        else fmt::print(stderr, "strobe-cli query: SQL error: {}\n", e.message);
        return kExitUsage;
    }
    if (result->truncated)
        result->messages.push_back(fmt::format("stopped after {} rows (--max-rows)", result->rows.size()));
    if (p.get(kJsonFlag)) {
        printQueryJson(*result);
    } else if (p.has(kQueryCsv)) {
        const std::string file = p.get(kQueryCsv);
        if (file == "-") {
            writeQueryCsv(std::cout, *result);
        } else {
            std::ofstream f(file, std::ios::binary);
            if (!f) {
                fmt::print(stderr, "strobe-cli query: cannot write {}\n", file);
                return kExitFailure;
            }
            writeQueryCsv(f, *result);
        }
    } else {
        std::vector<std::vector<std::string>> rows{result->columns};
        for (const auto& row : result->rows) {
            std::vector<std::string> r;
            for (const auto& v : row) r.push_back(std::holds_alternative<std::monostate>(v) ? "NULL" : valueText(v));
            rows.push_back(std::move(r));
        }
        printAlignedTable(rows);
        for (const auto& m : result->messages) fmt::print(stderr, "{}\n", m);
    }
    return kExitOk;
}

const CommandRegistrar kQueryRegistrar(
    {"query", "SQL over loaded runs: kernels, slices, flows, counters, samples, steps, ranks, runs", kQueryHelp,
     runQuery});

}  // namespace

}  // namespace strobe::app
