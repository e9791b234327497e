#include "moelab/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Dense>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

namespace moelab {

void Welford::add(double x) {
  ++n_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

void Welford::merge(const Welford& o) {
  if (o.n_ == 0) return;
  if (n_ == 0) {
    *this = o;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_);
  const double n = na + nb;
  const double delta = o.mean_ - mean_;
  mean_ += delta * nb / n;
  m2_ += o.m2_ + delta * delta * na * nb / n;
  n_ += o.n_;
}

double Welford::variance() const {
  return n_ < 2 ? std::numeric_limits<double>::quiet_NaN() : m2_ / static_cast<double>(n_ - 1);
}
double Welford::stddev() const { return std::sqrt(variance()); }
double Welford::standard_error() const { return std::sqrt(variance() / static_cast<double>(n_)); }

Welford Welford::scaled(double a) const {
  Welford w = *this;
  w.mean_ *= a;
  w.m2_ *= a * a;
  return w;
}

Welford summarize(std::span<const double> xs) {
  Welford w;
  for (double x : xs) w.add(x);
  return w;
}

double normal_quantile(double p) { return boost::math::quantile(boost::math::normal_distribution<>(), p); }

double student_t_quantile(double p, double dof) {
  return boost::math::quantile(boost::math::students_t_distribution<>(dof), p);
}

Interval t_interval(const Welford& w, double level) {
  MOELAB_EXPECT(w.count() >= 2, "t_interval needs at least two samples");
  const double q = student_t_quantile(0.5 + level / 2.0, static_cast<double>(w.count() - 1));
  const double h = q * w.standard_error();
  return {w.mean() - h, w.mean() + h};
}

namespace {
double t_tail(double t, double dof) {
  // P(T >= t) for t >= 0, without cancellation.
  return boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<>(dof), t));
}
}  // namespace

double t_test_two_sided(const Welford& w, double mu0) {
  MOELAB_EXPECT(w.count() >= 2, "t test needs at least two samples");
  const double se = w.standard_error();
  if (!(se > 0.0)) return w.mean() == mu0 ? 1.0 : 0.0;
  const double t = std::abs(w.mean() - mu0) / se;
  return std::min(1.0, 2.0 * t_tail(t, static_cast<double>(w.count() - 1)));
}

double t_test_greater(const Welford& w, double mu0) {
  MOELAB_EXPECT(w.count() >= 2, "t test needs at least two samples");
  const double se = w.standard_error();
  if (!(se > 0.0)) return w.mean() > mu0 ? 0.0 : 1.0;
  const double t = (w.mean() - mu0) / se;
  const double dof = static_cast<double>(w.count() - 1);
  return t >= 0 ? t_tail(t, dof) : 1.0 - t_tail(-t, dof);
}

double z_test_two_sided(double z) {
  if (std::isnan(z)) return 1.0;
  return std::min(1.0, 2.0 * z_test_greater(std::abs(z)));
}

double z_test_greater(double z) {
  if (std::isnan(z)) return 1.0;
  return boost::math::cdf(boost::math::complement(boost::math::normal_distribution<>(), z));
}

WlsFit weighted_least_squares(const std::vector<std::vector<double>>& columns, std::span<const double> y,
                              std::span<const double> weights) {
  const auto n = static_cast<Eigen::Index>(y.size());
  const auto p = static_cast<Eigen::Index>(columns.size());
  MOELAB_EXPECT(n > p, "weighted least squares needs more points than coefficients");
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd Y(n), W(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    Y(i) = y[static_cast<std::size_t>(i)];
    W(i) = weights[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < p; ++j) X(i, j) = columns[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)];
  }
  const Eigen::MatrixXd XtW = X.transpose() * W.asDiagonal();
  const Eigen::MatrixXd A = XtW * X;
  // Column scaling keeps the normal equations well conditioned when columns are 1/n and 1/n^2.
  Eigen::VectorXd scale = A.diagonal().cwiseSqrt();
  const Eigen::MatrixXd As = scale.cwiseInverse().asDiagonal() * A * scale.cwiseInverse().asDiagonal();
  const Eigen::MatrixXd As_inv = As.ldlt().solve(Eigen::MatrixXd::Identity(p, p));
  const Eigen::MatrixXd A_inv = scale.cwiseInverse().asDiagonal() * As_inv * scale.cwiseInverse().asDiagonal();
  const Eigen::VectorXd b = A_inv * (XtW * Y);
  WlsFit fit;
  fit.coef.assign(b.data(), b.data() + p);
  for (Eigen::Index j = 0; j < p; ++j) fit.se.push_back(std::sqrt(A_inv(j, j)));
  const Eigen::VectorXd r = Y - X * b;
  fit.chi2 = (r.array().square() * W.array()).sum();
  fit.dof = static_cast<std::size_t>(n - p);
  return fit;
}

double ks_statistic(std::span<const double> sorted, const std::function<double(double)>& cdf,
                    const std::function<double(double)>& left_cdf) {
  MOELAB_EXPECT(!sorted.empty(), "KS statistic of an empty sample");
  MOELAB_EXPECT(std::is_sorted(sorted.begin(), sorted.end()), "KS sample must be sorted ascending");
  const double n = static_cast<double>(sorted.size());
  double d = 0.0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i + 1;  // [i, j): a run of equal values, one ECDF jump from i/n to j/n
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const double x = sorted[i];
    const double f = cdf(x), f_left = left_cdf ? left_cdf(x) : f;
    d = std::max({d, std::abs(f_left - static_cast<double>(i) / n), std::abs(f - static_cast<double>(j) / n)});
    i = j;
  }
  return d;
}

double kolmogorov_cdf(double x) {
  if (x <= 0.0) return 0.0;
  constexpr double pi = 3.14159265358979323846;
  if (x < 1.0) {
    // Jacobi-theta form; at x < 1 the first term dominates and 6 terms reach double precision.
    double sum = 0.0;
    for (int k = 1; k <= 6; ++k) {
      const double m = 2.0 * k - 1.0;
      sum += std::exp(-m * m * pi * pi / (8.0 * x * x));
    }
    return std::sqrt(2.0 * pi) / x * sum;
  }
  double sum = 0.0;
  for (int k = 1; k <= 20; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-18) break;
  }
  return std::max(0.0, 1.0 - 2.0 * sum);
}

double ks_pvalue(double d, std::size_t n) {
  MOELAB_EXPECT(n > 0, "KS p-value needs n > 0");
  const double rn = std::sqrt(static_cast<double>(n));
  return std::clamp(1.0 - kolmogorov_cdf(d * (rn + 0.12 + 0.11 / rn)), 0.0, 1.0);
}

}  // namespace moelab
