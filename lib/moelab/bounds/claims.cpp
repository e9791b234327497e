// The bounds topic's claims (compositional paper, Sec. 4.2 and App. B): one file per family
// (claims_<family>.cpp holds the family's checks and registers them): routed_class (Lemma 5), growth
// (Lemma 6), symmetrisation (Lemmas 7-9), convex_hull (Lemma 10), bounded_differences (Lemma 11),
// union (Eq. 9-12), mcdiarmid (Eq. 16), pattern_counts (Eq. 13), theorem1 (Eq. 5, 17-18), rademacher
// (Definition 2). Monte-Carlo inequalities are one-sided tests; statements about formulas are checked
// exhaustively over stated grids (p = 0 at any counterexample). This file fixes the order the families
// register in (the suite's order).
#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/claims/claim.hpp"

namespace moelab::bounds {

void register_claims(claims::Registry& r) {
  detail::register_routed_class_claims(r);
  detail::register_growth_claims(r);
  detail::register_symmetrisation_claims(r);
  detail::register_convex_hull_claims(r);
  detail::register_bounded_differences_claims(r);
  detail::register_union_claims(r);
  detail::register_mcdiarmid_claims(r);
  detail::register_pattern_counts_claims(r);
  detail::register_theorem1_claims(r);
  detail::register_rademacher_claims(r);
}

}  // namespace moelab::bounds
