// Eqs. 9-12 of the compositional paper (App. B): the swap-enumeration engine against independent brute
// force (hand-listed swaps, every (S, S') of a tiny domain, every expert tuple h in H^T, no separation over
// experts, no Gray code), the growth functions against their closed forms, the smallest counterexample to
// the fixed-mask union bound in closed form, and the two claims' verdicts at quick seed 1.
#include "moelab/bounds/union_bound.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/core/parallel.hpp"
#include "registered_claims.hpp"

using Catch::Matchers::WithinAbs;
namespace mb = moelab::bounds;

namespace moelab::bounds {
void register_claims(claims::Registry& r);
}

namespace {

// m (L_S - L_S') for router r and the expert tuple h (one class member per expert), straight from the definition.
double scaled_gap(const mb::RoutedClass& c, int r, const std::vector<int>& h, const std::vector<int>& s,
                  const std::vector<int>& s2) {
  double d = 0.0;
  for (int x : s) d += c.losses(h[c.routers(r, x)], x);
  for (int x : s2) d -= c.losses(h[c.routers(r, x)], x);
  return d;
}

// (m sup_h D, m sup_h (-D)) for router r by enumerating all K^T expert tuples.
std::array<double, 2> brute_sup(const mb::RoutedClass& c, int r, const std::vector<int>& s, const std::vector<int>& s2) {
  const int K = static_cast<int>(c.losses.rows());
  std::vector<int> h(c.T, 0);
  double hi = -INFINITY, lo = INFINITY;
  for (;;) {
    const double d = scaled_gap(c, r, h, s, s2);
    hi = std::max(hi, d);
    lo = std::min(lo, d);
    int j = 0;
    while (j < c.T && ++h[j] == K) h[j++] = 0;
    if (j == c.T) break;
  }
  return {hi, -lo};
}

struct Events {
  bool abs, plus, minus;
};
// Events for router r (r < 0: the class, sup over routers) at threshold t (1e-9: the engine's tie rule).
Events brute_events(const mb::RoutedClass& c, int r, const std::vector<int>& s, const std::vector<int>& s2, double t) {
  const double thr = static_cast<double>(s.size()) * t - 1e-9;
  bool p = false, mi = false;
  const int lo = r < 0 ? 0 : r, hi = r < 0 ? static_cast<int>(c.routers.rows()) : r + 1;
  for (int q = lo; q < hi; ++q) {
    const auto sup = brute_sup(c, q, s, s2);
    p |= sup[0] >= thr;
    mi |= sup[1] >= thr;
  }
  return {p || mi, p, mi};
}

// Thresholds on n points, T = 2, experts {0, 1/2, 1, x/(n-1)} against labels 1[x >= n/2] (the claim's rich class).
mb::RoutedClass rich(int n) {
  mb::RoutedClass c{mb::threshold_routers(n), Eigen::MatrixXd(4, n), 2};
  for (int x = 0; x < n; ++x) {
    const double y = x >= n / 2 ? 1.0 : 0.0;
    c.losses.col(x) << y, 0.5, 1.0 - y, std::abs(static_cast<double>(x) / (n - 1) - y);
  }
  return c;
}

// T = 3 experts, H = {0, 1, x/(n-1)} (losses against labels 0), four routers given explicitly.
mb::RoutedClass three_experts(int n) {
  mb::RoutedClass c{Eigen::MatrixXi(4, n), Eigen::MatrixXd(3, n), 3};
  for (int x = 0; x < n; ++x) {
    c.routers.col(x) << 0, x % 3, (x + 1) % 3, x < n / 2 ? 1 : 2;
    c.losses.col(x) << 0.0, 1.0, static_cast<double>(x) / (n - 1);
  }
  return c;
}

// Counts over an explicit list of swaps (bit i set: pair i exchanged), compared with swap_counts.
void check_against_swap_list(const mb::RoutedClass& c, const std::vector<int>& pool, double t,
                             const std::vector<unsigned>& swap_list) {
  const int m = static_cast<int>(pool.size() / 2), R = static_cast<int>(c.routers.rows());
  const auto got = mb::swap_counts(c, pool, t);
  REQUIRE(got.swaps == swap_list.size());
  std::vector<std::array<std::uint64_t, 3>> router(R, {0, 0, 0});
  std::array<std::uint64_t, 3> cls{0, 0, 0};
  for (unsigned sw : swap_list) {
    std::vector<int> s(m), s2(m);
    for (int i = 0; i < m; ++i) {
      const bool x = (sw >> i) & 1u;
      s[i] = x ? pool[m + i] : pool[i];
      s2[i] = x ? pool[i] : pool[m + i];
    }
    for (int r = -1; r < R; ++r) {
      const auto e = brute_events(c, r, s, s2, t);
      auto& a = r < 0 ? cls : router[r];
      a[0] += e.abs;
      a[1] += e.plus;
      a[2] += e.minus;
    }
  }
  CHECK(got.class_abs == cls[0]);
  CHECK(got.class_plus == cls[1]);
  CHECK(got.class_minus == cls[2]);
  std::set<int> used;
  for (int r = 0; r < R; ++r) {
    const int q = got.pattern_of_router[r];
    used.insert(q);
    CHECK(got.abs[q] == router[r][0]);
    CHECK(got.plus[q] == router[r][1]);
    CHECK(got.minus[q] == router[r][2]);
  }
  CHECK(static_cast<int>(used.size()) == got.patterns());
}

}  // namespace

