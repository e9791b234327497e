// Exact quantities of the granularity paper's appendix lemmas (lib/moelab/routing/appendix_lemmas.hpp):
// closed-form special cases, Monte-Carlo of the thin-cylinder moments (with controls at the nearest
// wrong value), and brute-force checks of the sharp constant of Lemma B.10.
#include "moelab/routing/appendix_lemmas.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/routing/region_masses.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using moelab::StreamTag;

TEST_CASE("thin cylinders: closed-form moments in the limits", "[routing][appendix]") {
  // Gaussian, j = 2: R^2 ~ Exp(1/2): mass 1 - e^(-rho^2/2); E[R^2 | R < rho] / 2 = 1 - (rho^2/2) e^(-a) / (1 - e^(-a)).
  for (double rho : {0.01, 0.5, 2.0}) {
    const double a = 0.5 * rho * rho, e = std::exp(-a);
    const auto c = rt::thin_cylinder(rt::InputLaw::gaussian, 10, 2, rho);
    CHECK_THAT(c.mass, WithinRel(-std::expm1(-a), 1e-12));
    CHECK_THAT(c.thin, WithinRel(1.0 - a * e / -std::expm1(-a), 1e-9));
    CHECK(c.bulk == 1.0);
  }
  // Wide cylinders are the whole space: thin -> 1 (Gaussian), thin = bulk = d/(d+2) (ball).
  CHECK_THAT(rt::thin_cylinder(rt::InputLaw::gaussian, 10, 3, 40.0).thin, WithinRel(1.0, 1e-12));
  const auto whole = rt::thin_cylinder(rt::InputLaw::ball, 9, 3, 3.0 - 1e-15);  // rho^2 / d = 1
  CHECK_THAT(whole.mass, WithinRel(1.0, 1e-12));
  CHECK_THAT(whole.thin, WithinRel(9.0 / 11.0, 1e-9));
  CHECK_THAT(whole.bulk, WithinRel(9.0 / 11.0, 1e-9));
  // Narrow: a uniform j-ball of radius rho in sqrt(d)-units has E R^2 = j rho^2 / (j + 2): thin -> rho^2/(j+2).
  CHECK_THAT(rt::thin_cylinder(rt::InputLaw::gaussian, 10, 3, 1e-3).thin, WithinRel(1e-6 / 5.0, 1e-5));
}

TEST_CASE("thin cylinders: Monte-Carlo moments agree, the unconditioned values are rejected", "[routing][appendix]") {
  const auto law = GENERATE(rt::InputLaw::gaussian, rt::InputLaw::ball);
  constexpr int d = 8, j = 2;
  const double rho = 1.2;
  const auto c = rt::thin_cylinder(law, d, j, rho);
  constexpr std::uint64_t n = 200000;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(n));
  rt::draw_points(law, 11, 0, 0, X);
  moelab::Welford inside, thin, bulk;
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    const double r2 = d * X.col(i).head(j).squaredNorm();
    const bool in = r2 < rho * rho;
    inside.add(in ? 1.0 : 0.0);
    if (in) thin.add(d * X(0, i) * X(0, i)), bulk.add(d * X(d - 1, i) * X(d - 1, i));
  }
  // 5 standard errors (binomial for the mass, Welford for the moments): a 6e-7 two-sided false alarm.
  CHECK_THAT(inside.mean(), WithinAbs(c.mass, 5 * inside.standard_error()));
  CHECK_THAT(thin.mean(), WithinAbs(c.thin, 5 * thin.standard_error()));
  CHECK_THAT(bulk.mean(), WithinAbs(c.bulk, 5 * bulk.standard_error()));
  // Controls at the nearest wrong values: the thin moment of a uniform disc of radius rho (the
  // density's curvature ignored: rho^2 / (j + 2)) and the unconditioned thin moment (1 or d/(d+2)).
  CHECK(std::abs(thin.mean() - rho * rho / (j + 2)) > 5 * thin.standard_error());
  const double uncond = law == rt::InputLaw::gaussian ? 1.0 : d / (d + 2.0);
  CHECK(std::abs(thin.mean() - uncond) > 5 * thin.standard_error());
}

