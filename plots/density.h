#pragma once
// Kernel density estimate for violins: a Gaussian kernel with Silverman's rule-of-thumb bandwidth,
// h = 0.9 min(sd, IQR / 1.34) n^(-1/5) (sd alone when the IQR is 0; (hi - lo) / 50 when both are, so that a
// constant sample still draws a shape).

#include <vector>

namespace strobe::plots {

// The density of `sorted` (ascending) at `points` evenly spaced values over [lo, hi], scaled to a maximum of 1;
// all 1 when hi <= lo, all 0 without values.
std::vector<double> silvermanDensity(const std::vector<double>& sorted, double lo, double hi, int points);
double silvermanBandwidth(const std::vector<double>& sorted);
// The Gaussian kernel density of `sample` with bandwidth `h` at `at` (integrates to 1); 0 when h <= 0.
double kernelDensity(const std::vector<double>& sample, double h, double at);

}  // namespace strobe::plots
