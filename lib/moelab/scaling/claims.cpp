// The scaling topic's claims (scaling paper, as quoted in its review): one file per family
// (claims_covering: Lemma 3.7; claims_scaling_laws: Sec. 5 and Theorem 4.3). All are deterministic
// checks over stated grids. This file lists them for the catalogue.
#include "moelab/claims/claim.hpp"
#include "moelab/scaling/detail/claim_support.hpp"

namespace moelab::scaling {

void register_claims(claims::Registry& r) {
  using namespace detail;
  r.add({"scaling.lemma37.routing_overhead", "scaling, Lemma 3.7",
         "The routing term L l k log(e M / k) of the covering bound upper-bounds the log-number of routing patterns.", ClaimKind::bound,
         routing_overhead_claim});
  r.add({"scaling.lemma37.active_parameters", "scaling, Lemma 3.7",
         "The parameter term of the covering bound counts the active parameters P_attn + L k P_exp: log N(delta) grows as "
         "(P_attn + L k P_exp) log(1/delta).",
         ClaimKind::bound, active_parameters_claim});
  r.add({"scaling.thm43.rate", "scaling, Theorem 4.3 (as stated in the review)",
         "The approximation error of an E-expert MoE decays as E^(-beta/d) for C^beta targets on a d-dimensional domain.",
         ClaimKind::asymptotic, rate_claim});
  r.add({"scaling.compute_optimal", "scaling, Sec. 5 (F = 6 N_act D); Hoffmann et al. 2022, Eq. 4",
         "Under F = 6 N D the loss-minimising N_act and D follow N ~ F^(aD/(aN+aD)), D ~ F^(aN/(aN+aD)).", ClaimKind::equality,
         compute_optimal_claim});
}

}  // namespace moelab::scaling
