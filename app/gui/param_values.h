#pragma once
// Helpers between stored parameter values (sessions, QSettings) and a plot's specs.

#include <string>
#include <vector>

#include <QString>

#include "plots/param_spec.h"

namespace strobe::app {

// Every spec's default, then each value of `values` whose key the specs declare and which is valid for its spec
// (an integer for a Double spec is converted). Unknown keys and invalid values are dropped, never an error: a
// session or setting made with another version of a plot still opens.
plots::ParamValues sanitizeValues(const std::vector<plots::ParamSpec>& specs, const plots::ParamValues& values);

// Values persisted by key (QSettings "params/<plot id>/<key>", string form of plots::valueToString).
plots::ParamValues loadPersistedValues(const std::string& plotId, const std::vector<plots::ParamSpec>& specs);
void persistValue(const std::string& plotId, const plots::ParamSpec& spec, const plots::ParamValue& value);
void forgetPersistedValues(const std::string& plotId);

// Keys the panel does not show (the timeline view state is changed with the mouse).
const std::vector<std::string>& viewStateKeys();

QString displayText(const plots::ParamSpec& spec, const plots::ParamValue& value);

}  // namespace strobe::app
