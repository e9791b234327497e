// Growth functions in log space (log C(n, k) itself: core/log_binomial.hpp), for the union bounds of the compositional paper
// ("Sparse Mixture-of-Experts for Compositional Generalization", arXiv 2410.13964, Appendix B).
//
// Convention: every function returns a natural logarithm, log(x) with log(0) = -inf. Counts m (points),
// d (a Natarajan or VC dimension) and labels (the number of classes of a multiclass predictor) are
// passed as doubles holding non-negative integers, so that m = 10^12 or C(T, k)^(2 N d_N) never
// overflow; they are checked to be integers.
#pragma once

namespace moelab::bounds {

/// Natarajan lemma as printed (compositional paper, Lemma 6, Eq. 27; Natarajan 1989; also
/// Shalev-Shwartz & Ben-David 2014, Lemma 29.4): a class of functions from m points into `labels`
/// classes with Natarajan dimension d realises at most m^d labels^(2 d) labelings:
/// returns d log m + 2 d log(labels). Requires m >= 1, labels >= 1, d >= 0.
double log_natarajan_growth(double m, double d, double labels);

/// Sauer-Shelah lemma: a class of VC dimension d realises at most sum_{i=0}^{min(d, m)} C(m, i)
/// labelings of m points. Exact, by log-sum-exp of log_binomial (O(min(d, m)) terms).
double log_sauer_shelah(double m, double d);

/// The closed-form Sauer-Shelah bound (e m / d)^d, valid for m >= d >= 1: returns d (1 + log(m / d)).
double log_sauer_shelah_bound(double m, double d);

/// Haussler & Long (1995, "A generalization of Sauer's lemma", J. Combin. Theory A 71): a class of functions
/// from m points into `labels` classes with Natarajan dimension d realises at most
/// sum_{i=0}^{min(d, m)} C(m, i) C(labels, 2)^i labelings (labels = 2: Sauer-Shelah). Exact log-sum-exp.
/// It never exceeds the Lemma 6 form m^d labels^(2 d) for m >= 1, labels >= 2 (tested).
double log_haussler_long(double m, double d, double labels);

/// Eq. 13 of the compositional paper: the number Gamma of top-k masks realised on the 2m points of
/// S and S' is at most C(T, k)^(2 N d_N) (2m)^(N d_N) (Lemma 6 with C(T, k) classes, Natarajan
/// dimension N d_N by Assumption 1 read as an equality): returns
/// 2 N d_N log C(T, k) + N d_N log(2 m). Requires 1 <= k <= T, N >= 1, d_N >= 0, m >= 1.
double log_mask_growth(double T, double k, double N, double d_N, double m);

/// The relaxation the paper writes as an equality from Eq. 17 to Eq. 18: 2 k N d_N log T + N d_N log(2m).
/// It is an upper bound of log_mask_growth (C(T, k) <= T^k / k! < T^k), not equal to it.
double log_mask_growth_relaxed(double T, double k, double N, double d_N, double m);

}  // namespace moelab::bounds
