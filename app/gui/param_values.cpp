#include "app/gui/param_values.h"

#include <cmath>

#include <QSettings>

#include "plots/timeline_view.h"

namespace strobe::app {

namespace {
QString settingsGroup(const std::string& plotId) {
    return QStringLiteral("params/") + QString::fromStdString(plotId);
}
}  // namespace

plots::ParamValues sanitizeValues(const std::vector<plots::ParamSpec>& specs, const plots::ParamValues& values) {
    plots::ParamValues out;
    for (const auto& spec : specs) {
        out[spec.key] = spec.defaultValue;
        auto it = values.find(spec.key);
        if (it == values.end()) continue;
        plots::ParamValue v = it->second;
        if (spec.type == plots::ParamType::Double) {
            if (auto i = std::get_if<long long>(&v)) v = static_cast<double>(*i);
        } else if (spec.type == plots::ParamType::Int) {
            if (auto d = std::get_if<double>(&v); d && std::isfinite(*d) && *d == std::floor(*d))
                v = static_cast<long long>(*d);
        }
        if (plots::validate(spec, v).ok()) out[spec.key] = std::move(v);
    }
    return out;
}

plots::ParamValues loadPersistedValues(const std::string& plotId, const std::vector<plots::ParamSpec>& specs) {
    QSettings settings;
    settings.beginGroup(settingsGroup(plotId));
    plots::ParamValues values;
    for (const auto& spec : specs) {
        const QString key = QString::fromStdString(spec.key);
        if (!settings.contains(key)) continue;
        auto v = plots::valueFromString(spec, settings.value(key).toString().toStdString());
        if (v) values[spec.key] = v.value();
    }
    settings.endGroup();
    return sanitizeValues(specs, values);
}

void persistValue(const std::string& plotId, const plots::ParamSpec& spec, const plots::ParamValue& value) {
    for (const auto& k : viewStateKeys())
        if (k == spec.key) return;  // a zoom is not a preference
    QSettings settings;
    settings.beginGroup(settingsGroup(plotId));
    const QString key = QString::fromStdString(spec.key);
    if (value == spec.defaultValue) settings.remove(key);
    else settings.setValue(key, QString::fromStdString(plots::valueToString(spec, value)));
    settings.endGroup();
}

void forgetPersistedValues(const std::string& plotId) {
    QSettings settings;
    settings.remove(settingsGroup(plotId));
}

const std::vector<std::string>& viewStateKeys() {
    static const std::vector<std::string> keys{plots::kViewStartKey, plots::kViewEndKey, plots::kLaneScrollKey};
    return keys;
}

QString displayText(const plots::ParamSpec& spec, const plots::ParamValue& value) {
    return QString::fromStdString(plots::valueToString(spec, value));
}

}  // namespace strobe::app
