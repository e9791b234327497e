// Shared by the spectra claim files (claims_*.cpp): finite-size corrections, the empirical CDF and
// the families' registration functions (claims.cpp calls them). Internal: not installed.
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

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_mp_claims(claims::Registry& r);               // Marchenko-Pastur
void register_tw_claims(claims::Registry& r);               // Tracy-Widom edge of white Wishart matrices
void register_spike_claims(claims::Registry& r);            // BBP limit, Paul's fluctuations and overlap, subcritical edge
void register_info_plus_noise_claims(claims::Registry& r);  // BGN overlaps, Dozier-Silverstein ESD

}  // namespace moelab::spectra::detail
