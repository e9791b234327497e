// Internal: what the routing claim files (claims_*.cpp) share: the families' registration functions
// (claims.cpp calls them), the one-sided test the evidence toolkit has only in the other direction,
// and the grids and rounding allowance of the exact appendix checks. Not installed.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::routing::detail {

using claims::ClaimKind;
using claims::Evidence;
using claims::exhaustive_test;
using claims::lower_bound_test;  // H0: E X >= bound (the evidence toolkit)

inline double inv(double n) { return 1.0 / n; }

/// Relative rounding allowance of the special-function evaluations of the exact appendix checks.
inline constexpr double kRound = 1e-12;

/// `points` values from lo to hi, equally spaced in log.
inline std::vector<double> log_grid(double lo, double hi, int points) {
  std::vector<double> g;
  for (int i = 0; i < points; ++i) g.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (points - 1)));
  return g;
}

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_region_masses_claims(claims::Registry& r);        // Lemma 3.2, Lemmas A.5-A.7
void register_shift_bound_claims(claims::Registry& r);          // Lemma A.3
void register_packing_claims(claims::Registry& r);              // Lemma 3.3 = A.8
void register_counting_claims(claims::Registry& r);             // Claim A.9
void register_covariance_claims(claims::Registry& r);           // Lemma 3.5 = B.10 (and B.5)
void register_separation_claims(claims::Registry& r);           // Theorem 3.1 in miniature
void register_tail_bounds_claims(claims::Registry& r);          // Proposition A.2, Lemma A.4
void register_tubes_claims(claims::Registry& r);                // Lemmas B.2, B.3
void register_projection_claims(claims::Registry& r);           // Lemmas C.2, C.3
void register_distinct_values_claims(claims::Registry& r);      // Lemmas C.4, C.5
void register_theorem36_counting_claims(claims::Registry& r);   // Claims C.11, C.12
void register_appendix_mc_claims(claims::Registry& r);          // Monte-Carlo: Prop. B.6, Lemma B.11, Remark 2.1, Lemma C.7
void register_c10_claims(claims::Registry& r);                  // Claim C.10
void register_linear_separation_claims(claims::Registry& r);    // Lemmas B.9, B.13, C.6
void register_gaussian_products_claims(claims::Registry& r);    // Lemmas B.7, B.8

}  // namespace moelab::routing::detail
