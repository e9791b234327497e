// log C(n, k) (core/log_binomial.hpp) against exact integer binomials computed here in 128 bits, mpmath
// references at integer and real arguments (generators beside the CSVs), and the compensated sum.
#include "moelab/core/log_binomial.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/compensated_sum.hpp"
#include "moelab/core/csv.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using u128 = unsigned __int128;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// Exact C(n, k) by the multiplicative formula; every intermediate is C(n - k + i, i), exact in 128 bits
// for n <= 120.
u128 exact_binomial(unsigned n, unsigned k) {
  k = std::min(k, n - k);
  u128 c = 1;
  for (unsigned i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

// log of a 128-bit integer, correctly rounded to about 1 ulp (long double has a 64-bit mantissa on x86).
double log_u128(u128 x) { return static_cast<double>(std::log(static_cast<long double>(x))); }

moelab::CsvTable read_reference(const std::string& relative) {
  std::ifstream in(std::string(MOELAB_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return moelab::parse_csv(buffer.str());
}

double cell(const moelab::CsvTable& t, std::size_t row, std::size_t col) {
  return std::stod(std::get<std::string>(t.rows[row][col]));
}

// Worst relative error of log_binomial in units of eps over the rows (absolute where the value is 0).
struct Worst {
  double err = 0.0;
  std::string where;
  int rows = 0;
  void add(double n, double k, double got, double want) {
    const double e = want == 0.0 ? std::abs(got) / kEps : std::abs(got - want) / (std::abs(want) * kEps);
    if (e > err) {
      err = e;
      where = "n = " + std::to_string(n) + ", k = " + std::to_string(k);
    }
    ++rows;
  }
};

}  // namespace

TEST_CASE("log_binomial equals the log of the exact integer binomial for n <= 120", "[core][log_binomial]") {
  // Direct branch (min(k, n - k) <= 64): the sum of <= 64 logs, each rounded once: 64 eps relative at most.
  // Stirling branch (n > 128 only): not reached here. The exact side is rounded once (about 1 ulp).
  for (unsigned n = 0; n <= 120; ++n)
    for (unsigned k = 0; k <= n; ++k) {
      const double exact = log_u128(exact_binomial(n, k));
      INFO("n = " << n << ", k = " << k);
      REQUIRE_THAT(moelab::log_binomial(n, k), WithinAbs(exact, 64 * kEps * std::max(1.0, exact)));
    }
  // C(256, 8) = 409663695276000 (granularity paper, Sec. 1): 8-term direct sum, a few ulps.
  REQUIRE_THAT(moelab::log_binomial(256, 8), WithinRel(std::log(409663695276000.0), 8 * kEps));
}

TEST_CASE("log_binomial matches mpmath up to n = 2^53 - 1, at integer and real arguments", "[core][log_binomial]") {
  // tests/data/bounds/gen_log_binomial_reference.py and tests/data/core/gen_log_binomial_real_reference.py:
  // mpmath loggamma differences at 60 digits, rounded once.
  const auto ints = read_reference("tests/data/bounds/log_binomial_reference.csv");
  REQUIRE(ints.columns == std::vector<std::string>{"kind", "n", "k", "labels", "value"});
  Worst integer;
  for (std::size_t r = 0; r < ints.rows.size(); ++r) {
    if (std::get<std::string>(ints.rows[r][0]) != "binomial") continue;
    const double n = cell(ints, r, 1), k = cell(ints, r, 2);
    integer.add(n, k, moelab::log_binomial(n, k), cell(ints, r, 4));
  }
  const auto reals = read_reference("tests/data/core/log_binomial_real_reference.csv");
  REQUIRE(reals.columns == std::vector<std::string>{"n", "k", "value"});
  Worst real;
  for (std::size_t r = 0; r < reals.rows.size(); ++r) {
    const double n = cell(reals, r, 0), k = cell(reals, r, 1);
    real.add(n, k, moelab::log_binomial(n, k), cell(reals, r, 2));
  }
  std::printf("log_binomial vs mpmath: integer %d rows max %.2f eps (%s); real %d rows max %.2f eps (%s)\n", integer.rows,
              integer.err, integer.where.c_str(), real.rows, real.err, real.where.c_str());
  INFO("integer: " << integer.rows << " rows, max " << integer.err << " eps at " << integer.where);
  INFO("real: " << real.rows << " rows, max " << real.err << " eps at " << real.where);
  REQUIRE(integer.rows > 100);
  REQUIRE(real.rows > 100);
  // Stirling branch: five terms of size <= j log(n/j) + j, each correctly rounded up to a few ulps, and the
  // remainder series good to < 1e-16 relative: observed <= 4 eps (g++ 12, glibc); 32 eps leaves room for other
  // libms. A plain lgamma difference has 1.2e-3 relative error at n = 1e15, k = 200.
  CHECK(integer.err < 32.0);
  // Real arguments: the same Stirling forms, or lgamma of a small j (a few ulps of lgamma(j + 1) <= 210); the
  // lgamma difference for n <= 128 loses up to ~ eps lgamma(129) / |log C| relative where log C is small.
  CHECK(real.err < 64.0);
}

TEST_CASE("log_binomial is -inf outside 0 <= k <= n and rejects a bad n", "[core][log_binomial]") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  CHECK(moelab::log_binomial(5, 6) == -inf);
  CHECK(moelab::log_binomial(5, -1) == -inf);
  CHECK(moelab::log_binomial(0, 0) == 0.0);
  CHECK(moelab::log_binomial(7, 7) == 0.0);
  CHECK_THROWS_AS(moelab::log_binomial(-1, 0), std::logic_error);
  CHECK_THROWS_AS(moelab::log_binomial(std::nan(""), 1), std::logic_error);
  CHECK_THROWS_AS(moelab::log_binomial(5, inf), std::logic_error);
}

TEST_CASE("log binomials at astronomically large m", "[core][log_binomial]") {
  // In double range: log_binomial itself (exp(log 50) = 50 up to an ulp; the product branch).
  CHECK_THAT(moelab::log_binomial_large(std::log(50.0), 7), WithinRel(std::log(99884400.0), 1e-13));
  // Against the direct sum of 2e5 logs (its own rounding: ~2e5 eps relative at most, 1e-11).
  const double m = 1e9, k = 2e5;
  double direct = 0.0;
  for (double i = 0; i < k; ++i) direct += std::log(m - i) - std::log(i + 1);
  CHECK_THAT(moelab::log_binomial_large(std::log(m), k), WithinRel(direct, 1e-11));
  // Beyond double range: k log m - lgamma(k + 1) for m = e^15000 (the k^2 / m term is e^-15000).
  CHECK_THAT(moelab::log_binomial_large(15000.0, 1000.0), WithinRel(1000.0 * 15000.0 - std::lgamma(1001.0), 1e-14));
}

TEST_CASE("the compensated sum keeps what plain summation loses", "[core][compensated_sum]") {
  // 1 + 10^6 terms of 1e-16: each is below half an ulp of 1, so a plain sum stays 1.0.
  moelab::CompensatedSum s;
  double plain = 1.0;
  s.add(1.0);
  for (int i = 0; i < 1000000; ++i) {
    s.add(1e-16);
    plain += 1e-16;
  }
  CHECK(plain == 1.0);
  // The compensation itself sums 10^6 roundings of 1e-16 (exact to ~1e6 eps of 1e-10).
  CHECK_THAT(s.value(), WithinRel(1.0 + 1e-10, 4 * kEps));
  // Neumaier's case, where Kahan's compensation loses the small terms: 1 + 1e100 + 1 - 1e100 = 2.
  moelab::CompensatedSum t;
  for (double x : {1.0, 1e100, 1.0, -1e100}) t.add(x);
  CHECK(t.value() == 2.0);
}
