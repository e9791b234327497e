// Claims of the moe topic (trained models): one file per family (claims_<family>.cpp holds the
// family's checks and registers them): claims_granularity (the granularity paper's Thm 3.1 as Fig. 2
// shows it on trained students), claims_noisy_b3 (the noisy paper's trained-model experiments, App.
// B.3), claims_moefication (the noisy paper's Sec. 5 on a synthetic network). This file fixes the
// order the families register in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/moe/detail/claim_support.hpp"

namespace moelab::moe {

void register_claims(claims::Registry& r) {
  detail::register_granularity_claims(r);
  detail::register_noisy_b3_claims(r);
  detail::register_moefication_claims(r);
}

}  // namespace moelab::moe