TEST_CASE("Lemma B.10's sharp constant is attained and never beaten", "[routing][appendix]") {
  // For D = A1 - A2 and S = d E[xx'|U] = diag(lambda): tr(D' D S) / sum_{i > kappa} sigma_i^2(D) >= c*,
  // with equality for D = the projection on the r* smallest eigendirections.
  const moelab::RandomStream rs(3, StreamTag::property_test, 7);
  std::uint64_t u = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int d = 3 + trial % 6, kappa = trial % d;
    std::vector<double> lam(static_cast<std::size_t>(d));
    for (auto& l : lam) l = std::exp(3.0 * rs.normal(u++));
    std::sort(lam.begin(), lam.end());
    const double cs = rt::lemma_b10_sharp_constant(lam, kappa);
    const Eigen::VectorXd L = Eigen::Map<Eigen::VectorXd>(lam.data(), d);
    for (int rep = 0; rep < 20; ++rep) {
      Eigen::MatrixXd D(d, d);
      for (auto& v : D.reshaped()) v = rs.normal(u++);
      const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(D).singularValues();
      double tail = 0.0;
      for (int i = kappa; i < d; ++i) tail += sv(i) * sv(i);
      const double lhs = (D * L.asDiagonal() * D.transpose()).trace();
      CHECK(lhs >= cs * tail * (1 - 1e-12));
    }
    // Attainment: equal singular values on the r smallest directions, r the minimiser.
    double best = INFINITY;
    for (int r = kappa + 1; r <= d; ++r) {
      const double v = std::accumulate(lam.begin(), lam.begin() + r, 0.0) / (r - kappa);
      best = std::min(best, v);
    }
    CHECK_THAT(cs, WithinRel(best, 1e-14));
    // The two-level form agrees with the general one.
    const int nl = 1 + trial % (d - 1);
    std::vector<double> two(static_cast<std::size_t>(nl), lam[0]);
    two.insert(two.end(), static_cast<std::size_t>(d - nl), lam[static_cast<std::size_t>(d) - 1]);
    CHECK_THAT(rt::lemma_b10_sharp_constant(nl, lam[0], d - nl, lam[static_cast<std::size_t>(d) - 1], kappa),
               WithinRel(rt::lemma_b10_sharp_constant(two, kappa), 1e-14));
  }
}

TEST_CASE("chi-square tails, E exp(t|Z|) and tube probabilities against closed forms", "[routing][appendix]") {
  for (double z : {0.1, 1.0, 7.0, 50.0}) {
    CHECK_THAT(rt::chi2_upper_tail(2.0, z), WithinRel(std::exp(-0.5 * z), 1e-13));  // chi2_2 = Exp(1/2)
    CHECK_THAT(rt::chi2_lower_tail(1.0, z), WithinRel(std::erf(std::sqrt(0.5 * z)), 1e-13));
  }
  for (double sigma : {0.3, 1.0, 4.0})
    for (double t : {0.0, 0.5, 2.0}) {
      const double ts = t * sigma, closed = 2.0 * std::exp(0.5 * ts * ts) * 0.5 * std::erfc(-ts / std::sqrt(2.0));
      CHECK_THAT(rt::abs_normal_mgf(t, sigma), WithinRel(closed, 1e-11));
    }
  const std::vector<double> p0{0.0}, p2{0.3, -0.2};
  CHECK_THAT(rt::gaussian_tube_probability(p0, 0.7), WithinRel(std::erf(0.7 / std::sqrt(2.0)), 1e-13));
  // Ball in d = 3: x_1 has density (3/4)(1 - s^2): P[|x_1| <= a] = (3/2)(a - a^3/3).
  for (double t : {0.1, 0.9, 1.5}) {
    const double a = t / std::sqrt(3.0);
    CHECK_THAT(rt::ball_tube_probability(3, p0, t), WithinRel(1.5 * (a - a * a * a / 3.0), 1e-12));
  }
}

TEST_CASE("ball tube probability in two coordinates agrees with Monte-Carlo", "[routing][appendix]") {
  constexpr int d = 6;
  const std::vector<double> p{0.2, -0.1};
  const double t = 0.8, a = t / std::sqrt(static_cast<double>(d));
  const double exact = rt::ball_tube_probability(d, p, t);
  constexpr std::uint64_t n = 200000;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(n));
  rt::draw_points(rt::InputLaw::ball, 12, 0, 0, X);
  moelab::Welford w;
  for (Eigen::Index i = 0; i < X.cols(); ++i)
    w.add(std::abs(X(0, i) - p[0]) <= a && std::abs(X(1, i) - p[1]) <= a ? 1.0 : 0.0);
  CHECK_THAT(w.mean(), WithinAbs(exact, 5 * w.standard_error()));  // 5 binomial SE
  // Control: the product of the one-coordinate probabilities (ignoring the ball's dependence) is
  // the nearest plausible wrong value.
  const double product = rt::ball_tube_probability(d, std::vector<double>{p[0]}, t) * rt::ball_tube_probability(d, std::vector<double>{p[1]}, t);
  CHECK(std::abs(w.mean() - product) > 5 * w.standard_error());
}

TEST_CASE("the occupancy law: normalised, its mean, and small cases", "[routing][appendix]") {
  for (int d : {1, 3, 10})
    for (int n : {0, 1, 2, 7, 40}) {
      const auto law = rt::distinct_count_law(n, d);
      double total = 0.0, mean = 0.0;
      for (std::size_t x = 0; x < law.size(); ++x) total += law[x], mean += static_cast<double>(x) * law[x];
      CHECK_THAT(total, WithinAbs(1.0, 1e-13));
      CHECK_THAT(mean, WithinAbs(d * (1.0 - std::pow(1.0 - 1.0 / d, n)), 1e-12 * (1 + d)));  // E X_n
      if (n == 2) CHECK_THAT(law[1], WithinRel(1.0 / d, 1e-14));
    }
}

