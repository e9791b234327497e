// Tracy-Widom distributions F_beta (beta = 1, 2, 4) and the centring/scaling that takes the largest
// eigenvalue of a white Wishart matrix to them.
//
// Method (Bornemann 2010, "On the numerical evaluation of Fredholm determinants", Math. Comp. 79,
// 871-915; "On the numerical evaluation of distributions in random matrix theory", Markov Process.
// Related Fields 16 (2010), 803-866): each F_beta is a Fredholm determinant,
// discretised by the Nystrom method with an m-point Gauss-Legendre rule on a truncated interval,
//   det(I - K) ~ det(delta_ij - w_i^(1/2) K(x_i, x_j) w_j^(1/2)),
// which converges exponentially in m for these analytic kernels.
//   beta = 2: F2(s) = det(I - K_Ai) on L^2(s, inf),  K_Ai(x, y) = (Ai(x) Ai'(y) - Ai'(x) Ai(y)) / (x - y),
//             K_Ai(x, x) = Ai'(x)^2 - x Ai(x)^2          (Tracy-Widom 1994, Comm. Math. Phys. 159, 151).
//   beta = 1: F1(s) = det(I - B_s) on L^2(0, inf),   B_s(x, y) = Ai(x + y + s)
//             (Ferrari-Spohn 2005, J. Phys. A 38, L557; Sasamoto 2005, J. Phys. A 38, L549; Bornemann 2010 MPRF,
//             in the equivalent form (1/2) Ai((x + y)/2) on L^2(s, inf)).
//   beta = 4: F4u(s) = (det(I - B_s) + det(I + B_s)) / 2 (unscaled convention, below), which equals
//             cosh(1/2 int_s^inf q) F2(s)^(1/2) with q the Hastings-McLeod solution of Painleve II
//             (Tracy-Widom 1996, Comm. Math. Phys. 177, 727, where it is written for F4(s / sqrt 2)).
// Densities use the exact derivative d/ds log det(I - K_s) = -tr((I - K_s)^(-1) dK_s/ds) of the same
// discretisation (for the Airy kernel (d_x + d_y) K_Ai = -Ai(x) Ai(y), so d/ds log F2 = <(I - K_s)^(-1) Ai, Ai>).
//
// Accuracy (tests/spectra/tracy_widom_test.cpp against tests/data/spectra/tracy_widom_reference.csv, an
// independent mpmath + longdouble computation good to ~1e-17), measured with g++ 12 on x86-64:
//   CDF and density: max absolute error 8e-16 / 1.1e-15 over s in [-9, 6] (beta 2), [-10, 8] (beta 1),
//   [-9, 5] (beta 4, sqrt2 convention); relative error <= 2e-11 where the value is >= 1e-6;
//   quantiles at p = 0.01 ... 0.99: max absolute error 1.9e-14 (about 5e-16 / f_beta(s));
//   moments: within 1e-13 of the reference, and of the published values (see tracy_widom_moments).
// Left tail: the determinant's relative error grows like eps / (1 - largest eigenvalue of K_s) as s
// decreases, so below s = -7 (beta 1, 2) / -7.75 (beta 4, unscaled) the left-tail series of Painleve II is used
// instead (tracy_widom_cdf). Against an mpmath Painleve II reference (tests/data/spectra/tracy_widom_left_tail.csv,
// s in [-16, -3]): relative error <= 4.2e-10 (cdf) / 1.2e-10 (pdf) everywhere, 1e-14 below s = -9; relative jump at
// the cuts <= 4e-10.
// Cost (Release build, one core of a shared x86-64 VM): CDF 10 us (beta 2), 34 us (beta 1), 41-62 us (beta 4);
// density 11 / 56 / 84-127 us; quantile 0.15 / 0.46 / 0.67 ms (beta 2 / 1 / 4); moments 75 ms on the first call
// (all three betas), then cached. The Airy table is built once (~5 ms) on first use.
#pragma once

