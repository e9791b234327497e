// Claims of the granularity paper ("Granularity boosts MoE expressivity"): region masses of Gaussian
// top-k routing (Lemma 3.2, Lemmas A.5-A.7), the mean-shift bound (Lemma A.3), random constant
// experts (Lemma 3.3 / A.8), the counting of Claim A.9, conditional covariances (Lemma 3.5 / B.5) and
// the piecewise-constant separation of Theorem 3.1 in miniature. Each family's check lives in its own
// file (claims_*.cpp); each has negative controls that must be rejected and a power statement; where
// the printed statement is wrong the exact form is tested beside it.
#include "moelab/claims/claim.hpp"
#include "moelab/routing/detail/claim_tests.hpp"

namespace moelab::routing {

using claims::ClaimKind;

void register_c10_claims(claims::Registry& r);  // claims_c10.cpp
void register_linear_separation_claims(claims::Registry& r);  // claims_linear_separation.cpp
void register_gaussian_product_claims(claims::Registry& r);  // claims_gaussian_products.cpp

void register_claims(claims::Registry& r) {
  r.add({"routing.lemma32.region_masses", "granularity, Lemma 3.2 (Eqs. 3.1-3.3), Lemmas A.5-A.7",
         "For Gaussian routing vectors and d >= C k (log m)^2: E mu(U_S) = 1/C(m,k), E mu(U_S)^2 <= 3/C(m,k)^2, and at least 1/9 of "
         "the regions have mass >= 1/(2 C(m,k)).",
         ClaimKind::bound, detail::check_region_masses, CudaPath::validated});
  r.add({"routing.lemmaA3.shift_bound", "granularity, Lemma A.3",
         "With X_1..X_k ~ N(delta, 1) and the other m - k ~ N(0, 1), P[the first k are the top k] <= exp(delta k sqrt(2 log m)) / C(m, k).",
         ClaimKind::bound, detail::check_shift_bound});
  r.add({"routing.lemma33.packing", "granularity, Lemma 3.3 = Lemma A.8",
         "u_j ~ N(0, I/(2dk)) give ||u_S||^2 <= 1 and ||u_S - u_S'||^2 >= |S delta S'|/(4k) for all S, S' with high probability "
         "once d >= C k log m (union bound with Laurent-Massart tails).",
         ClaimKind::bound, detail::check_expert_packing});
  r.add({"routing.claimA9.counting", "granularity, Claim A.9 and Theorem 3.1 (counting condition)",
         "For m > 2k and small c, c': C(m, floor(c'k)) <= C(m, k)^(4 c' log2(1/c')), so p <= c C(m,k)^0.99 implies "
         "p C(m, floor(c'k)) C(k, floor(c'k)) <= c C(m, k).",
         ClaimKind::inequality, detail::check_counting});
  r.add({"routing.lemma35.covariance", "granularity, Lemma 3.5 = Lemma B.10 (and Lemma B.5)",
         "For mu = N(0, I/d) or Unif[B] and kappa >= C (1 + log(1/mu(U))): E_{mu|U} |(A1 - A2) x|^2 >= (c/d) min_{rank M <= kappa} "
         "|A1 - A2 - M|_F^2 (checked with the proof's constants c = 1/30000 and kappa of Lemma B.5, exactly, on thin cylinders and "
         "halfspaces).",
         ClaimKind::bound, detail::check_conditional_covariance});
  r.add({"routing.thm31.separation", "granularity, Theorem 3.1 (proof, Eqs. 3.5-3.6), in miniature",
         "An (m, k)-MoE with constant experts cannot be approximated by any (m', k')-MoE with C(m', k') <= c C(m, k)^0.99: for "
         "optimised students the error is at least the a-priori floor (delta/4)(1 - sum of the p largest mu(U_S)).",
         ClaimKind::bound, detail::check_separation});
  register_appendix_claims(r);
  register_c10_claims(r);
  register_linear_separation_claims(r);
  register_gaussian_product_claims(r);
}

}  // namespace moelab::routing
