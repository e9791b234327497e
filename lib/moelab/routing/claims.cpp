// Claims of the granularity paper ("Granularity boosts MoE expressivity"): region masses of Gaussian
// top-k routing (Lemma 3.2, Lemmas A.5-A.7), the mean-shift bound (Lemma A.3), random constant
// experts (Lemma 3.3 / A.8), the counting of Claim A.9, conditional covariances (Lemma 3.5 / B.5),
// the piecewise-constant separation of Theorem 3.1 in miniature, and the appendix lemmas. One file per
// family (claims_<family>.cpp holds the family's checks and registers them); each check has negative
// controls that must be rejected and a power statement; where the printed statement is wrong the exact
// form is tested beside it. This file fixes the order the families register in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/routing/detail/claim_support.hpp"

namespace moelab::routing {

void register_claims(claims::Registry& r) {
  detail::register_region_masses_claims(r);
  detail::register_shift_bound_claims(r);
  detail::register_packing_claims(r);
  detail::register_counting_claims(r);
  detail::register_covariance_claims(r);
  detail::register_separation_claims(r);
  // The appendix lemmas: exact checks, then the Monte-Carlo ones.
  detail::register_tail_bounds_claims(r);
  detail::register_tubes_claims(r);
  detail::register_projection_claims(r);
  detail::register_distinct_values_claims(r);
  detail::register_theorem36_counting_claims(r);
  detail::register_appendix_mc_claims(r);
  detail::register_c10_claims(r);
  detail::register_linear_separation_claims(r);
  detail::register_gaussian_products_claims(r);
}

}  // namespace moelab::routing
