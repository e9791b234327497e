// The standard normal density, distribution and survival functions, for the closed forms that
// integrate against a Gaussian. Phi and its complement both go through erfc, so each keeps its relative
// accuracy in its own tail (1 - Phi(z) would cancel for large z).
#pragma once

#include <cmath>

namespace moelab {

/// phi(z) = exp(-z^2 / 2) / sqrt(2 pi).
inline double normal_pdf(double z) { return 0.39894228040143267794 * std::exp(-0.5 * z * z); }
/// Phi(z) = P[N(0, 1) <= z].
inline double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
/// 1 - Phi(z) = P[N(0, 1) > z], without the cancellation.
inline double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace moelab
