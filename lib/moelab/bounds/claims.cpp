// The bounds topic's claims (compositional paper, Sec. 4.2 and App. B): one file per family
// (claims_routed_class: Lemmas 5 and 10; claims_symmetrisation: Lemmas 7-9; claims_mcdiarmid: Lemma 11
// and Eq. 16; claims_growth: Lemma 6 and Eq. 13; claims_theorem1: Eq. 5, 17-18; claims_rademacher:
// Definition 2; claims_union: Eq. 9-12). Monte-Carlo inequalities are one-sided tests; statements about
// formulas are checked exhaustively over stated grids (p = 0 at any counterexample). This file lists them
// for the catalogue.
#include <string>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/claims/claim.hpp"

namespace moelab::bounds {

namespace detail {
// Eq. 9-12: union bound over realised masks, two-sign split (claims_union.cpp)
Evidence eq12_sign_split_claim(const CheckBudget& b, const RngKey& key);
Evidence eq10_data_dependent_masks_claim(const CheckBudget& b, const RngKey& key);
}  // namespace detail

void register_claims(claims::Registry& r) {
  using namespace detail;
  const std::string src = "compositional, ";
  r.add({"bounds.lemma5.routed_class", src + "Lemma 5, Eq. 19 (App. B)",
         "For the routed class F|mu with a fixed mask, E phi|mu(S, S') <= 2 C R_m(H).", ClaimKind::bound, lemma5_claim});
  r.add({"bounds.lemma6.natarajan", src + "Lemma 6, Eq. 27; Haussler & Long 1995",
         "A class of Natarajan dimension d realises at most m^d L^(2d) labelings of m points into L classes.", ClaimKind::bound,
         lemma6_claim});
  r.add({"bounds.lemma7.ghost_sample", src + "Lemma 7, Eq. 28-36",
         "(1 - 2 e^{-eps^2 m/2}) P(sup|L_S - L_D| > eps) <= P(sup|L_S - L_S'| > eps/2).", ClaimKind::inequality,
         lemma7_claim});
  r.add({"bounds.lemma8.symmetrisation", src + "Lemma 8, Eq. 37", "E sup_f (L_S(f) - L_S'(f)) <= 2 R_m(F).",
         ClaimKind::inequality, lemma8_claim});
  r.add({"bounds.lemma9.contraction", src + "Lemma 9 (Ledoux-Talagrand)", "R(phi o F) <= L R(F) for an L-Lipschitz phi.",
         ClaimKind::inequality, lemma9_claim});
  r.add({"bounds.lemma10.convex_hull", src + "Lemma 10, Eq. 42",
         "Convex combinations of T experts with constant weights have the Rademacher complexity of H.", ClaimKind::inequality,
         lemma10_claim});
  r.add({"bounds.lemma11.bounded_differences", src + "Lemma 11, Eq. 47",
         "Replacing one point of (S, S') changes phi by at most 1/m.", ClaimKind::bound, lemma11_claim});
  r.add({"bounds.eq10.data_dependent_masks", src + "Eq. 9-12 (App. B)",
         "P(sup_f |L_S - L_S'| >= eps/2) <= 2 Gamma sup_mu P(sup_{h, nu} (L_S - L_S') >= eps/2 | mu = mu*), the union over "
         "the Gamma masks realised on the double sample.",
         ClaimKind::inequality, eq10_data_dependent_masks_claim});
  r.add({"bounds.eq12.sign_split", src + "Eq. 12 (App. B)",
         "P(sup |L_S - L_S'| >= eps/2 | mu) <= 2 P(sup (L_S - L_S') >= eps/2 | mu) (two signs).", ClaimKind::inequality,
         eq12_sign_split_claim});
  r.add({"bounds.eq16.mcdiarmid", src + "Eq. 16", "P(phi - E phi >= t) <= exp(-2 m t^2).", ClaimKind::bound, eq16_claim});
  r.add({"bounds.eq13.pattern_counts", src + "Eq. 13, Lemma 6, Assumption 1",
         "The top-k masks of a router class of Natarajan dimension d_N realise at most m^(d_N) C(T,k)^(2 d_N) patterns on m "
         "points (random linear routers, d_N = d T).",
         ClaimKind::bound, pattern_counts_claim});
  r.add({"bounds.thm1.eq17_eq18", src + "Eq. 17-18", "log(C(T,k)^(2 N d_N)) = 2 k N d_N log T (printed as an equality).",
         ClaimKind::equality, eq17_eq18_claim});
  r.add({"bounds.thm1.monotone", src + "Theorem 1, Eq. 5",
         "The bound decreases with m and delta and grows with T and k; as printed it grows with T only through k log T, but "
         "the proof (Lemma 5 with fixed gate weights) gives a Rademacher term 4 C T w_max R_m(H), linear in T / k for "
         "uniform weights, like an ensemble's T R(H).",
         ClaimKind::inequality,
         theorem1_monotone_claim});
  r.add({"bounds.rademacher.estimators", src + "Definition 2, Eq. 4; Massart",
         "The Monte-Carlo empirical Rademacher complexity equals the exact enumeration; Massart's bound holds.",
         ClaimKind::equality, rademacher_claim});
}

}  // namespace moelab::bounds
