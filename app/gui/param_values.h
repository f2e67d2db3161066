#pragma once
// Helpers between stored parameter values (sessions, QSettings) and a plot's specs.

#include <string>
#include <vector>

#include <QString>

#include "core/params/param_spec.h"

namespace strobe::app {

// Every spec's default, then each value of `values` whose key the specs declare, coerced with core::coerceValue
// (the one rule of the command line, sessions and tool specs). Unknown keys are dropped and an invalid value keeps
// the default, so that a session or setting made with another version of a plot still opens; each invalid value's
// error (naming the key and the value) is appended to `problems` when given.
core::ParamValues sanitizeValues(const std::vector<core::ParamSpec>& specs, const core::ParamValues& values,
                                 std::vector<std::string>* problems = nullptr);

// A value left at its default follows the default as the data changes (a default built from the data, such as the
// timeline's telemetry metrics, computed before the runs had loaded): every value of `values` equal to its key's
// default in `before` becomes that key's default in `after`. Other values are kept as they are.
core::ParamValues followDataDefaults(const std::vector<core::ParamSpec>& before, const std::vector<core::ParamSpec>& after,
                                     core::ParamValues values);

// Values persisted by key (QSettings "params/<plot id>/<key>", string form of core::valueToString).
core::ParamValues loadPersistedValues(const std::string& plotId, const std::vector<core::ParamSpec>& specs);
void persistValue(const std::string& plotId, const core::ParamSpec& spec, const core::ParamValue& value);
void forgetPersistedValues(const std::string& plotId);

// Keys the panel does not show (the timeline view state is changed with the mouse).
const std::vector<std::string>& viewStateKeys();

QString displayText(const core::ParamSpec& spec, const core::ParamValue& value);

}  // namespace strobe::app
