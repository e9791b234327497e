// Claims of the trained topic (theory measured on trained MoEs): the generalization gap
// against Theorem 1 (claims_gap.cpp), k* on a compositional task (claims_kstar.cpp), inference-time k
// (claims_inference_k.cpp), the scaling
// paper's rate in N_act (claims_scaling.cpp). docs/trained.md gives the measured verdicts.
#include "moelab/claims/claim.hpp"
#include "moelab/trained/detail/claim_support.hpp"

namespace moelab::trained {

void register_claims(claims::Registry& r) {
  r.add({"trained.thm1.gap_below_bound", "compositional, Theorem 1 (Eq. 5) on trained MoEs",
         "Theorem 1 as printed bounds the generalization gap (bounded loss) of trained top-k MoEs, checked at the most "
         "stringent size where it is not vacuous (m = 2048, T = 4, k = 2).",
         claims::ClaimKind::bound, detail::gap_vs_bound});
  r.add({"trained.thm1.gap_grows_with_k", "compositional, Theorem 1 (Eq. 5, the 2 k N d_N log T term)",
         "At fixed T and m the generalization gap of a trained top-k MoE grows with k (T = 16, k = 2 -> 4, m = 256).",
         claims::ClaimKind::inequality, detail::gap_growth_in_k});
  r.add({"trained.thm1.gap_grows_with_T", "compositional, Theorem 1 (printed and derived terms in T)",
         "At fixed k and m the generalization gap of a trained top-k MoE grows with T (k = 2, T = 4 -> 16, m = 256).",
         claims::ClaimKind::inequality, detail::gap_growth_in_T});
  r.add({"trained.kstar.advantage_grows_with_M", "compositional, Sec. 3.1 and Figs. 1-2 (SRAVEN, trained)",
         "The optimal number of activated experts grows with task complexity: the advantage of k = 8 over k = 1 (of 8 "
         "experts) grows with the number M of composed rules.",
         claims::ClaimKind::inequality, detail::kstar_grows_with_M});
  r.add({"trained.inference_k.more_experts_help", "compositional, Sec. 3.2.1 and Tables 1-2 (Skill-Mix, inference-time experts per token)",
         "Activating more experts per token at inference, without additional training, improves compositional "
         "generalisation on harder tasks: a model trained at k0 = 2 of 8 experts, evaluated at k = 4, is not less accurate "
         "on held-out rule combinations (M = 3) than at k0.",
         claims::ClaimKind::inequality, detail::inference_k_helps});
  r.add({"trained.scaling.active_rate", "scaling, Theorem 4.3 (N^(-beta/d)) on trained students",
         "The loss of trained MoE students falls with the active parameter count at least as fast as N_act^(-2 beta/d) (the "
         "squared approximation rate).",
         claims::ClaimKind::inequality, detail::scaling_active_rate});
  detail::register_scaling_gap_claims(r);  // claims_scaling.cpp: the gap on a fixed set vs the scaling bound
}

}  // namespace moelab::trained
