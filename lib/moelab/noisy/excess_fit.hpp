// The a/n^2 + b/n fit of excess risk against the sample size (noisy, Sec. 4.5, Fig. 2 / Table 1):
// the excess-risk study's summary and the Sec. 4.5 claim both fit with this one function.
#pragma once

#include <optional>
#include <span>

#include "moelab/core/stats.hpp"

namespace moelab::noisy {

/// Weighted least squares of excess(n) = a/n^2 + b/n, weights 1/SE^2, over the points with a finite
/// mean and a positive standard error (others are skipped). coef = {a, b}, se = their standard
/// errors. Empty when fewer than 3 points remain (no degree of freedom left to judge the fit).
struct ExcessOrderFit {
  WlsFit fit;
  std::size_t points = 0;
  double a() const { return fit.coef[0]; }
  double b() const { return fit.coef[1]; }
};
std::optional<ExcessOrderFit> fit_excess_order(std::span<const double> n, std::span<const double> mean,
                                               std::span<const double> std_error);

}  // namespace moelab::noisy
