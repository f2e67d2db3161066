#pragma once
// ChartData: the numbers behind a bar, line or box chart, as plain data, so that a view other than the plot's
// own QPainter drawing can show them — the GUI's interactive chart (Qt Charts: zoom, hover values, legend
// toggling) is one. A plot that draws such a chart returns it from Plot::chartData(); timelines and tables do not.
// Widget-free; the same values the plot draws (and writes to its CSV).

#include <string>
#include <vector>

#include <QColor>

namespace strobe::plots {

struct ChartData {
    enum class Kind { Bars, Lines, Boxes };
    enum class Unit { Duration, Percent, Number };  // of the value axis (durations are in ns)

    struct Series {
        std::string name;
        QColor color;
        std::vector<double> values;                     // Bars: one per category
        std::vector<std::pair<double, double>> points;  // Lines: (x, y)
    };
    // Boxes: one per category (whiskers p5/p95, box p25/p75, the median line), in the value unit.
    struct Box {
        double low = 0, q1 = 0, median = 0, q3 = 0, high = 0;
        QColor color;
    };

    Kind kind = Kind::Bars;
    std::string title;
    std::string subtitle;
    std::vector<std::string> categories;  // Bars and Boxes: the bar / box labels
    std::vector<Series> series;           // Bars and Lines
    std::vector<Box> boxes;               // Boxes
    bool stacked = true;                  // Bars: stacked, else side by side
    bool horizontal = false;              // Bars: left to right
    Unit valueUnit = Unit::Duration;      // the bar length, the line's y, the box values
    std::string valueLabel;               // the value axis' title
    Unit xUnit = Unit::Number;            // Lines: the x axis' unit
    std::string xLabel;                   // Lines: the x axis' title
    bool logX = false;                    // Lines: logarithmic x axis
};

}  // namespace strobe::plots
