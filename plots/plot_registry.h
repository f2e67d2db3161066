#pragma once
// The registry of plot plugins. A builtin plot registers itself from its own .cpp under plots/builtin/:
//
//     STROBE_REGISTER_PLOT(GpuTimelinePlot)
//
// strobe_plots is linked as a whole archive (plots/CMakeLists.txt) so these registrations are never dropped.

#include <memory>
#include <string_view>
#include <vector>

#include "plots/plot.h"

namespace strobe::plots {

class PlotRegistry {
public:
    static PlotRegistry& instance();
    // Takes ownership. A second plot with an id already registered is refused (logged) and returns false.
    bool add(std::unique_ptr<Plot> plot);
    const Plot* find(std::string_view id) const;
    std::vector<const Plot*> plots() const;  // by order(), then id

private:
    std::vector<std::unique_ptr<Plot>> m_plots;
};

struct PlotRegistrar {
    explicit PlotRegistrar(std::unique_ptr<Plot> plot) { PlotRegistry::instance().add(std::move(plot)); }
};

}  // namespace strobe::plots

#define STROBE_REGISTER_PLOT(Type)                                                                    \
    namespace {                                                                                       \
    const ::strobe::plots::PlotRegistrar s_strobePlotRegistrar_##Type{std::make_unique<Type>()};      \
    }
