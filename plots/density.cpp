#include "plots/density.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>

#include "core/analysis/context.h"

namespace strobe::plots {

double silvermanBandwidth(const std::vector<double>& sorted) {
    const size_t n = sorted.size();
    if (n < 2) return 0.0;
    double mean = 0;
    for (double x : sorted) mean += x / double(n);
    double ss = 0;
    for (double x : sorted) ss += (x - mean) * (x - mean);
    const double sd = std::sqrt(ss / double(n - 1));
    const std::span<const double> s(sorted);
    const double iqr = core::stats::quantile(s, 0.75) - core::stats::quantile(s, 0.25);
    const double spread = iqr > 0 ? std::min(sd, iqr / 1.34) : sd;
    return 0.9 * spread * std::pow(double(n), -0.2);
}

double kernelDensity(const std::vector<double>& sample, double h, double at) {
    if (sample.empty() || !(h > 0)) return 0;
    double sum = 0;
    for (double x : sample) {
        const double u = (at - x) / h;
        sum += std::exp(-0.5 * u * u);
    }
    return sum / (double(sample.size()) * h * std::sqrt(2 * std::numbers::pi));
}

std::vector<double> silvermanDensity(const std::vector<double>& sorted, double lo, double hi, int points) {
    std::vector<double> out(size_t(std::max(points, 0)), 0.0);
    if (sorted.empty() || out.empty()) return out;
    if (hi <= lo) {
        std::fill(out.begin(), out.end(), 1.0);
        return out;
    }
    double h = silvermanBandwidth(sorted);
    if (h <= 0) h = (hi - lo) / 50.0;
    double mx = 0;
    for (size_t k = 0; k < out.size(); ++k) {
        const double at = lo + (hi - lo) * double(k) / double(std::max<size_t>(1, out.size() - 1));
        // Only values within 6 bandwidths contribute noticeably.
        auto first = std::lower_bound(sorted.begin(), sorted.end(), at - 6 * h);
        auto last = std::upper_bound(sorted.begin(), sorted.end(), at + 6 * h);
        double d = 0;
        for (auto it = first; it != last; ++it) {
            const double z = (at - *it) / h;
            d += std::exp(-0.5 * z * z);
        }
        out[k] = d;
        mx = std::max(mx, d);
    }
    if (mx > 0)
        for (double& d : out) d /= mx;
    return out;
}

}  // namespace strobe::plots
