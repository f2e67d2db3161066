#include "app/gui/clock_offset_dialog.h"

#include <cstdlib>

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTime>
#include <QVBoxLayout>

#include "app/gui/run_manager.h"
#include "core/params/param_spec.h"

namespace strobe::app {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// One line per source of the loaded run: its file, format and clock.
QString sourcesHtml(const RunRecord& run) {
    if (!run.dataset) return {};
    QString html = QStringLiteral("<table>");
    for (const core::RankData* rank : run.dataset->allSources()) {  // the ranks and the hosts' telemetry
        if (!rank) continue;
        const core::ClockInfo& c = rank->info.clock;
        QString clock = QString::fromLatin1(core::clockDomainName(c.domain));
        clock += c.anchored ? QObject::tr(", anchored (%1)").arg(qs(c.anchor).toHtmlEscaped())
                            : QObject::tr(", <b>not anchored</b>");
        const std::string& path = rank->path.empty() ? rank->info.path : rank->path;
        html += QStringLiteral("<tr><td style='padding-right:10px'>%1</td><td style='padding-right:10px'>%2</td><td>%3</td></tr>")
                    .arg(QFileInfo(qs(path)).fileName().toHtmlEscaped(), qs(rank->info.format).toHtmlEscaped(), clock);
    }
    return html + QStringLiteral("</table>");
}

}  // namespace

const core::ParamSpec& clockOffsetSpec() {
    static const core::ParamSpec spec =
        core::makeSpec(core::ParamType::Duration, "clock-offset", "Clock offset",
                       "Added to the times of the run's sources not on the realtime clock", 0LL);
    return spec;
}

ClockOffsetDialog::ClockOffsetDialog(const RunRecord& run, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Clock offset — %1").arg(run.label()));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Sources whose clock is not realtime (rocprof and rocpd boot time, an Nsight session, nvidia-smi's local "
           "wall time) cannot be drawn beside anchored ones (a PyTorch trace, the collectors' samplers) until an "
           "offset relates them. The offset is added to those sources' times to reach Unix-epoch time; anchored "
           "sources keep theirs. The same as <tt>--clock-offset</tt> of strobe and strobe-cli."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    if (const QString sources = sourcesHtml(run); !sources.isEmpty()) {
        auto* list = new QLabel(sources, this);
        list->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(list);
    }

    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Offset:"), this));
    m_field = new QLineEdit(this);
    m_field->setPlaceholderText(tr("e.g. 1732712345000000000, -3600s, 250us"));
    if (run.clockOffsetNs)
        m_field->setText(qs(core::valueToString(clockOffsetSpec(), core::ParamValue(static_cast<long long>(*run.clockOffsetNs)))));
    row->addWidget(m_field, 1);
    // nvidia-smi writes its local wall time without a zone: Strobe reads it as if it were UTC, so this machine's
    // zone (where such samples usually come from) is minus its offset from UTC.
    const int utcOffset = QDateTime::currentDateTime().offsetFromUtc();
    auto* zone = new QPushButton(tr("This machine's time zone (UTC%1%2)")
                                     .arg(utcOffset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
                                     .arg(QTime(0, 0).addSecs(std::abs(utcOffset)).toString(QStringLiteral("hh:mm"))),
                                 this);
    zone->setToolTip(tr("For samples in local wall time (nvidia-smi's timestamps) taken in this machine's time zone"));
    connect(zone, &QPushButton::clicked, this, [this, utcOffset] {
        m_field->setText(qs(core::valueToString(clockOffsetSpec(), core::ParamValue(-static_cast<long long>(utcOffset) * 1'000'000'000LL))));
    });
    row->addWidget(zone);
    layout->addLayout(row);
    auto* units = new QLabel(tr("Nanoseconds, or a number with a unit: ns, us, ms, s, min."), this);
    units->setEnabled(false);
    layout->addWidget(units);
    m_problem = new QLabel(this);
    m_problem->setStyleSheet(QStringLiteral("color: #c02020"));
    m_problem->setWordWrap(true);
    m_problem->hide();
    layout->addWidget(m_problem);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_remove = buttons->addButton(tr("Remove the offset"), QDialogButtonBox::ResetRole);
    m_remove->setEnabled(run.clockOffsetNs.has_value());
    connect(m_remove, &QPushButton::clicked, this, [this] {
        m_offset.reset();
        QDialog::accept();
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &ClockOffsetDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    setMinimumWidth(560);
}

void ClockOffsetDialog::accept() {
    const QString text = m_field->text().trimmed();
    if (text.isEmpty()) {
        m_offset.reset();
        QDialog::accept();
        return;
    }
    auto value = core::valueFromString(clockOffsetSpec(), text.toStdString());
    if (!value) {
        m_problem->setText(qs(value.error().message));
        m_problem->show();
        return;
    }
    m_offset = static_cast<int64_t>(std::get<long long>(value.value()));
    QDialog::accept();
}

}  // namespace strobe::app
