#include "app/gui/format.h"

#include <algorithm>
#include <cmath>

#include <QLocale>
#include <QStringList>

#include "plots/chart.h"

namespace strobe::app {

QString formatCount(uint64_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

QString formatBytes(uint64_t bytes) {
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

namespace {

// Escaped and wrapped, lines joined by <br>.
QString wrappedHtml(const QString& text) {
    return plots::wrapText(text, kReadableLineChars).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}

}  // namespace

QString tooltipHtml(const QString& text) {
    const QStringList lines = text.split(QLatin1Char('\n'));
    QStringList html;
    for (qsizetype i = 0; i < lines.size(); ++i)
        html << (i == 0 ? QStringLiteral("<b>%1</b>").arg(wrappedHtml(lines[i])) : wrappedHtml(lines[i]));
    return QStringLiteral("<qt>%1</qt>").arg(html.join(QStringLiteral("<br>")));
}

QString selectionHtml(const plots::HitInfo& hit) {
    static const char* const kFirst[] = {"duration", "start", "rank", "stream", "category"};
    auto rankOf = [](const std::string& key) {
        const auto* it = std::find(std::begin(kFirst), std::end(kFirst), key);
        return static_cast<int>(it - std::begin(kFirst));  // the others after, in the plot's order
    };
    auto fields = hit.fields;
    std::stable_sort(fields.begin(), fields.end(),
                     [&](const auto& a, const auto& b) { return rankOf(a.first) < rankOf(b.first); });
    const QString title = QString::fromStdString(hit.title);
    const bool longTitle = title.size() > kReadableLineChars;
    QString html;
    if (!longTitle) html += QStringLiteral("<p><b>%1</b></p>").arg(title.toHtmlEscaped());
    html += QStringLiteral("<table>");
    for (const auto& [k, v] : fields)
        // The field's name never breaks (Qt's rich text breaks a narrow cell's word anywhere otherwise).
        html += QStringLiteral("<tr><td style='padding-right:8px; white-space:nowrap' valign=top>%1</td><td>%2</td></tr>")
                    .arg(QString::fromStdString(k).toHtmlEscaped(), wrappedHtml(QString::fromStdString(v)));
    html += QStringLiteral("</table>");
    if (longTitle) html += QStringLiteral("<p><b>name</b><br>%1</p>").arg(wrappedHtml(title));
    return html;
}

}  // namespace strobe::app
