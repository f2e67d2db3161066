#pragma once
// The parameter panel: one editor per ParamSpec of the current plot, grouped into "Data" (re-prepares in the
// background) and "Drawing" (redraws at once), each with a reset-to-default button, plus "Reset all".

#include <map>
#include <string>
#include <vector>

#include <QWidget>

#include "core/params/param_spec.h"

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace strobe::app {

class ParamEditor;

class ParamPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParamPanel(QWidget* parent = nullptr);

    // Rebuilds the editors for `specs` showing `values` (missing keys show their default). Keys in
    // `hiddenKeys` get no editor (the timeline's view state is changed with the mouse).
    void setSpecs(const QString& title, const std::vector<core::ParamSpec>& specs, const core::ParamValues& values,
                  const std::vector<int>& ranks, const std::vector<std::string>& hiddenKeys = {});
    // Shows new values without rebuilding (and without emitting).
    void showValues(const core::ParamValues& values);
    void clear();

    ParamEditor* editor(const std::string& key) const;
    const std::vector<core::ParamSpec>& specs() const { return m_specs; }

Q_SIGNALS:
    void valueEdited(const std::string& key, const core::ParamValue& value);
    void resetAllRequested();

private:
    QLabel* m_title = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_bodyLayout = nullptr;
    QPushButton* m_resetAll = nullptr;
    std::vector<core::ParamSpec> m_specs;
    std::map<std::string, ParamEditor*> m_editors;
};

}  // namespace strobe::app
