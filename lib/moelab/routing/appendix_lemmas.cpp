#include "moelab/routing/appendix_lemmas.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include "moelab/core/error.hpp"
#include "moelab/core/normal.hpp"

namespace moelab::routing {

CylinderMoments thin_cylinder(InputLaw law, int d, int j, double rho) {
  MOELAB_EXPECT(d >= 2 && j >= 1 && j < d && rho > 0, "thin_cylinder needs d >= 2, 1 <= j < d, rho > 0");
  CylinderMoments c;
  if (law == InputLaw::gaussian) {
    // granularity, Lemma B.10 / B.5 with mu = N(0, I/d): sqrt(d) x ~ N(0, I_d).
    const double a = 0.5 * rho * rho;
    c.mass = boost::math::gamma_p(0.5 * j, a);
    c.thin = boost::math::gamma_p(0.5 * j + 1.0, a) / c.mass;  // E[R^2 | R^2 < rho^2] / j
    c.bulk = 1.0;
    return c;
  }
  // Ball: u = |x_{1..j}|^2 ~ Beta(j/2, b), b = (d - j)/2 + 1; E[u 1(u < a)] = (j/2)/(j/2 + b) I_a(j/2 + 1, b).
  const double a = std::min(1.0, rho * rho / d), alpha = 0.5 * j, b = 0.5 * (d - j) + 1.0;
  c.mass = boost::math::ibeta(alpha, b, a);
  const double mean_u = alpha / (alpha + b) * boost::math::ibeta(alpha + 1.0, b, a) / c.mass;
  c.thin = d * mean_u / j;
  c.bulk = d * (1.0 - mean_u) / (d - j + 2.0);
  return c;
}

double lemma_b10_sharp_constant(std::span<const double> ascending, int kappa) {
  const int d = static_cast<int>(ascending.size());
  if (kappa >= d) return std::numeric_limits<double>::infinity();
  MOELAB_EXPECT(kappa >= 0, "lemma_b10_sharp_constant needs kappa >= 0");
  double prefix = 0.0, best = std::numeric_limits<double>::infinity();
  for (int r = 1; r <= d; ++r) {
    prefix += ascending[static_cast<std::size_t>(r - 1)];
    if (r > kappa) best = std::min(best, prefix / (r - kappa));
  }
  return best;
}

double lemma_b10_sharp_constant(int n_low, double low, int n_high, double high, int kappa) {
  MOELAB_EXPECT(n_low >= 0 && n_high >= 0 && low <= high && kappa >= 0, "lemma_b10_sharp_constant: two-level spectrum");
  const int d = n_low + n_high;
  if (kappa >= d) return std::numeric_limits<double>::infinity();
  const auto prefix = [&](int r) { return r <= n_low ? r * low : n_low * low + (r - n_low) * high; };
  double best = std::numeric_limits<double>::infinity();
  for (int r : {kappa + 1, n_low, n_low + 1, d})
    if (r > kappa && r <= d) best = std::min(best, prefix(r) / (r - kappa));
  return best;
}

double chi2_lower_tail(double d, double z) { return z <= 0 ? 0.0 : boost::math::gamma_p(0.5 * d, 0.5 * z); }
double chi2_upper_tail(double d, double z) { return z <= 0 ? 1.0 : boost::math::gamma_q(0.5 * d, 0.5 * z); }

double abs_normal_mgf(double t, double sigma) {
  MOELAB_EXPECT(sigma > 0, "abs_normal_mgf needs sigma > 0");
  using boost::math::quadrature::gauss_kronrod;
  // E exp(t|Z|) = 2 int_0^inf exp(t z) phi(z / sigma) / sigma dz; the integrand peaks at z = t sigma^2.
  const auto f = [&](double z) { return 2.0 * std::exp(t * z - 0.5 * z * z / (sigma * sigma)) / (sigma * std::sqrt(2.0 * M_PI)); };
  const double peak = std::max(0.0, t * sigma * sigma), hi = peak + 40.0 * sigma;
  double s = gauss_kronrod<double, 61>::integrate(f, 0.0, peak, 15, 1e-14);
  s += gauss_kronrod<double, 61>::integrate(f, peak, hi, 15, 1e-14);
  return s;
}

namespace {
/// P[x_1 <= s] for x ~ Unif[B_D] in dimension D (x_1^2 ~ Beta(1/2, (D + 1)/2)).
double ball_coordinate_cdf(int D, double s) {
  if (s <= -1) return 0.0;
  if (s >= 1) return 1.0;
  const double h = 0.5 * boost::math::ibeta(0.5, 0.5 * (D + 1), s * s);
  return s < 0 ? 0.5 - h : 0.5 + h;
}
}  // namespace

double gaussian_tube_probability(std::span<const double> p, double t) {
  double pr = 1.0;
  for (double pi : p) pr *= normal_cdf(pi + t) - normal_cdf(pi - t);
  return pr;
}

double ball_tube_probability(int d, std::span<const double> p, double t) {
  MOELAB_EXPECT(d >= 3 && (p.size() == 1 || p.size() == 2) && t > 0, "ball_tube_probability needs d >= 3, n = 1 or 2, t > 0");
  const double a = t / std::sqrt(static_cast<double>(d));
  if (p.size() == 1) return ball_coordinate_cdf(d, p[0] + a) - ball_coordinate_cdf(d, p[0] - a);
  // n = 2: x_1 has density (1 - s^2)^((d-1)/2) / B(1/2, (d+1)/2); given x_1 = s, x_2 / sqrt(1 - s^2) is the
  // first coordinate of Unif[B_{d-1}].
  using boost::math::quadrature::gauss_kronrod;
  const double norm = boost::math::beta(0.5, 0.5 * (d + 1));
  const auto f = [&](double s) {
    const double rad = std::sqrt(std::max(0.0, 1.0 - s * s));
    if (rad == 0) return 0.0;
    const double cond = ball_coordinate_cdf(d - 1, (p[1] + a) / rad) - ball_coordinate_cdf(d - 1, (p[1] - a) / rad);
    return std::pow(1.0 - s * s, 0.5 * (d - 1)) * cond / norm;
  };
  // x_1's density is below (1 - s^2)^((d-1)/2) <= exp(-(d-1) s^2 / 2) < e^-72 beyond |s| = 12/sqrt(d-1):
  // clipping there changes the probability by less than 1e-30 and keeps the peak resolved.
  const double reach = std::min(1.0, 12.0 / std::sqrt(d - 1.0));
  const double lo = std::max(-reach, p[0] - a), hi = std::min(reach, p[0] + a);
  if (lo >= hi) return 0.0;
  // Relative tolerance 1e-8: the inner probability is a difference of two incomplete-beta values near
  // 1/2, so a box of probability P carries a rounding error ~1e-16 / P (a tighter target never converges).
  return gauss_kronrod<double, 61>::integrate(f, lo, hi, 10, 1e-8);
}

std::vector<double> distinct_count_law(int n, int d) {
  MOELAB_EXPECT(n >= 0 && d >= 1, "distinct_count_law needs n >= 0, d >= 1");
  const int top = std::min(n, d);
  std::vector<double> P(static_cast<std::size_t>(top) + 1, 0.0), Q(P.size());
  P[0] = 1.0;
  const double dd = d;
  for (int i = 0; i < n; ++i) {
    std::fill(Q.begin(), Q.end(), 0.0);
    const int hi = std::min(i, top);
    for (int x = 0; x <= hi; ++x) {
      if (P[static_cast<std::size_t>(x)] == 0) continue;
      Q[static_cast<std::size_t>(x)] += P[static_cast<std::size_t>(x)] * (x / dd);
      if (x < top) Q[static_cast<std::size_t>(x) + 1] += P[static_cast<std::size_t>(x)] * ((dd - x) / dd);
    }
    std::swap(P, Q);
  }
  return P;
}

}  // namespace moelab::routing
