// The combinatorial number system (lib/moelab/routing/subset_rank.hpp): exhaustive bijection checks
// for every (m, k) with m <= 12, binomial identities, and the colex order.
#include "moelab/routing/subset_rank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"

namespace rt = moelab::routing;

TEST_CASE("binomial coefficients satisfy Pascal's rule and overflow is detected", "[routing][rank]") {
  for (int n = 1; n <= 60; ++n)
    for (int k = 1; k < n; ++k) CHECK(rt::binomial(n, k) == rt::binomial(n - 1, k - 1) + rt::binomial(n - 1, k));
  CHECK(rt::binomial(256, 8) == 409663695276000ull);  // granularity paper, Sec. 1: "> 4 x 10^14"
  CHECK(rt::binomial(67, 33) == 14226520737620288370ull);  // the largest central one below 2^64
  CHECK(rt::binomial_fits(67, 33));
  CHECK_FALSE(rt::binomial_fits(68, 34));
  CHECK(rt::binomial(5, 6) == 0);
}

TEST_CASE("rank is a bijection onto 0 .. C(m, k) - 1 in colex order, exhaustively for m <= 12", "[routing][rank]") {
  for (int m = 1; m <= 12; ++m) {
    for (int k = 1; k <= m; ++k) {
      const rt::SubsetRanker ranker(m, k);
      REQUIRE(ranker.count() == rt::binomial(m, k));
      // Enumerate all k-subsets in colex order (next subset: Gosper's hack on bitmasks of m bits,
      // which increases the bitmask value, i.e. colex order of the sets).
      std::uint64_t expected = 0;
      for (std::uint32_t mask = (1u << k) - 1; mask < (1u << m);) {
        std::vector<int> s;
        for (int j = 0; j < m; ++j)
          if (mask >> j & 1u) s.push_back(j);
        REQUIRE(ranker.rank(s) == expected);
        REQUIRE(ranker.unrank(expected) == s);
        ++expected;
        const std::uint32_t c = mask & (~mask + 1u), r = mask + c;
        mask = (((r ^ mask) >> 2) / c) | r;
      }
      CHECK(expected == ranker.count());
    }
  }
}

TEST_CASE("rank_unsorted ignores the order of the indices", "[routing][rank]") {
  const rt::SubsetRanker ranker(40, 6);
  const moelab::RandomStream rs(3, moelab::StreamTag::property_test, 0);
  for (std::uint64_t t = 0; t < 500; ++t) {
    // A random rank, its subset, shuffled by a random permutation: same rank.
    const auto r = static_cast<std::uint64_t>(rs.uniform(2 * t) * static_cast<double>(ranker.count()));
    std::vector<int> s = ranker.unrank(r);
    std::vector<int> perm(s.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = perm.size() - 1; i > 0; --i)
      std::swap(perm[i], perm[static_cast<std::size_t>(rs.uniform(2 * t + 1 + 1000 * i) * static_cast<double>(i + 1))]);
    std::vector<int> shuffled(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) shuffled[i] = s[static_cast<std::size_t>(perm[i])];
    CHECK(ranker.rank_unsorted(shuffled) == r);
    CHECK(shuffled == s);
  }
}

TEST_CASE("rank and unrank agree at the edges of large spaces", "[routing][rank]") {
  const rt::SubsetRanker ranker(256, 8);  // DeepSeek-V3's configuration count
  CHECK(ranker.count() == 409663695276000ull);
  CHECK(ranker.unrank(0) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(ranker.unrank(ranker.count() - 1) == std::vector<int>{248, 249, 250, 251, 252, 253, 254, 255});
  for (std::uint64_t r : {1ull, 12345678901ull, 409663695275999ull / 3, 409663695275998ull}) {
    const auto s = ranker.unrank(r);
    CHECK(std::is_sorted(s.begin(), s.end()));
    CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
    CHECK(ranker.rank(s) == r);
  }
  // Complement symmetry: S -> [m] \ S reverses colex order (the largest element where two sets
  // differ changes sides), so rank_k(S) + rank_{m-k}([m] \ S) = C(m, k) - 1.
  const rt::SubsetRanker a(14, 5), b(14, 9);
  for (std::uint64_t r = 0; r < a.count(); ++r) {
    const auto s = a.unrank(r);
    std::vector<int> comp;
    for (int j = 0; j < 14; ++j)
      if (!std::binary_search(s.begin(), s.end(), j)) comp.push_back(j);
    REQUIRE(a.rank(s) + b.rank(comp) == a.count() - 1);
  }
}
