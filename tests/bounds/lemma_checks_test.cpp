// Monte-Carlo checks of Lemmas 5, 7-11 (compositional paper, Appendix B) at fixed seeds: each
// statement (printed or derived) that must hold is not rejected, each negative control is rejected.
// Decision rule used throughout: a bound is "rejected" when its excess is above 4 standard errors of
// the paired per-trial differences (one-sided p < 3.2e-5), "kept" when the excess is below
// 3 standard errors; tolerances thus scale as 1/sqrt(trials).
#include "moelab/bounds/lemma_checks.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

using Catch::Matchers::WithinAbs;
namespace mb = moelab::bounds;

namespace {

bool kept(const mb::InequalityCheck& c) { return c.exact ? c.excess <= 0.0 : c.excess < 3.0 * c.excess_se; }
bool rejected(const mb::InequalityCheck& c) { return c.exact ? c.excess > 0.0 : c.excess > 4.0 * c.excess_se; }

using mb::partition_gate;
using mb::uniform_domain;
Eigen::MatrixXd thresholds(int n) { return mb::threshold_class(n); }

}  // namespace

TEST_CASE("Lemma 5 as printed fails for routed constant experts, the derived T w_max bound holds", "[bounds]") {
  // Experts are the constants 0 and 1 (R_m(H) ~ 1/sqrt(2 pi m)); routing by x mod T makes F|mu the
  // piecewise-constant functions on T cells, E phi ~ sqrt(2T) R_m(H) > 2 R_m(H) for T > 2.
  const int n = 64, m = 64;
  Eigen::MatrixXd experts(2, n);
  experts.row(0).setZero();
  experts.row(1).setOnes();
  const Eigen::VectorXd labels = Eigen::VectorXd::Zero(n);
  const auto r8 = mb::check_lemma5(uniform_domain(n), labels, experts, {partition_gate(8, n)}, 1.0, m, 4000, 5);
  CHECK(r8.T == 8);
  CHECK(r8.max_gate_weight == 1.0);
  CHECK(rejected(r8.printed));
  CHECK(kept(r8.derived));
  CHECK(r8.phi > 1.5 * 2.0 * r8.rademacher);  // sqrt(2T)/2 = 2 in the large-m limit
  // T = 1 (no routing): F|mu = H, and the printed bound holds (phi = 0 for constant experts).
  const auto r1 = mb::check_lemma5(uniform_domain(n), labels, experts, {partition_gate(1, n)}, 1.0, m, 4000, 5);
  CHECK(kept(r1.printed));
  CHECK(kept(r1.derived));
}

TEST_CASE("Lemma 5 derived bound holds for random binary experts with labels and C < 1", "[bounds]") {
  const int n = 32, m = 40, T = 4;
  Eigen::MatrixXd experts(6, n);
  Eigen::VectorXd labels(n);
  for (int x = 0; x < n; ++x) {
    labels(x) = (x * 7 % 5) < 2 ? 1.0 : 0.0;
    for (int f = 0; f < 6; ++f) experts(f, x) = ((x * (f + 3) + f) % 7) < 3 ? 1.0 : 0.0;
  }
  // Two gates: the partition and a soft gate (weights 1/2 on x mod T and (x + 1) mod T).
  Eigen::MatrixXd soft = Eigen::MatrixXd::Zero(T, n);
  for (int x = 0; x < n; ++x) {
    soft(x % T, x) += 0.5;
    soft((x + 1) % T, x) += 0.5;
  }
  const auto r = mb::check_lemma5(uniform_domain(n), labels, experts, {partition_gate(T, n), soft}, 0.5, m, 4000, 6);
  CHECK(kept(r.derived));
  CHECK(r.phi > 0.0);
}

TEST_CASE("Lemma 7 (with L_D) holds for thresholds, the 2 eps ghost threshold is rejected", "[bounds]") {
  const int n = 100, m = 50;
  const double eps = 1.7 / std::sqrt(m);  // factor 1 - 2 exp(-1.445) = 0.53, P(sup |L_S - L_D| > eps) ~ 0.5%
  const auto r = mb::check_lemma7(uniform_domain(n), thresholds(n), m, eps, 20000, 7);
  CHECK_THAT(r.factor, WithinAbs(1.0 - 2.0 * std::exp(-0.5 * 1.7 * 1.7), 1e-15));
  CHECK(r.p_uniform > 0.0);
  CHECK(kept(r.statement));
  CHECK(rejected(r.control));
}