namespace moelab::spectra {

/// The two conventions for beta = 4, which differ by sqrt 2 in the argument; named by that factor (the
/// former name `original` did not say which of the two it meant):
///   sqrt2:    F4(s) = F4u(sqrt(2) s), the law of Tracy & Widom (1996, Comm. Math. Phys. 177, 727-754) as tabulated
///             (Tracy-Widom 1996/2000, Bornemann 2010) and what most sources call the sqrt(2) convention:
///             mean -2.306884893241, variance 0.5177237207726 (the mean identifies a table's convention).
///   unscaled: F4u(s) = (det(I - B_s) + det(I + B_s)) / 2 = cosh(1/2 int_s^inf q) F2(s)^(1/2), on the same
///             argument scale as F1 and F2 (the one some software calls the Edelman / Dieng convention;
///             defined here by its formula, not by attribution): mean -3.262427902855 = sqrt(2) (-2.306884893241),
///             variance 1.035447441545 = 2 x 0.5177237207726.
///   original: deprecated alias of sqrt2 (its former name; the CLI still accepts it, with a note).
/// Ignored for beta = 1, 2.
enum class Tw4Convention { sqrt2, unscaled, original = sqrt2 };

/// The argument t with F4[to](t) = F4[from](s): unscaled = sqrt(2) x sqrt2-convention argument (F4(s) = F4u(sqrt(2) s)).
double tracy_widom4_convert(double s, Tw4Convention from, Tw4Convention to);

/// Tracy-Widom CDF F_beta(s), beta in {1, 2, 4} (std::logic_error otherwise). Fredholm determinant as in the
/// file comment, m = 48 Gauss-Legendre nodes. For s below the left cut (-7 for beta = 1, 2, -7.75 for unscaled
/// beta = 4), the left-tail series of the Hastings-McLeod solution q of Painleve II (Tracy-Widom 1994), summed to
/// its smallest term: with t = -s, x = t^(-3), q ~ sqrt(t/2) sum_k a_k x^k (a = 1, -1/8, -73/128, -10657/1024, ...,
/// from the recurrence of q'' = s q + 2 q^3), and
///   log F2(s) = -t^3/12 - log(t)/8 + log tau2 + sum_{k>=2} c_k t^(3-3k)   ((log F2)'' = -q^2),
///   F1 = exp(-u/2) F2^(1/2),  F4u = cosh(u/2) F2^(1/2),  u = int_s^inf q = (sqrt 2/3) t^(3/2) + log(2)/2 + ...,
/// tau2 = 2^(1/24) e^(zeta'(-1)) (Deift-Its-Krasovsky 2008, Comm. Math. Phys. 278, 643; the constant of u from
/// Baik-Buckingham-DiFranco 2008, Comm. Math. Phys. 280, 463). Relative error <= 4.2e-10 around the cuts, 1e-14 below
/// s = -9 (the series' truncation error is ~exp(-(2 sqrt 2 / 3) t^(3/2))).
/// Returns exactly 1 above s = 40 (1 - F < 1e-70) and 0 below s = -1000. NaN only for NaN s.
double tracy_widom_cdf(double s, int beta, Tw4Convention convention = Tw4Convention::sqrt2);

/// Tracy-Widom density f_beta(s) = F_beta'(s), by the exact derivative of the discretised determinant
/// (file comment); the left-tail series' derivative below the left cut, 0 above s = 40.
double tracy_widom_pdf(double s, int beta, Tw4Convention convention = Tw4Convention::sqrt2);

/// Quantile: the s with F_beta(s) = p, p in (0, 1) (std::logic_error otherwise), by Boost's TOMS 748
/// bracketing solver (Alefeld-Potra-Shi 1995) on the CDF. The absolute error is about 5e-16 / f_beta(s) (1.9e-14
/// at worst for p in [0.01, 0.99]); near p = 1 it grows as f_beta -> 0.
double tracy_widom_quantile(double p, int beta, Tw4Convention convention = Tw4Convention::sqrt2);

/// Mean, variance, skewness E(X - mu)^3 / sd^3 and excess kurtosis E(X - mu)^4 / sd^4 - 3.
struct TracyWidomMoments {
  double mean;
  double variance;
  double skewness;
  double excess_kurtosis;
};

/// Moments of F_beta by Gauss-Legendre quadrature of s^j f_beta(s) over a range whose tails carry < 1e-16
/// (computed once for all betas, then cached). Published values (Bornemann 2010, Math. Comp. 79, moment table;
/// Tracy-Widom 2000; Prahofer-Spohn 2000), reproduced to their printed (truncated) digits: beta = 2 mean
/// -1.7710868074116, variance 0.8131947928329; beta = 1 mean -1.2065335745820, variance 1.6077810345810
/// (we, and the independent reference, get 1.60778103458136: 3.6e-13 apart); beta = 4 (sqrt2) mean
/// -2.306884893241, variance 0.5177237207726, skewness 0.1655094944 (a quoted 0.1655101985 is 7e-7 off).
/// Computed: beta 1: -1.206533574582024, 1.607781034581355, 0.2934645240865, 0.1652429384555;
/// beta 2: -1.771086807411602, 0.813194792832958, 0.2240842036107, 0.0934480876610;
/// beta 4 (sqrt2): -2.306884893241101, 0.517723720772678, 0.1655094943523, 0.0491951565939.
/// Unscaled beta = 4 moments follow by the sqrt 2 change of scale.
TracyWidomMoments tracy_widom_moments(int beta, Tw4Convention convention = Tw4Convention::sqrt2);

/// Which centring/scaling of the largest eigenvalue of a white Wishart matrix.
enum class WishartEdge {
  /// Johnstone (2001, Ann. Statist. 29(2), 295-327, Thm 1.1): X n x p with iid real N(0, 1) entries,
  /// l1 = largest eigenvalue of X'X (unnormalised), n/p -> gamma in (0, inf) (El Karoui 2003, arXiv:math/0309355,
  /// for the extension to p/n -> 0 or inf):
  ///   mu = (sqrt(n - 1) + sqrt(p))^2,  sigma = (sqrt(n - 1) + sqrt(p)) (1/sqrt(n - 1) + 1/sqrt(p))^(1/3),
  ///   (l1 - mu) / sigma -> F1.
  johnstone_real,
  /// Johansson (2000, Comm. Math. Phys. 209, 437-476, Thm 1.6), also stated in Johnstone (2001):
  /// X n x p with iid standard complex Gaussian entries (E|x|^2 = 1), l1 = largest eigenvalue of X*X:
  ///   mu = (sqrt(n) + sqrt(p))^2,  sigma = (sqrt(n) + sqrt(p)) (1/sqrt(n) + 1/sqrt(p))^(1/3),  -> F2.
  johansson_complex,
};

/// Centre and scale: (l1 - centre) / scale converges in law to the Tracy-Widom law of the case.
struct EdgeScaling {
  double centre;
  double scale;
};

/// The centring and scaling of `kind` for X n x p (n samples, p variables; eigenvalue of the unnormalised
/// p x p matrix X'X, whose nonzero eigenvalues are those of XX'). Needs n >= 2 (real) or n >= 1, p >= 1.
EdgeScaling wishart_largest_eigenvalue_scaling(double n, double p, WishartEdge kind);

/// The Tracy-Widom approximation to P(l1 <= l): F_beta((l - centre) / scale) with beta = 1 (real) or 2 (complex).
double wishart_largest_eigenvalue_cdf(double l, double n, double p, WishartEdge kind);

}  // namespace moelab::spectra