TEST_CASE("swap counts equal brute force over hand-listed swaps, m = 3 and m = 4", "[bounds][union]") {
  SECTION("m = 3: the 8 swaps written out") {
    const std::vector<unsigned> swaps{0b000, 0b001, 0b010, 0b011, 0b100, 0b101, 0b110, 0b111};
    check_against_swap_list(rich(6), {0, 4, 5, 1, 3, 2}, 1.0 / 3.0, swaps);
    check_against_swap_list(rich(6), {2, 2, 5, 0, 3, 1}, 0.5, swaps);
    check_against_swap_list(three_experts(7), {6, 1, 3, 0, 5, 2}, 1.0 / 3.0, swaps);
    check_against_swap_list({mb::point_routers(9), mb::constant_expert_losses(9), 2}, {1, 7, 7, 4, 1, 8}, 1.0 / 3.0, swaps);
  }
  SECTION("m = 4: the 16 swaps, in counting (not Gray) order") {
    std::vector<unsigned> swaps(16);
    for (unsigned i = 0; i < 16; ++i) swaps[i] = i;
    check_against_swap_list(rich(8), {0, 7, 3, 5, 6, 1, 2, 4}, 0.25, swaps);
    check_against_swap_list(rich(8), {0, 7, 3, 5, 6, 1, 2, 4}, 0.5, swaps);
    check_against_swap_list(three_experts(8), {1, 1, 6, 2, 7, 0, 3, 3}, 0.25, swaps);
  }
}

TEST_CASE("exact probabilities over pools and swaps equal brute force over every (S, S')", "[bounds][union]") {
  // Non-uniform p, so that the weights of the pools matter; n^(2m) = 4^4 = 256 pairs (S, S').
  const int n = 4, m = 2;
  Eigen::VectorXd p(n);
  p << 0.1, 0.2, 0.3, 0.4;
  for (const auto& c : {rich(n), three_experts(n)}) {
    for (double t : {0.25, 0.5}) {
      const int R = static_cast<int>(c.routers.rows());
      std::vector<std::array<double, 3>> router(R, {0, 0, 0});
      std::array<double, 3> cls{0, 0, 0};
      for (int code = 0; code < 256; ++code) {
        const std::vector<int> s{code % 4, (code / 4) % 4}, s2{(code / 16) % 4, code / 64};
        const double w = p(s[0]) * p(s[1]) * p(s2[0]) * p(s2[1]);
        for (int r = -1; r < R; ++r) {
          const auto e = brute_events(c, r, s, s2, t);
          auto& a = r < 0 ? cls : router[r];
          a[0] += w * e.abs;
          a[1] += w * e.plus;
          a[2] += w * e.minus;
        }
      }
      const auto got = mb::exact_union_probabilities(p, c, m, t);
      // Sums of at most 256 products of four probabilities: rounding below 1e-14.
      CHECK_THAT(got.class_abs, WithinAbs(cls[0], 1e-14));
      CHECK_THAT(got.class_plus, WithinAbs(cls[1], 1e-14));
      CHECK_THAT(got.class_minus, WithinAbs(cls[2], 1e-14));
      for (int r = 0; r < R; ++r) {
        CHECK_THAT(got.router_abs[r], WithinAbs(router[r][0], 1e-14));
        CHECK_THAT(got.router_plus[r], WithinAbs(router[r][1], 1e-14));
        CHECK_THAT(got.router_minus[r], WithinAbs(router[r][2], 1e-14));
      }
    }
  }
}

TEST_CASE("the growth functions of threshold and point routers are the maxima over all pools", "[bounds][union]") {
  for (int n : {3, 5})
    for (int m : {1, 2, 3}) {
      int best_t = 0, best_p = 0;
      std::vector<int> z(2 * m, 0);
      const mb::RoutedClass th{mb::threshold_routers(n), mb::constant_expert_losses(n), 2};
      const mb::RoutedClass pt{mb::point_routers(n), mb::constant_expert_losses(n), 2};
      for (;;) {
        best_t = std::max(best_t, mb::swap_counts(th, z, 0.5).patterns());
        best_p = std::max(best_p, mb::swap_counts(pt, z, 0.5).patterns());
        int i = 0;
        while (i < 2 * m && ++z[i] == n) z[i++] = 0;
        if (i == 2 * m) break;
      }
      CAPTURE(n, m);
      CHECK(best_t == mb::threshold_router_growth(n, m));
      CHECK(best_p == mb::point_router_growth(n, m));
    }
}