TEST_CASE("Lemma 8 holds for thresholds, the halved bound is rejected", "[bounds]") {
  // Large m: E sup (L_S - L_S') ~ 0.886/sqrt(m) (Brownian bridge), R_m ~ 0.798/sqrt(m) (random walk).
  const int n = 100, m = 50;
  const auto r = mb::check_lemma8(uniform_domain(n), thresholds(n), m, 20000, 8);
  CHECK(kept(r.statement));
  CHECK(rejected(r.control));
  CHECK(r.ghost_gap < 2.0 * r.rademacher);
}

TEST_CASE("Lemma 9 contraction holds per sample, the halved constant is rejected for affine phi", "[bounds]") {
  const int n = 40, m = 12;
  Eigen::MatrixXd values(10, n);
  for (int f = 0; f < 10; ++f)
    for (int x = 0; x < n; ++x) values(f, x) = std::sin(0.3 * (f + 1) * x + f);
  // phi(t) = 2t - 1 (L = 2) gives R(phi o F) = 2 R(F) exactly: the control at L/2 = 1 fails by factor 2.
  const auto affine = mb::check_lemma9(uniform_domain(n), values, [](double t) { return 2.0 * t - 1.0; }, 2.0, m, 300, 9);
  CHECK(affine.max_sample_excess <= 1e-12);
  CHECK(kept(affine.statement));
  CHECK(rejected(affine.control));
  // phi = |t| and tanh(t) (L = 1): the statement still holds on every sample.
  for (auto phi : {+[](double t) { return std::abs(t); }, +[](double t) { return std::tanh(t); }}) {
    const auto r = mb::check_lemma9(uniform_domain(n), values, phi, 1.0, m, 300, 10);
    CHECK(r.max_sample_excess <= 1e-12);
    CHECK(kept(r.statement));
  }
}

TEST_CASE("Lemma 10: constant convex weights keep R(H), x-dependent gates (Eq. 25) exceed it", "[bounds]") {
  const int n = 48, m = 30, T = 3;
  const Eigen::MatrixXd experts = mb::cosine_class(5, n);
  const auto constant = mb::simplex_vertex_gates(T, n);
  const auto r = mb::check_lemma10(uniform_domain(n), experts, constant, {partition_gate(T, n)}, m, 4000, 11);
  CHECK(kept(r.statement));
  CHECK_THAT(r.equality_gap, WithinAbs(0.0, 1e-12));  // vertices included: sup_conv = sup_H on every draw
  CHECK(rejected(r.control));
  CHECK(r.rademacher_gated > r.rademacher_experts);
}

TEST_CASE("Lemma 11 bounded differences hold, Eq. 16's exp(-2 m t^2) is rejected, exp(-m t^2) kept", "[bounds]") {
  // One Bernoulli(1/2) loss: phi = (Bin(m) - Bin(m))/m, P(phi >= t) ~ P(Z >= t sqrt(2m)); at
  // t sqrt(2m) = 2.5: ~0.0062 > exp(-6.25) = 0.0019 (printed) and < exp(-3.125) = 0.044 (derived).
  const int m = 100;
  Eigen::MatrixXd loss(1, 2);
  loss << 0.0, 1.0;
  const auto r = mb::check_lemma11(uniform_domain(2), loss, m, 2.5 / std::sqrt(2.0 * m), 20000, 12);
  CHECK(kept(r.bounded_difference));
  CHECK(rejected(r.bounded_difference_control));  // a changed point moves phi by exactly 1/m half the time
  CHECK_THAT(r.max_scaled_difference, WithinAbs(1.0, 1e-12));
  CHECK(kept(r.mcdiarmid_derived));
  CHECK(rejected(r.mcdiarmid_printed));
  // A richer class (thresholds): bounded differences still hold.
  const auto th = mb::check_lemma11(uniform_domain(30), thresholds(30), 40, 0.2, 2000, 13);
  CHECK(kept(th.bounded_difference));
  CHECK(th.max_scaled_difference <= 1.0 + 1e-12);
}
