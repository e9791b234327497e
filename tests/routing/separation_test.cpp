// The piecewise-constant separation in miniature (lib/moelab/routing/separation.hpp, Theorem 3.1):
// exact students, the trivial student, the floor, and the k-sum construction.
#include "moelab/routing/separation.hpp"

#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include "moelab/routing/expert_packing.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("the teacher's own regions and the full k-sum student reproduce f exactly", "[routing][separation]") {
  constexpr int m = 7, k = 3, d = 24;
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(m, d, 11, 0), U = rt::random_constant_experts(m, d, k, 11, 0);
  const double delta = rt::check_packing(U, k).min_distance2;
  const auto same = rt::piecewise_constant_separation(R, k, U, R, k, delta, rt::InputLaw::gaussian, 20000, 11, 1);
  CHECK_THAT(same.error, WithinAbs(0.0, 1e-12));
  CHECK_THAT(same.coverage, WithinRel(1.0, 1e-12));
  std::vector<std::uint64_t> all(rt::binomial(m, k));
  std::iota(all.begin(), all.end(), 0);
  const auto ksum = rt::piecewise_constant_separation(R, k, U, rt::k_sum_routing_vectors(R, k, all), 1, delta, rt::InputLaw::ball, 20000, 11, 2);
  CHECK_THAT(ksum.error, WithinAbs(0.0, 1e-12));
  CHECK_THAT(ksum.floor, WithinAbs(0.0, 1e-15));  // coverage 1 up to rounding of the sum
}

TEST_CASE("one student region: the error is the variance of f", "[routing][separation]") {
  constexpr int m = 6, k = 2, d = 16;
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(m, d, 12, 0), U = rt::random_constant_experts(m, d, k, 12, 0);
  // A (1, 1) student: one region, v = E f. Error = E||f||^2 - ||E f||^2 (plug-in: exactly, with the
  // same points).
  const Eigen::MatrixXd one = rt::gaussian_routing_vectors(1, d, 12, 1);
  const auto r = rt::piecewise_constant_separation(R, k, U, one, 1, 0.0, rt::InputLaw::gaussian, 30000, 12, 1);
  CHECK(r.cells_hit == 1);
  const auto same = rt::piecewise_constant_separation(R, k, U, R, k, 0.0, rt::InputLaw::gaussian, 30000, 12, 1);
  CHECK_THAT(same.teacher_norm2, WithinRel(r.teacher_norm2, 1e-12));
  // Bias correction of one cell: n / (n - 1).
  CHECK_THAT(r.error, WithinRel(r.error_plugin * 30000.0 / 29999.0, 1e-12));
  CHECK(r.relative_error < 1.0);
  CHECK(r.relative_error > 0.5);
}

TEST_CASE("the separation floor holds for random students", "[routing][separation]") {
  constexpr int m = 8, k = 2, d = 48;
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(m, d, 13, 0), U = rt::random_constant_experts(m, d, k, 13, 0);
  const double delta = rt::check_packing(U, k).min_distance2;
  for (int s = 0; s < 4; ++s) {
    const auto sub = rt::random_configurations(28, static_cast<std::uint64_t>(4 + 6 * s), 13, static_cast<std::uint64_t>(s));
    const auto r = rt::piecewise_constant_separation(R, k, U, rt::k_sum_routing_vectors(R, k, sub), 1, delta, rt::InputLaw::gaussian, 20000,
                                                     13, 10 + static_cast<std::uint64_t>(s));
    // A theorem about the exact masses; with plug-in masses of the same sample it holds exactly too
    // (the argument applies to the empirical measure).
    CHECK(r.error_plugin >= r.floor);
    CHECK(r.coverage <= 1.0);
  }
}

TEST_CASE("random configurations are distinct, sorted and in range", "[routing][separation]") {
  const auto c = rt::random_configurations(1000, 300, 3, 0);
  CHECK(c.size() == 300);
  CHECK(std::is_sorted(c.begin(), c.end()));
  CHECK(std::adjacent_find(c.begin(), c.end()) == c.end());
  CHECK(c.back() < 1000);
  CHECK(rt::random_configurations(10, 10, 3, 0) == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}
