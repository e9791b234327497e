// Routing-pattern counts: exact small cases (where the number of realisable patterns is known in
// closed form and every region has a non-negligible probability), the bounds' order, thread
// independence and determinism.
#include "moelab/bounds/pattern_counts.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/bounds/growth.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/parallel.hpp"

namespace mb = moelab::bounds;

TEST_CASE("pattern counts: exact small cases", "[bounds]") {
  SECTION("d = 1, T = 2, k = 1: the pattern is sign(w1 - w2): 2 patterns") {
    const auto r = mb::count_routing_patterns({.m = 7, .d = 1, .T = 2, .k = 1, .routers = 2000}, 3);
    CHECK(r.distinct_patterns == 2);
    CHECK(r.distinct_masks == 2);
  }
  SECTION("d = 2, T = 2, k = 1: m lines through 0 cut the plane of w1 - w2 into 2m sectors") {
    // Sectors have angular widths of the spacings of m uniform angles on [0, pi); with 40000 routers a
    // sector is missed with probability (1 - width/pi)^40000: negligible for widths > 1e-3 pi, and the
    // seed is fixed (the test is deterministic; the assertion documents the exact count).
    const auto r = mb::count_routing_patterns({.m = 4, .d = 2, .T = 2, .k = 1, .routers = 40000}, 5);
    CHECK(r.distinct_patterns == 8);
  }
  SECTION("d = 1, T = 3, k = 1: (argmax w, argmin w) decides every point: 6 patterns when both signs occur") {
    const auto r = mb::count_routing_patterns({.m = 10, .d = 1, .T = 3, .k = 1, .routers = 5000}, 7);
    CHECK(r.distinct_patterns == 6);
    CHECK(r.distinct_masks == 3);
  }
  SECTION("d = 1, T = 4: k = 1 and k = T - 1 (complement of the bottom-1) both give T (T - 1) = 12 patterns") {
    const auto a = mb::count_routing_patterns({.m = 6, .d = 1, .T = 4, .k = 1, .routers = 3000}, 9);
    const auto b = mb::count_routing_patterns({.m = 6, .d = 1, .T = 4, .k = 3, .routers = 3000}, 9);
    CHECK(a.distinct_patterns == 12);
    CHECK(b.distinct_patterns == 12);
  }
}

TEST_CASE("pattern counts sit below both upper bounds, the bounds are ordered as stated", "[bounds]") {
  auto gen_d = GENERATE(1, 2, 3);
  auto gen_T = GENERATE(3, 5, 8);
  const int k = gen_T / 2;
  const auto r = mb::count_routing_patterns({.m = 12, .d = gen_d, .T = gen_T, .k = k, .routers = 3000}, 11);
  CHECK(r.log_patterns <= r.log_arrangement_bound);
  CHECK(r.log_patterns <= r.log_eq13_bound);
  CHECK(r.log_patterns <= r.log_all_patterns + 1e-12);
  CHECK(r.distinct_masks <= static_cast<std::uint64_t>(std::llround(std::exp(moelab::log_binomial(gen_T, k)))));
}

TEST_CASE("pattern counts: exact growth values in one dimension", "[bounds]") {
  // d = 1: the scores w_j x order the experts by w for x > 0 and in reverse for x < 0, and 12 standard
  // normal points have both signs (probability 1 - 2^-11). Top-1: the pattern is (argmax w, argmin w),
  // an ordered pair of distinct experts: T (T - 1) patterns. Top-k with T = 2k: the k smallest w are the
  // complement of the k largest, so the pattern is the top-k set: C(T, k). 3000 routers see every
  // pattern (each has probability >= 1/20 here, by symmetry: the miss probability is < 20 (19/20)^3000 ~ 1e-65).
  struct Case {
    int T, k;
    std::uint64_t exact;
  };
  for (const Case c : {Case{2, 1, 2}, Case{3, 1, 6}, Case{5, 1, 20}, Case{4, 2, 6}, Case{6, 3, 20}}) {
    const auto r = mb::count_routing_patterns({.m = 12, .d = 1, .T = c.T, .k = c.k, .routers = 3000}, 11);
    INFO("T = " << c.T << ", k = " << c.k);
    CHECK(r.distinct_patterns == c.exact);
    // Control: the count of every tuple of masks (what a saturated estimate would report) is far above.
    CHECK(std::exp(r.log_all_patterns) > 10.0 * c.exact);
  }
}

