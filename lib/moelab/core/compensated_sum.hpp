// Neumaier's compensated summation: the error of a sum of N terms stays a few ulps of the sum instead of
// growing like N eps (used for exact enumerations of 2^20 terms and for long positive series).
#pragma once

#include <cmath>

namespace moelab {

/// Neumaier's variant of Kahan summation (Neumaier 1974): also exact when a term is larger than the
/// running sum. value() = sum + the accumulated rounding errors.
struct CompensatedSum {
  double sum = 0.0, c = 0.0;
  void add(double x) {
    const double t = sum + x;
    c += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + c; }
};

}  // namespace moelab
