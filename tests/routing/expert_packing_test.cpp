// Random constant experts (lib/moelab/routing/expert_packing.hpp, Lemma 3.3 / A.8): the exhaustive pair
// check against brute force, the laws of the proof, and the union bounds.
#include "moelab/routing/expert_packing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/stats.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("check_packing agrees with a brute-force loop over all pairs", "[routing][packing]") {
  const int m = GENERATE(4, 7);
  const int k = GENERATE(1, 2, 3);
  const int d = 12;
  const Eigen::MatrixXd U = rt::random_constant_experts(m, d, k, 3, static_cast<std::uint64_t>(m * 10 + k));
  const auto pc = rt::check_packing(U, k);
  const rt::SubsetRanker ranker(m, k);
  const std::uint64_t C = ranker.count();
  double max_norm2 = 0, min_sep = INFINITY, min_d2 = INFINITY;
  for (std::uint64_t s = 0; s < C; ++s) {
    Eigen::VectorXd us = Eigen::VectorXd::Zero(d);
    const auto a = ranker.unrank(s);
    for (int j : a) us += U.row(j).transpose();
    max_norm2 = std::max(max_norm2, us.squaredNorm());
    for (std::uint64_t t = s + 1; t < C; ++t) {
      Eigen::VectorXd ut = Eigen::VectorXd::Zero(d);
      const auto b = ranker.unrank(t);
      for (int j : b) ut += U.row(j).transpose();
      std::vector<int> sym;
      std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(sym));
      min_sep = std::min(min_sep, (us - ut).squaredNorm() * 4 * k / static_cast<double>(sym.size()));
      min_d2 = std::min(min_d2, (us - ut).squaredNorm());
    }
  }
  // Same sums in a different order (Gram matrix vs explicit vectors): agreement to rounding.
  CHECK_THAT(pc.max_norm2, WithinRel(max_norm2, 1e-12));
  if (C > 1) {
    CHECK_THAT(pc.min_separation, WithinRel(min_sep, 1e-10));
    CHECK_THAT(pc.min_distance2, WithinRel(min_d2, 1e-10));
    CHECK(pc.pairs == C * (C - 1) / 2);
  }
  // Permuting the experts permutes the configurations and leaves both extremes unchanged.
  Eigen::MatrixXd P = U.colwise().reverse();
  const auto pp = rt::check_packing(P, k);
  CHECK_THAT(pp.max_norm2, WithinRel(pc.max_norm2, 1e-12));
  if (C > 1) CHECK_THAT(pp.min_separation, WithinRel(pc.min_separation, 1e-10));
}

TEST_CASE("expert sums have the laws of the proof of Lemma A.8", "[routing][packing]") {
  // u_S ~ N(0, I/(2d)): E||u_S||^2 = 1/2, Var = 1/(2d) (chi2_d / (2d)). 4000 experts draws, one S each.
  constexpr int m = 6, k = 3, d = 20, T = 4000;
  moelab::Welford n2;
  for (int t = 0; t < T; ++t) {
    const Eigen::MatrixXd U = rt::random_constant_experts(m, d, k, 4, static_cast<std::uint64_t>(t));
    n2.add((U.row(0) + U.row(1) + U.row(2)).squaredNorm());
  }
  CHECK_THAT(n2.mean(), WithinAbs(0.5, 5 * std::sqrt(1.0 / (2.0 * d) / T)));
  CHECK_THAT(n2.variance(), WithinRel(1.0 / (2.0 * d), 5 * std::sqrt(2.0 / T) * 1.3));  // SE of a variance ~ var sqrt((kurt - 1)/T), kurt <= 1.3 x normal's
  // Controls at the nearest wrong values: the experts' variance 1/(2dk) off by 6.7% (1/(2d(k + 0.2)))
  // gives E|u_S|^2 = k/(2(k + 0.2)) = 0.46875 (12.5 SE below 1/2); a variance 1/(2d) x (1 + 12 x
  // 1.3 sqrt(2/T)) (12 of the tolerance's SE above) must be rejected too.
  const double se_mean = std::sqrt(1.0 / (2.0 * d) / T);
  CHECK(std::abs(n2.mean() - k / (2.0 * (k + 0.2))) > 5 * se_mean);
  CHECK(std::abs(n2.variance() / (1.0 / (2.0 * d)) - (1.0 + 12 * 1.3 * std::sqrt(2.0 / T))) > 5 * 1.3 * std::sqrt(2.0 / T));
}

TEST_CASE("the chi-square tails sit below their Laurent-Massart bounds and the union bounds order", "[routing][packing]") {
  for (int d : {4, 16, 64, 256, 1024}) {
    CHECK(rt::packing_unbounded_probability(d) <= std::exp(-d / 8.0));
    CHECK(rt::packing_unseparated_probability(d) <= std::exp(-d / 16.0));
    CHECK(rt::packing_failure_union_bound(10, 3, d, false) <= rt::packing_failure_union_bound(10, 3, d, true));
  }
  // d = 2: P[chi2_2 > 4] = e^-2, P[chi2_2 < 1] = 1 - e^(-1/2) (exponential law).
  CHECK_THAT(rt::packing_unbounded_probability(2), WithinRel(std::exp(-2.0), 1e-12));
  CHECK_THAT(rt::packing_unseparated_probability(2), WithinRel(1 - std::exp(-0.5), 1e-12));
  const int dp = rt::packing_sufficient_dimension(10, 3, 0.1, true), de = rt::packing_sufficient_dimension(10, 3, 0.1, false);
  CHECK(de < dp);
  CHECK(rt::packing_failure_union_bound(10, 3, dp, true) <= 0.1);
  CHECK(rt::packing_failure_union_bound(10, 3, dp - 1, true) > 0.1);
}
