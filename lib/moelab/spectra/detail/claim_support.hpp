// Shared by the spectra claim files (claims_*.cpp): finite-size corrections, the empirical CDF and
// the check functions the registry (claims.cpp) lists. Internal: not installed.
#pragma once

#include <cmath>
#include <cstdint>

#include <Eigen/Dense>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"

namespace moelab::spectra::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::SizeSeries;
using claims::TestResult;

// Finite-size corrections of the extrapolations (explicit models: L + a f1(n) + b f2(n)).
inline double inv(double n) { return 1.0 / n; }
inline double inv2(double n) { return 1.0 / (n * n); }
inline double inv13(double n) { return std::pow(n, -1.0 / 3.0); }
inline double inv23(double n) { return std::pow(n, -2.0 / 3.0); }

/// Fraction of `ev` at or below x.
inline double empirical_cdf(const Eigen::VectorXd& ev, double x) {
  return static_cast<double>((ev.array() <= x).count()) / static_cast<double>(ev.size());
}

// Marchenko-Pastur (claims_mp.cpp)
Evidence check_mp_gaussian(const CheckBudget& b, const RngKey& key);
Evidence check_mp_universality(const CheckBudget& b, const RngKey& key);
// Tracy-Widom edge of white Wishart matrices (claims_tw.cpp)
Evidence check_tw(const CheckBudget& b, const RngKey& key, int beta);
// Spiked covariance: BBP limit, Paul's fluctuations and overlap, subcritical edge (claims_spike.cpp)
Evidence check_spike_limit(const CheckBudget& b, const RngKey& key);
Evidence check_spike_fluctuation(const CheckBudget& b, const RngKey& key);
Evidence check_spike_overlap(const CheckBudget& b, const RngKey& key);
Evidence check_spike_subcritical(const CheckBudget& b, const RngKey& key);
// Information-plus-noise: BGN overlaps, Dozier-Silverstein ESD (claims_info_plus_noise.cpp)
Evidence check_ipn_overlap(const CheckBudget& b, const RngKey& key);
Evidence check_ds_esd(const CheckBudget& b, const RngKey& key);

}  // namespace moelab::spectra::detail
