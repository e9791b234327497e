// Theorem 1 of the compositional paper ("Sparse Mixture-of-Experts for Compositional Generalization:
// Empirical Evidence and Theoretical Foundations of Optimal Sparsity", arXiv 2410.13964, Sec. 4.2 and
// Appendix B) and the naive-ensemble rate it is compared with, term by term, as printed and as derived.
//
// Convention: the loss l takes values in [0, 1] and is C-Lipschitz in its prediction (Assumption 2);
// m training points; T experts of which k are active (top-k, Eq. 2); the mask class has Natarajan
// dimension N d_N (Assumption 1, O(.) read as an equality); R_m(H) is the Rademacher complexity of
// the expert class (Definition 2, Eq. 4); the bound holds with probability >= 1 - delta. Logarithms
// are natural. Every term is reported separately so that a claim can print which one dominates.
// docs/bounds.md lists what was found not to hold in the printed derivation.
#pragma once

namespace moelab::bounds {

struct Theorem1Params {
  double C = 1.0;           ///< Lipschitz constant of the loss (Assumption 2), > 0
  double rademacher = 0.0;  ///< R_m(H) of the expert class, >= 0
  double k = 1.0;           ///< active experts, integer 1 <= k <= T
  double N = 1.0;           ///< number of tasks, integer >= 1
  double d_N = 1.0;         ///< Natarajan dimension of the mask class for N = 1, integer >= 0
  double T = 1.0;           ///< number of experts, integer >= 1
  double m = 1.0;           ///< number of training points, integer >= 1
  double delta = 0.05;      ///< failure probability, in (0, 1)
  /// Used by the derived form only: the largest gate weight mu_j nu_j an expert can receive, when the
  /// weights nu are fixed given the mask (1 in general, 1/k for uniform weights over the k selected
  /// experts). See theorem1_derived.
  double max_gate_weight = 1.0;
};

/// Theorem 1 split into its terms. total = rademacher_term + deviation_term, and
/// deviation_term = 2 sqrt((log_growth_routing + log_growth_sample + log_confidence) / denominator).
struct Theorem1Terms {
  double rademacher_term;     ///< 4 C R_m(H) (printed) or 4 C T w_max R_m(H) (derived)
  double log_growth_routing;  ///< routing / Natarajan part of log Gamma: 2 k N d_N log T (printed, Eq. 18) or 2 N d_N log C(T, k) (Eq. 13, 17)
  double log_growth_sample;   ///< N d_N log(2m) (Eq. 13)
  double log_confidence;      ///< log(2/delta) (printed) or log(4/delta) (derived)
  double denominator;         ///< 2m (printed, Eq. 16's exponent 2m) or m (derived)
  double deviation_term;      ///< 2 sqrt((log Gamma + log_confidence) / denominator)
  double total;               ///< rademacher_term + deviation_term
};

/// Eq. 5 (= Eq. 18 with E[phi] <= 2 C R_m(H), Lemma 5) exactly as printed, constants included:
/// 4 C R_m(H) + 2 sqrt((2 k N d_N log T + N d_N log(2m) + log(2/delta)) / (2m)).
Theorem1Terms theorem1_printed(const Theorem1Params& p);

/// Eq. 17 as printed, before the relaxation to Eq. 18: log Gamma = log(C(T, k)^(2 N d_N) (2m)^(N d_N))
/// (Eq. 13) kept exact; other constants as printed. Never larger than theorem1_printed.
Theorem1Terms theorem1_eq17(const Theorem1Params& p);

/// The same proof with its arithmetic and Lemma 5 corrected (docs/bounds.md, "Theorem 1"):
///  - Eq. 7 and Eq. 12 each cost a factor 2, so the union bound has 4 Gamma, giving log(4/delta);
///  - McDiarmid for phi(S, S'), a function of 2m points each with bounded difference 1/m (Lemma 11),
///    gives exp(-m t^2), not exp(-2 m t^2) (Eq. 16): denominator m instead of 2m;
///  - log Gamma from Eq. 13 kept exact (2 N d_N log C(T, k), Eq. 17);
///  - Lemma 5 fails for data-dependent gates (Eq. 24 -> 25); for weights fixed given the mask the
///    contraction argument gives E[phi] <= 2 C T w_max R_m(H), w_max = max_gate_weight: rademacher_term
///    4 C T w_max R_m(H).
/// The union bound over masks realised on the double sample (Eq. 9-11) is kept as in the paper
/// although it needs a conditioning argument the paper does not give (docs/bounds.md).
Theorem1Terms theorem1_derived(const Theorem1Params& p);

/// The naive ensemble rate of Sec. 4.2, O(T R(H) + sqrt(log(2/delta) / 2m)), with the paper's (unit)
/// constants: rademacher_term = T R_m(H), deviation_term = sqrt(log(2/delta) / (2m)).
struct EnsembleTerms {
  double rademacher_term;
  double deviation_term;
  double total;
};
EnsembleTerms naive_ensemble_printed(double T, double rademacher, double m, double delta);

/// The standard uniform-deviation bound (McDiarmid + symmetrisation: Mohri, Rostamizadeh & Talwalkar
/// 2018, "Foundations of Machine Learning", Thm 3.3, made two-sided by a union over the two signs) for the unnormalised sum of T experts with
/// a C-Lipschitz [0, 1] loss: sup_f |L_S - L_D| <= 2 C T R_m(H) + sqrt(log(2/delta) / (2m)).
/// `averaged` = true: the ensemble (1/T) sum_j h_j (or any fixed convex combination), whose Rademacher
/// complexity is R_m(H) by Lemma 10: 2 C R_m(H) + sqrt(log(2/delta) / (2m)); no factor T at all.
EnsembleTerms naive_ensemble_derived(double C, double T, double rademacher, double m, double delta, bool averaged);

}  // namespace moelab::bounds
