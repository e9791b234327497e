// The scaling topic's claims (scaling paper, as quoted in its review): one file per family
// (claims_<family>.cpp holds the family's checks and registers them): claims_covering (Lemma 3.7),
// claims_scaling_laws (Sec. 5 and Theorem 4.3), claims_erm (the ERM generalization bound, Monte-Carlo
// over exact ERMs), claims_per_e_exponents (the per-E exponents of the compute-optimal split). The
// others are deterministic checks over stated grids. This file fixes the order the families register
// in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/scaling/detail/claim_support.hpp"

namespace moelab::scaling {

void register_claims(claims::Registry& r) {
  detail::register_covering_claims(r);
  detail::register_scaling_laws_claims(r);
  detail::register_erm_claims(r);
  detail::register_per_e_exponents_claims(r);
}

}  // namespace moelab::scaling
