// The scaling topic's claims (scaling paper, as quoted in its review): one file per family
// (claims_covering: Lemma 3.7; claims_scaling_laws: Sec. 5 and Theorem 4.3; claims_erm: the ERM generalization
// bound, Monte-Carlo over exact ERMs; claims_per_e_exponents: the per-E exponents of the compute-optimal split).
// The others are deterministic checks over stated grids. This file lists them for the catalogue.
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
  r.add({"scaling.erm.fixed_routing", "scaling, generalization bound (review: \"standard ERM analysis for squared loss\")",
         "With a fixed routing pattern (E cells, constant experts) ERM is the regressogram: excess risk = approximation error + "
         "sigma^2 E / n up to exact finite-n terms.",
         ClaimKind::equality, erm_fixed_routing_claim});
  r.add({"scaling.erm.routing_overhead", "scaling, generalization bound with Lemma 3.7's routing overhead",
         "Excess risk of ERM over routed models <~ approximation error + sigma^2 (active parameters + log #routing patterns) / "
         "n: with learned routing the overhead grows like log C(n-1, E-1) ~ E log n, beyond a fixed pattern's sigma^2 E / n.",
         ClaimKind::bound, erm_routing_overhead_claim});
  r.add({"scaling.per_e_exponents", "scaling, Sec. 5 / appendix (review line 83: alpha_N(E) := mu(E), alpha_D(E) := nu(E))",
         "Reading per-E exponents mu(E), nu(E) into L = E0 + A N^-mu + B D^-nu with F = 6 N_act D gives N* ~ "
         "F^(nu(E)/(mu(E)+nu(E))): an allocation exponent that moves with E.",
         ClaimKind::equality, per_e_exponents_claim});
}

}  // namespace moelab::scaling
