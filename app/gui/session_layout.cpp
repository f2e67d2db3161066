#include "app/gui/session_layout.h"

#include <climits>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace strobe::app {

namespace {

constexpr std::string_view kLayoutSection = "layout";

core::Error fieldError(const std::string& sourceName, const core::SessionViewField& f, const std::string& message) {
    core::Location where{sourceName};
    where.line = f.line;
    return core::Error(std::move(where), message);
}

// Each reader returns an error message, or empty when the field has the expected type.
std::string readBool(const core::SessionViewField& f, bool& out) {
    if (const auto* b = std::get_if<bool>(&f.value)) {
        out = *b;
        return {};
    }
    return fmt::format("expected true or false for '{}'", f.key);
}

std::string readInt(const core::SessionViewField& f, int& out) {
    const auto* i = std::get_if<long long>(&f.value);
    if (!i) return fmt::format("expected an integer for '{}'", f.key);
    if (*i < INT_MIN || *i > INT_MAX) return fmt::format("'{}' is out of range: {}", f.key, *i);
    out = static_cast<int>(*i);
    return {};
}

std::string readIntList(const core::SessionViewField& f, std::vector<int>& out) {
    const auto* list = std::get_if<std::vector<long long>>(&f.value);
    if (!list) return fmt::format("expected a list of integers for '{}'", f.key);
    out.clear();
    for (long long v : *list) {
        if (v < INT_MIN || v > INT_MAX) return fmt::format("'{}' is out of range: {}", f.key, v);
        out.push_back(static_cast<int>(v));
    }
    return {};
}

std::string readText(const core::SessionViewField& f, std::string& out) {
    if (const auto* s = std::get_if<std::string>(&f.value)) {
        out = *s;
        return {};
    }
    return fmt::format("expected a text value for '{}'", f.key);
}

std::string readLayoutField(const core::SessionViewField& f, SessionLayout& l) {
    if (f.key == "split") return readBool(f, l.split);
    if (f.key == "split_vertical") return readBool(f, l.splitVertical);
    if (f.key == "split_sizes") return readIntList(f, l.splitSizes);
    if (f.key == "current_tab") return readIntList(f, l.currentTab);
    if (f.key == "sync_time_axes") return readBool(f, l.syncTimeAxes);
    if (f.key == "window_geometry") return readText(f, l.windowGeometry);
    if (f.key == "window_state") return readText(f, l.windowState);
    return {};  // a key of a newer Strobe: ignored
}

std::string readPlacementField(const core::SessionViewField& f, PlotPlacement& p) {
    if (f.key == "pane") {
        if (auto why = readInt(f, p.pane); !why.empty()) return why;
        if (p.pane != 0 && p.pane != 1) return "'pane' must be 0 or 1";
        return {};
    }
    if (f.key == "title") return readText(f, p.title);
    return {};
}

void setField(core::SessionViewFields& fields, const std::string& key, core::SessionViewValue value) {
    for (auto& f : fields) {
        if (f.key == key) {
            f.value = std::move(value);
            return;
        }
    }
    fields.push_back({key, std::move(value)});
}

void removeField(core::SessionViewFields& fields, std::string_view key) {
    std::erase_if(fields, [&](const core::SessionViewField& f) { return f.key == key; });
}

std::vector<long long> toLongs(const std::vector<int>& v) { return {v.begin(), v.end()}; }

}  // namespace

void storeLayout(core::Session& session, const SessionLayout& layout) {
    for (size_t i = 0; i < session.plots.size(); ++i) {
        const PlotPlacement placement = i < layout.plots.size() ? layout.plots[i] : PlotPlacement{};
        auto& view = session.plots[i].view;
        setField(view, "pane", static_cast<long long>(placement.pane));
        if (placement.title.empty())
            removeField(view, "title");
        else
            setField(view, "title", placement.title);
    }
    core::SessionViewFields fields;
    fields.push_back({"split", layout.split});
    fields.push_back({"split_vertical", layout.splitVertical});
    fields.push_back({"split_sizes", toLongs(layout.splitSizes)});
    fields.push_back({"current_tab", toLongs(layout.currentTab)});
    fields.push_back({"sync_time_axes", layout.syncTimeAxes});
    fields.push_back({"window_geometry", layout.windowGeometry});
    fields.push_back({"window_state", layout.windowState});
    std::erase_if(session.sections, [](const core::SessionSection& s) { return s.name == kLayoutSection; });
    session.sections.push_back({std::string(kLayoutSection), std::move(fields)});
}

core::Result<SessionLayout> readLayout(const core::Session& session, const std::string& sourceName) {
    SessionLayout layout;
    for (const auto& section : session.sections) {
        if (section.name != kLayoutSection) continue;
        for (const auto& f : section.fields)
            if (auto why = readLayoutField(f, layout); !why.empty()) return fieldError(sourceName, f, why);
    }
    for (const auto& plot : session.plots) {
        PlotPlacement placement;
        for (const auto& f : plot.view)
            if (auto why = readPlacementField(f, placement); !why.empty()) return fieldError(sourceName, f, why);
        layout.plots.push_back(std::move(placement));
    }
    return layout;
}

}  // namespace strobe::app
