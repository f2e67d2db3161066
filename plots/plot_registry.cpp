#include "plots/plot_registry.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace strobe::plots {

PlotRegistry& PlotRegistry::instance() {
    static PlotRegistry registry;
    return registry;
}

bool PlotRegistry::add(std::unique_ptr<Plot> plot) {
    if (!plot) return false;
    if (find(plot->id())) {
        spdlog::error("plot '{}' is registered twice; the second one is ignored", plot->id());
        return false;
    }
    m_plots.push_back(std::move(plot));
    return true;
}

const Plot* PlotRegistry::find(std::string_view id) const {
    for (const auto& p : m_plots)
        if (p->id() == id) return p.get();
    return nullptr;
}

std::vector<const Plot*> PlotRegistry::plots() const {
    std::vector<const Plot*> out;
    for (const auto& p : m_plots) out.push_back(p.get());
    std::sort(out.begin(), out.end(), [](const Plot* a, const Plot* b) {
        return a->order() != b->order() ? a->order() < b->order() : a->id() < b->id();
    });
    return out;
}

}  // namespace strobe::plots
