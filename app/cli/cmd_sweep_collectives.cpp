// strobe-cli sweep collectives: per configuration of a sweep and collective type, the collectives' count, message
// size, latency, algorithm and bus bandwidth and skew across ranks (core/analysis/collectives.h says how each is
// measured). cmd_sweep.cpp discovers and loads the runs and calls runSweepCollectives.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/analysis/collectives.h"

namespace strobe::app {

namespace {

std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }
std::string optNumber(const std::optional<double>& v) { return v ? number(*v) : "null"; }

std::string rowJson(const core::CollectiveSweepRow& r) {
    return fmt::format(
        "{{\"config\": {}, \"parameters\": {}, \"collective\": {}, \"count\": {}, \"bytes\": {}, "
        "\"latency_mean_ns\": {}, \"latency_p50_ns\": {}, \"latency_p99_ns\": {}, \"algbw_gbps\": {}, "
        "\"busbw_gbps\": {}, \"start_skew_p50_ns\": {}, \"start_skew_max_ns\": {}, \"wait_mean_ns\": {}}}",
        jsonQuote(r.config), jsonStringMap(r.parameters), jsonQuote(r.collective), r.count, optNumber(r.bytes),
        number(r.latencyMeanNs), number(r.latencyP50Ns), number(r.latencyP99Ns), optNumber(r.algbwGbps),
        optNumber(r.busbwGbps), number(r.startSkewP50Ns), number(r.startSkewMaxNs), number(r.waitMeanNs));
}

}  // namespace

// Declared here and in cmd_sweep.cpp, which calls it.
int runSweepCollectives(const core::RunSet& runs, const std::vector<std::string>& discovery,
                        int skipSteps, bool json);

int runSweepCollectives(const core::RunSet& runs, const std::vector<std::string>& discovery,
                        int skipSteps, bool json) {
    core::CollectiveSweep c = core::collectivesBySweep(runs, skipSteps);
    std::vector<std::string> messages = discovery;
    messages.insert(messages.end(), c.messages.begin(), c.messages.end());
    messages.push_back("latency: the collective's kernel duration on the rank that arrived last (the shortest "
                       "kernel among its ranks); busbw: nccl-tests' factors (all_reduce 2(n-1)/n; all_gather, "
                       "reduce_scatter, all_to_all (n-1)/n; others 1)");
    if (json) {
        std::string msgs, rows;
        for (const auto& m : messages) msgs += (msgs.empty() ? "" : ", ") + jsonQuote(m);
        for (const auto& r : c.rows) rows += (rows.empty() ? "\n  " : ",\n  ") + rowJson(r);
        fmt::print("{{\"schema\": 1, \"method\": {}, \"confidence\": null, \"baseline\": null, \"messages\": [{}], "
                   "\"rows\": [{}]}}\n",
                   jsonQuote("collectives matched across ranks by process group, sequence and kernel name"), msgs,
                   rows.empty() ? "" : rows + "\n");
        return kExitOk;
    }
    for (const auto& m : messages) fmt::print("# {}\n", m);
    std::vector<std::vector<std::string>> table{{"config", "collective", "count", "bytes", "lat_mean_us", "lat_p50_us",
                                                 "lat_p99_us", "algbw_GB/s", "busbw_GB/s", "skew_p50_us",
                                                 "skew_max_us", "wait_mean_us"}};
    auto us = [](double ns) { return fmt::format("{:.3f}", ns / 1e3); };
    auto opt = [](const std::optional<double>& v, const char* f) {
        return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
    };
    for (const auto& r : c.rows) {
        const std::string params = core::parametersText(r.parameters, ",");
        table.push_back({params.empty() ? (r.config.empty() ? "-" : r.config) : params, r.collective, std::to_string(r.count),
                         opt(r.bytes, "{:.0f}"), us(r.latencyMeanNs), us(r.latencyP50Ns), us(r.latencyP99Ns),
                         opt(r.algbwGbps, "{:.3f}"), opt(r.busbwGbps, "{:.3f}"), us(r.startSkewP50Ns),
                         us(r.startSkewMaxNs), us(r.waitMeanNs)});
    }
    printAlignedTable(table);
    return kExitOk;
}

}  // namespace strobe::app