namespace {

/// The exact number of top-k patterns in one dimension, by enumeration: with points of both signs the
/// pattern of a router w is (the top-k set of w, the top-k set of -w) (x > 0 orders the experts by w,
/// x < 0 by -w), a function of the ordering of w; every ordering has positive probability, so the count
/// is the number of distinct (top-k, bottom-k) pairs over the T! orderings.
std::uint64_t one_dimensional_patterns(int T, int k) {
  std::vector<int> order(static_cast<std::size_t>(T));
  std::iota(order.begin(), order.end(), 0);
  std::set<std::pair<std::uint64_t, std::uint64_t>> pairs;
  do {
    std::uint64_t top = 0, bottom = 0;
    for (int j = 0; j < k; ++j) {
      top |= std::uint64_t{1} << order[static_cast<std::size_t>(j)];
      bottom |= std::uint64_t{1} << order[static_cast<std::size_t>(T - 1 - j)];
    }
    pairs.emplace(top, bottom);
  } while (std::next_permutation(order.begin(), order.end()));
  return pairs.size();
}

}  // namespace

TEST_CASE("pattern counts in one dimension equal a brute-force enumeration over the orderings of w", "[bounds]") {
  // Cases beyond T (T - 1) and C(T, 2k): T = 5, k = 2 gives C(5, 2) C(3, 2) = 30 (disjoint top and bottom
  // pairs); T = 5, k = 3 gives 5 C(4, 2) = 30 (top and bottom triples share exactly the middle expert);
  // T = 6, k = 2 gives C(6, 2) C(4, 2) = 90. By symmetry each pattern has probability 1 / count, so 5000
  // routers miss one with probability < 90 (89/90)^5000 ~ 1e-22; 12 standard normal points have both
  // signs (the seed is fixed: the test is deterministic, the assertion documents the exact count).
  struct Case {
    int T, k;
    std::uint64_t by_hand;
  };
  for (const Case c : {Case{3, 1, 6}, Case{4, 1, 12}, Case{5, 2, 30}, Case{5, 3, 30}, Case{6, 2, 90}}) {
    INFO("T = " << c.T << ", k = " << c.k);
    const std::uint64_t exact = one_dimensional_patterns(c.T, c.k);
    CHECK(exact == c.by_hand);
    const auto r = mb::count_routing_patterns({.m = 12, .d = 1, .T = c.T, .k = c.k, .routers = 5000}, 17);
    CHECK(r.distinct_patterns == exact);
    // Control: the count one sign of points alone would give, C(T, k) (the pattern a function of the
    // top-k set), is below the exact count, so a simulator that lost the negative points would fail.
    const auto one_sign = static_cast<std::uint64_t>(std::llround(std::exp(moelab::log_binomial(c.T, c.k))));
    CHECK(one_sign < exact);
  }
}

TEST_CASE("pattern counts: the arrangement bound in closed form for d (T-1) = 1", "[bounds]") {
  // n = m hyperplanes in R^1: 1 + m cells.
  CHECK(std::abs(std::exp(mb::log_arrangement_pattern_bound(9, 1, 2)) - 10.0) < 1e-12);
}

TEST_CASE("pattern counts do not depend on the thread count", "[bounds]") {
  const mb::PatternCountParams p{.m = 20, .d = 3, .T = 6, .k = 2, .routers = 5000};
  moelab::set_num_threads(1);
  const auto one = mb::count_routing_patterns(p, 13);
  moelab::set_num_threads(2);
  const auto two = mb::count_routing_patterns(p, 13);
  moelab::set_num_threads(0);
  CHECK(one.distinct_patterns == two.distinct_patterns);
  CHECK(one.distinct_masks == two.distinct_masks);
}
