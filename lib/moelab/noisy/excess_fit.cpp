#include "moelab/noisy/excess_fit.hpp"

#include <cmath>

#include "moelab/core/error.hpp"

namespace moelab::noisy {

std::optional<ExcessOrderFit> fit_excess_order(std::span<const double> n, std::span<const double> mean,
                                               std::span<const double> std_error) {
  MOELAB_EXPECT(n.size() == mean.size() && n.size() == std_error.size(), "fit_excess_order: lengths differ");
  std::vector<double> c2, c1, y, w;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double se = std_error[i];
    if (!(se > 0) || !std::isfinite(se) || !std::isfinite(mean[i])) continue;
    c2.push_back(1.0 / (n[i] * n[i])), c1.push_back(1.0 / n[i]);
    y.push_back(mean[i]), w.push_back(1.0 / (se * se));
  }
  if (y.size() < 3) return std::nullopt;
  return ExcessOrderFit{weighted_least_squares({c2, c1}, y, w), y.size()};
}

}  // namespace moelab::noisy
