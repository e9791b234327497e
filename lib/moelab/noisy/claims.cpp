// Claims of "Unmasking the success of mixture of experts: noisy features, sparse experts", one file
// per family (claims_<family>.cpp). Each check draws its Monte-Carlo evidence from the claim's key,
// tests the printed form, the exact form where the printed one is suspect (docs/errata.md), negative
// controls, and states its relevance (the smallest deviation that matters).
#include "moelab/claims/claim.hpp"
#include "moelab/noisy/detail/claim_support.hpp"

namespace moelab::noisy {

void register_claims(claims::Registry& reg) {
  detail::register_eq34_claims(reg);   // Eq. 3, Eq. 4
  detail::register_thm2_claims(reg);   // Thm 2
  detail::register_thm3_claims(reg);   // Thm 3, Sec. 4.3
  detail::register_thm4_claims(reg);   // Thm 4
  detail::register_thm4_remark_claims(reg);  // remark after Thm 4 (p_r = 0)
  detail::register_thm5_claims(reg);   // Thm 5, A.5
  detail::register_a6_claims(reg);     // A.6 first display, A.6.1, A.6.2
  detail::register_a63_claims(reg);    // A.6.3
  detail::register_sec45_claims(reg);  // Sec. 4.5, Fig. 2-3
  detail::register_thm1_claims(reg);   // Thm 1, A.7
}

}  // namespace moelab::noisy
