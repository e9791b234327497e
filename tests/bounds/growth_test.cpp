// Growth functions in log space against exact integer arithmetic (unsigned __int128) for small
// arguments, the orderings between the bounds, and no overflow at the paper's sizes.
#include "moelab/bounds/growth.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace growth_test {

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace mb = moelab::bounds;

namespace {

using u128 = unsigned __int128;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// Exact C(n, k) by the multiplicative formula; every intermediate is C(n - k + i, i), exact in 128 bits
// for n <= 120.
u128 binomial(unsigned n, unsigned k) {
  if (k > n) return 0;
  k = std::min(k, n - k);
  u128 c = 1;
  for (unsigned i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

u128 power(u128 base, unsigned e) {
  u128 r = 1;
  for (unsigned i = 0; i < e; ++i) r *= base;
  return r;
}

// log of a 128-bit integer, correctly rounded to about 1 ulp (long double has a 64-bit mantissa on x86).
double log_u128(u128 x) { return static_cast<double>(std::log(static_cast<long double>(x))); }

}  // namespace

TEST_CASE("C(T, k)^(2 N d_N) is finite and exact", "[bounds]") {
  // log C(256, 8) itself: tests/core/log_binomial_test.cpp.
  const double g = mb::log_mask_growth(256, 8, 100, 10, 1e12);
  REQUIRE(std::isfinite(g));
  REQUIRE_THAT(g, WithinRel(2000 * log_u128(binomial(256, 8)) + 1000 * std::log(2e12), 8 * kEps));
}

TEST_CASE("Sauer-Shelah and Haussler-Long sums equal exact integer sums", "[bounds]") {
  // Exact sums fit in 128 bits for m <= 40, labels <= 6 (C(6, 2)^40 < 2^157 is too big: cap d at 20).
  for (unsigned m = 0; m <= 40; ++m)
    for (unsigned d = 0; d <= 20; ++d) {
      u128 ss = 0;
      for (unsigned i = 0; i <= std::min(d, m); ++i) ss += binomial(m, i);
      INFO("m = " << m << ", d = " << d);
      // log-sum-exp over <= 21 terms of a few ulps each.
      REQUIRE_THAT(mb::log_sauer_shelah(m, d), WithinAbs(log_u128(ss), 64 * kEps * std::max(1.0, log_u128(ss))));
      for (unsigned labels : {2u, 3u, 5u}) {
        u128 hl = 0;
        const u128 pairs = labels * (labels - 1) / 2;
        for (unsigned i = 0; i <= std::min(d, m); ++i) hl += binomial(m, i) * power(pairs, i);
        REQUIRE_THAT(mb::log_haussler_long(m, d, labels),
                     WithinAbs(log_u128(hl), 64 * kEps * std::max(1.0, log_u128(hl))));
      }
    }
  // Haussler-Long with two labels is Sauer-Shelah.
  REQUIRE_THAT(mb::log_haussler_long(30, 7, 2), WithinRel(mb::log_sauer_shelah(30, 7), 4 * kEps));
}

TEST_CASE("Growth bounds are ordered: Sauer-Shelah <= (em/d)^d, Haussler-Long <= Lemma 6", "[bounds]") {
  for (double m : {1.0, 2.0, 5.0, 17.0, 100.0, 1e4})
    for (double d : {1.0, 2.0, 3.0, 10.0, 50.0}) {
      INFO("m = " << m << ", d = " << d);
      if (m >= d) REQUIRE(mb::log_sauer_shelah(m, d) <= mb::log_sauer_shelah_bound(m, d) * (1 + 4 * kEps));
      // Sum over i of C(m, i) C(k, 2)^i <= (k^2/2)^d (m + 1)^d <= m^d k^(2d) for m >= 1.
      for (double labels : {2.0, 3.0, 8.0, 70.0})
        REQUIRE(mb::log_haussler_long(m, d, labels) <= mb::log_natarajan_growth(m, d, labels) + 1e-12);
      // No class on m points has more than labels^m labelings; Haussler-Long with d >= m and two labels
      // is exactly 2^m.
      if (d >= m) REQUIRE_THAT(mb::log_sauer_shelah(m, d), WithinRel(m * std::log(2.0), 16 * kEps));
    }
}

TEST_CASE("Lemma 6 and Eq. 13 are the printed closed forms", "[bounds]") {
  // Lemma 6, Eq. 27: m^d k^(2d).
  REQUIRE_THAT(mb::log_natarajan_growth(10, 3, 4), WithinRel(std::log(1000.0 * 4096.0), 4 * kEps));
  // Eq. 13 with exact integers: C(8, 2)^(2*2*1) (2*5)^(2*1) = 28^4 * 100.
  REQUIRE_THAT(mb::log_mask_growth(8, 2, 2, 1, 5), WithinRel(std::log(28.0 * 28 * 28 * 28 * 100), 8 * kEps));
  // Eq. 18's relaxation replaces C(T, k) by T^k: equal for k = 1, strictly larger for k >= 2.
  for (double T : {2.0, 8.0, 64.0, 256.0}) {
    REQUIRE_THAT(mb::log_mask_growth_relaxed(T, 1, 3, 2, 1000), WithinRel(mb::log_mask_growth(T, 1, 3, 2, 1000), 8 * kEps));
    for (double k = 2; k <= T; k *= 2)
      REQUIRE(mb::log_mask_growth_relaxed(T, k, 3, 2, 1000) > mb::log_mask_growth(T, k, 3, 2, 1000));
  }
}

TEST_CASE("Growth functions reject non-integer or out-of-range arguments", "[bounds]") {
  REQUIRE_THROWS_AS(mb::log_mask_growth(4, 5, 1, 1, 10), std::logic_error);
  REQUIRE_THROWS_AS(mb::log_sauer_shelah_bound(3, 4), std::logic_error);
}

TEST_CASE("the growth sums match mpmath up to n = 10^15", "[bounds]") {
  // tests/data/bounds/gen_log_binomial_reference.py: exact term sums in mpmath at 60 digits, rounded once.
  // Its binomial rows test core/log_binomial (tests/core/log_binomial_test.cpp).
  std::ifstream in(std::string(MOELAB_SOURCE_DIR) + "/tests/data/bounds/log_binomial_reference.csv");
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const moelab::CsvTable table = moelab::parse_csv(buffer.str());
  REQUIRE(table.columns == std::vector<std::string>{"kind", "n", "k", "labels", "value"});
  double worst_sum = 0.0;
  std::string worst_where;
  int rows = 0;
  for (const auto& row : table.rows) {
    const std::string kind = std::get<std::string>(row[0]);
    if (kind == "binomial") continue;
    const double n = std::stod(std::get<std::string>(row[1])), k = std::stod(std::get<std::string>(row[2]));
    const double labels = std::stod(std::get<std::string>(row[3])), want = std::stod(std::get<std::string>(row[4]));
    const double got = kind == "sauer_shelah" ? mb::log_sauer_shelah(n, k) : mb::log_haussler_long(n, k, labels);
    const double err = std::abs(got - want) / (std::abs(want) * kEps);  // relative, in units of eps
    if (err > worst_sum) {
      worst_sum = err;
      worst_where = kind + " n = " + std::get<std::string>(row[1]) + ", k = " + std::get<std::string>(row[2]);
    }
    ++rows;
  }
  std::printf("growth sums vs mpmath (%d rows): max relative error / eps %.2f (worst %s)\n", rows, worst_sum,
              worst_where.c_str());
  INFO(rows << " rows; max relative error / eps " << worst_sum << " (worst " << worst_where << ")");
  REQUIRE(rows >= 18);
  // Sums: log-sum-exp over up to 4001 terms, each a log_binomial; the log of the sum adds a few ulps.
  CHECK(worst_sum < 64.0);
  // The case: moelab bound growth --m 1e15 --d 200 --labels 2 printed 6044.000000.
  CHECK_THAT(mb::log_haussler_long(1e15, 200, 2), WithinRel(6044.523291789712, 16 * kEps));
}

}  // namespace growth_test
