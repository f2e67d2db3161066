#pragma once
// One widget per ParamSpec type: Bool → check box, Int/Double → spin box with bounds and step, Enum → combo box,
// String → line edit, StringList → searchable multi-select, RankSet → rank picker, Regex → line edit that
// validates as you type, Color → colour button. setValue() never emits; a user edit emits edited().

#include <QWidget>

#include "core/params/param_spec.h"

namespace strobe::app {

class ParamEditor : public QWidget {
    Q_OBJECT
public:
    // The editor for `spec`. `ranks` are the rank numbers in the data (RankSet choices when the spec has none).
    static ParamEditor* create(const core::ParamSpec& spec, const std::vector<int>& ranks, QWidget* parent);

    const core::ParamSpec& spec() const { return m_spec; }
    virtual core::ParamValue value() const = 0;
    // Shows `value` (coerced to the spec's type: an integer for a Double spec is accepted). No edited() signal.
    virtual void setValue(const core::ParamValue& value) = 0;
    void resetToDefault();  // emits edited() when the value changes
    // True when the text the user typed is usable (Regex: compiles). Others always true.
    virtual bool isInputValid() const { return true; }

Q_SIGNALS:
    void edited();

protected:
    ParamEditor(core::ParamSpec spec, QWidget* parent);
    void notifyEdited();

private:
    core::ParamSpec m_spec;
};

}  // namespace strobe::app
