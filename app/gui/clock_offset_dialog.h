#pragma once
// Run ▸ Clock offset… (the run's context menu in the Runs dock): the GUI's --clock-offset, per run. Lists each of the
// run's sources with its clock (realtime or not, anchored or not, by what), takes a signed duration ("250", "30us",
// "-3600s"; the Duration parameter's text form) and offers the offset of this machine's time zone for sources in
// local wall time (nvidia-smi's timestamps carry no zone). Accepting sets the offset on the run and reloads it.

#include <cstdint>
#include <optional>

#include <QDialog>

#include "core/params/param_spec.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace strobe::app {

struct RunRecord;

// The offset as a Duration parameter (core ParamSpec): its text form ("250", "30us", "-3600s") is what the dialog and
// `strobe --clock-offset` take.
const core::ParamSpec& clockOffsetSpec();

class ClockOffsetDialog : public QDialog {
    Q_OBJECT
public:
    explicit ClockOffsetDialog(const RunRecord& run, QWidget* parent = nullptr);

    // After exec() returned Accepted: the offset to set (nullopt: remove the run's offset).
    std::optional<int64_t> offset() const { return m_offset; }
    QLineEdit* field() const { return m_field; }        // tests
    QPushButton* removeButton() const { return m_remove; }
    QLabel* problem() const { return m_problem; }
    // OK: an empty field removes the offset; text that is not a duration is shown as the problem, the dialog stays.
    void accept() override;

private:
    QLineEdit* m_field = nullptr;
    QLabel* m_problem = nullptr;
    QPushButton* m_remove = nullptr;
    std::optional<int64_t> m_offset;
};

}  // namespace strobe::app
