#include "app/gui/param_values.h"

#include <QSettings>

#include "plots/timeline_view.h"

namespace strobe::app {

namespace {
QString settingsGroup(const std::string& plotId) {
    return QStringLiteral("params/") + QString::fromStdString(plotId);
}
}  // namespace

core::ParamValues sanitizeValues(const std::vector<core::ParamSpec>& specs, const core::ParamValues& values,
                                 std::vector<std::string>* problems) {
    core::ParamValues out;
    for (const auto& spec : specs) {
        out[spec.key] = spec.defaultValue;
        const core::ParamValue* given = core::findValue(spec, values);  // under its key or a former one
        if (!given) continue;
        auto v = core::coerceValue(spec, *given);
        if (v) out[spec.key] = std::move(v.value());
        else if (problems) problems->push_back(v.error().message);
    }
    return out;
}

core::ParamValues followDataDefaults(const std::vector<core::ParamSpec>& before, const std::vector<core::ParamSpec>& after,
                                     core::ParamValues values) {
    for (const auto& spec : after) {
        const core::ParamSpec* old = core::findSpec(before, spec.key);
        auto it = values.find(spec.key);
        if (old && it != values.end() && it->second == old->defaultValue) it->second = spec.defaultValue;
    }
    return values;
}

core::ParamValues loadPersistedValues(const std::string& plotId, const std::vector<core::ParamSpec>& specs) {
    QSettings settings;
    settings.beginGroup(settingsGroup(plotId));
    core::ParamValues values;
    for (const auto& spec : specs) {
        // The current key, else a former one (a preference saved before the key was renamed).
        QString key = QString::fromStdString(spec.key);
        for (size_t i = 0; !settings.contains(key) && i < spec.formerKeys.size(); ++i)
            key = QString::fromStdString(spec.formerKeys[i]);
        if (!settings.contains(key)) continue;
        values[spec.key] = settings.value(key).toString().toStdString();  // text: sanitizeValues coerces it
    }
    settings.endGroup();
    return sanitizeValues(specs, values);
}

void persistValue(const std::string& plotId, const core::ParamSpec& spec, const core::ParamValue& value) {
    for (const auto& k : viewStateKeys())
        if (k == spec.key) return;  // a zoom is not a preference
    QSettings settings;
    settings.beginGroup(settingsGroup(plotId));
    const QString key = QString::fromStdString(spec.key);
    for (const auto& former : spec.formerKeys) settings.remove(QString::fromStdString(former));  // superseded
    if (value == spec.defaultValue) settings.remove(key);
    else settings.setValue(key, QString::fromStdString(core::valueToString(spec, value)));
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

QString displayText(const core::ParamSpec& spec, const core::ParamValue& value) {
    return QString::fromStdString(core::valueToString(spec, value));
}

}  // namespace strobe::app
