// strobe-cli plots [--json]: the registered plots and their parameter specs.
#ifdef STROBE_HAVE_PLOTS
#include <cstdio>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "plots/plot_registry.h"

namespace strobe::app {
namespace {

int runPlots(const std::vector<std::string>& args) {
    ArgParser p("plots", {kJsonFlag});
    if (!p.parse(args)) return usageError("plots", p.error());
    if (!p.positionals().empty()) return usageError("plots", fmt::format("unknown argument '{}'", p.positionals()[0]));
    const bool json = p.get(kJsonFlag);
    const plots::RunSet noRuns;
    auto all = plots::PlotRegistry::instance().plots();
    if (json) {
        QJsonArray list;
        for (const auto* p : all) {
            QJsonObject o;
            o["id"] = QString::fromStdString(p->id());
            o["title"] = QString::fromStdString(p->title());
            o["description"] = QString::fromStdString(p->description());
            o["timeline"] = p->isTimeline();
            QJsonArray params;
            for (const auto& s : p->parameters(noRuns)) params.append(core::specToJson(s));
            o["parameters"] = params;
            list.append(o);
        }
        QJsonObject root;
        root["plots"] = list;
        fmt::print("{}", QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString());
        return kExitOk;
    }
    for (const auto* p : all) {
        fmt::print("{}  —  {}\n    {}\n", p->id(), p->title(), p->description());
        for (const auto& s : p->parameters(noRuns)) {
            std::string extra;
            if ((s.type == core::ParamType::Int || s.type == core::ParamType::Double) && s.hasBounds())
                extra = fmt::format(" [{}..{}]", core::valueToString(s, s.type == core::ParamType::Int
                                                                             ? core::ParamValue((long long)s.min)
                                                                             : core::ParamValue(s.min)),
                                    core::valueToString(s, s.type == core::ParamType::Int
                                                                ? core::ParamValue((long long)s.max)
                                                                : core::ParamValue(s.max)));
            if (s.type == core::ParamType::Enum) {
                extra = " {";
                for (size_t i = 0; i < s.choices.size(); ++i) extra += (i ? "|" : "") + s.choices[i];
                extra += "}";
            }
            fmt::print("    {:<18} {:<10} default={}{}{}  {}\n", s.key, core::toString(s.type),
                       core::valueToString(s, s.defaultValue), extra, s.affectsPrepare ? "" : " (draw)", s.label);
        }
        fmt::print("\n");
    }
    return kExitOk;
}

const CommandRegistrar regPlots{CliCommand{
    "plots", "List the plots and their parameters",
    "Usage: strobe-cli plots [--json]\n\n"
    "Lists every plot with its parameters (key, type, default, bounds or choices). Parameters marked (draw) only\n"
    "change the drawing; the others re-prepare the data. --json prints\n"
    "{\"plots\": [{\"id\",\"title\",\"description\",\"parameters\": [{\"key\",\"label\",\"type\",\"default\",\n"
    "\"affectsPrepare\", ...}]}]}.",
    runPlots}};

}  // namespace
}  // namespace strobe::app
#endif
