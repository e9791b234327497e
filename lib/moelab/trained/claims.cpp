// Claims of the trained topic (theory measured on trained MoEs): one file per family
// (claims_<family>.cpp holds the family's checks and registers them): the generalization gap against
// Theorem 1 (claims_gap.cpp), k* on a compositional task (claims_kstar.cpp), inference-time k
// (claims_inference_k.cpp), the scaling paper's rate in N_act (claims_scaling.cpp). docs/trained.md
// gives the measured verdicts. This file fixes the order the families register in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/trained/detail/claim_support.hpp"

namespace moelab::trained {

void register_claims(claims::Registry& r) {
  detail::register_gap_claims(r);
  detail::register_kstar_claims(r);
  detail::register_inference_k_claims(r);
  detail::register_scaling_claims(r);
}

}  // namespace moelab::trained