TEST_CASE("the smallest counterexample to Eq. 9-12 with a fixed mask: m = 1, point routers", "[bounds][union]") {
  // m = 1, eps/2 = 1: the class reaches |D| = 1 whenever x != x' (probability 1 - 1/n); a fixed point
  // router only when exactly one of x, x' is c (2 (n-1)/n^2), and then in either sign (sup over the experts
  // {0, 1}), so P(D >= 1) = P(|D| >= 1). Gamma(2) = 3: Eq. 11 gives 6 (n-1)/n^2 (fails for n >= 7), Eq. 12
  // 12 (n-1)/n^2 (fails for n >= 13; equal at n = 6 and n = 12 respectively).
  for (int n : {5, 6, 7, 8, 12, 13, 20}) {
    const mb::RoutedClass c{mb::point_routers(n), mb::constant_expert_losses(n), 2};
    const auto e = mb::exact_union_probabilities(mb::uniform_domain(n), c, 1, 1.0);
    const double N = n;
    CHECK_THAT(e.class_abs, WithinAbs(1.0 - 1.0 / N, 1e-14));
    for (int r = 0; r < n; ++r) {
      CHECK_THAT(e.router_abs[r], WithinAbs(2.0 * (N - 1) / (N * N), 1e-14));
      CHECK_THAT(e.router_plus[r], WithinAbs(2.0 * (N - 1) / (N * N), 1e-14));
    }
    const double G = mb::point_router_growth(n, 1);
    const double eq11 = G * e.router_abs[0], eq12 = 2.0 * G * e.router_plus[0];
    CHECK_THAT(eq11, WithinAbs(6.0 * (N - 1) / (N * N), 1e-14));
    CHECK_THAT(eq12, WithinAbs(12.0 * (N - 1) / (N * N), 1e-14));
    CAPTURE(n);
    CHECK((e.class_abs > eq11 + 1e-12) == (n >= 7));
    CHECK((e.class_abs > eq12 + 1e-12) == (n >= 13));
  }
}

TEST_CASE("check_union_bound: Monte-Carlo means equal the exact probabilities, a 10 % shift is rejected", "[bounds][union]") {
  // 4000 pools; agreement within 4.5 standard errors (two-sided p 7e-6), a shift of 10 % beyond 4.5.
  const int n = 5, m = 2;
  const auto c = rich(n);
  const double t = 0.5;
  const auto ex = mb::exact_union_probabilities(mb::uniform_domain(n), c, m, t);
  const auto mc = mb::check_union_bound(mb::uniform_domain(n), c, mb::threshold_router_growth(n, m), m, t, 4000, 17);
  const double se = mc.eq11_fixed_mask.lhs_se;
  REQUIRE(se > 0.0);
  CHECK(std::abs(mc.class_abs - ex.class_abs) < 4.5 * se);
  CHECK(std::abs(mc.class_abs - 1.1 * ex.class_abs) > 4.5 * se);
  CHECK(std::abs(mc.class_plus - mc.class_minus) < 6.0 * se);
  // Exact per pool: the two-sign split and the repaired union bound never fail.
  CHECK(mc.sign_violations == 0);
  CHECK(mc.sign_asymmetric == 0);
  CHECK(mc.repaired.excess <= 0.0);
  CHECK(mc.repaired_union.excess <= 0.0);
}

TEST_CASE("check_union_bound does not depend on the thread count", "[bounds][union]") {
  const mb::RoutedClass c{mb::point_routers(40), mb::constant_expert_losses(40), 2};
  moelab::set_num_threads(1);
  const auto one = mb::check_union_bound(mb::uniform_domain(40), c, mb::point_router_growth(40, 3), 3, 1.0 / 3, 500, 5);
  moelab::set_num_threads(2);
  const auto two = mb::check_union_bound(mb::uniform_domain(40), c, mb::point_router_growth(40, 3), 3, 1.0 / 3, 500, 5);
  moelab::set_num_threads(0);
  CHECK(one.class_abs == two.class_abs);
  CHECK(one.router_plus == two.router_plus);
  CHECK(one.eq12_fixed_mask.p_violation == two.eq12_fixed_mask.p_violation);
}

TEST_CASE("the Eq. 9-12 claims reach their documented verdicts at quick seed 1", "[bounds][union][claims]") {
  moelab::claims::Registry reg;
  mb::register_claims(reg);
  const std::map<std::string, moelab::claims::Verdict> expected{
      {"bounds.eq12.sign_split", moelab::claims::Verdict::holds},
      {"bounds.eq10.data_dependent_masks", moelab::claims::Verdict::erratum}};
  std::vector<const moelab::claims::Claim*> selected;
  for (const auto& [id, v] : expected) {
    const auto found = reg.select(id);
    REQUIRE(found.size() == 1);
    selected.push_back(found[0]);
  }
  const auto r = moelab::claims::run_suite(selected, moelab::claims::CheckBudget{}, 0.01, moelab::test::kRegisteredClaims, false);
  for (const auto& o : r.outcomes) {
    INFO(o.claim->id << ": " << o.reason << " | " << o.evidence.note);
    CHECK(o.verdict == expected.at(o.claim->id));
    CHECK(o.control_rejected);
    CHECK(std::isfinite(o.relevance));
  }
}
