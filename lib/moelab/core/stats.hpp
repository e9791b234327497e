// Running statistics and the tests the verdict engine uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace moelab {

/// Welford's running mean / variance with Chan et al.'s pairwise merge. Merging in a fixed order
/// gives bit-identical results for any thread count.
class Welford {
 public:
  void add(double x);
  void merge(const Welford& other);
  std::uint64_t count() const { return n_; }
  double mean() const { return mean_; }
  /// Unbiased sample variance (n - 1 denominator); NaN when n < 2.
  double variance() const;
  double stddev() const;
  /// Standard error of the mean, sqrt(variance / n).
  double standard_error() const;
  /// Summary of a * X (mean times a, variance times a^2).
  Welford scaled(double a) const;

 private:
  std::uint64_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

/// Welford over a span, in index order.
Welford summarize(std::span<const double> xs);

struct Interval {
  double lower, upper;
};

/// Two-sided Student-t confidence interval for the mean at `level` (e.g. 0.99).
Interval t_interval(const Welford& w, double level);

/// Two-sided p-value of H0: E[X] = mu0, Student t with n-1 degrees of freedom.
double t_test_two_sided(const Welford& w, double mu0);
/// One-sided p-value of H0: E[X] <= mu0 against E[X] > mu0 (t, n-1 dof).
double t_test_greater(const Welford& w, double mu0);
/// Two-sided p-value for a z statistic.
double z_test_two_sided(double z);
/// One-sided upper-tail p-value P(Z >= z).
double z_test_greater(double z);
/// Standard normal quantile.
double normal_quantile(double p);
/// Student-t quantile with `dof` degrees of freedom.
double student_t_quantile(double p, double dof);

/// One-sample Kolmogorov-Smirnov statistic D = sup_x |F_n(x) - F(x)| of `sorted` (ascending)
/// against a CDF F, exact for ties and for an F with atoms when `left_cdf` gives F(x-) (the left
/// limit; omit it for a continuous F). Runs of equal values are one jump of the ECDF.
double ks_statistic(std::span<const double> sorted, const std::function<double(double)>& cdf,
                    const std::function<double(double)>& left_cdf = nullptr);
/// Asymptotic p-value of the one-sample KS test, P(D_n >= d) for n iid draws from F, from the
/// Kolmogorov distribution at Stephens' (1970) corrected argument d (sqrt n + 0.12 + 0.11 / sqrt n)
/// (accurate to about 1e-3 in the p-value for n >= 35; Stephens 1970, JRSS B 32, Table 1A).
double ks_pvalue(double d, std::size_t n);
/// Kolmogorov's limiting CDF K(x) = P(sup |B(t)| <= x) of the Brownian bridge (Kolmogorov 1933):
/// 1 - 2 sum_k (-1)^(k-1) exp(-2 k^2 x^2) for x >= 1, sqrt(2 pi)/x sum_k exp(-(2k-1)^2 pi^2 / (8 x^2))
/// below (both series converge to double precision in a few terms there).
double kolmogorov_cdf(double x);

/// Weighted least squares y ~ X b with weights w (1/variance); returns coefficients and their
/// standard errors from (X' W X)^-1 (weights taken as known inverse variances) and the residual
/// chi-square.
struct WlsFit {
  std::vector<double> coef;
  std::vector<double> se;
  double chi2 = 0.0;
  std::size_t dof = 0;
};
WlsFit weighted_least_squares(const std::vector<std::vector<double>>& columns, std::span<const double> y,
                              std::span<const double> weights);

}  // namespace moelab
