// Claims: Theorem 1 of the compositional paper (Eq. 5), checked exhaustively over a stated grid: the
// step Eq. 17 -> Eq. 18 (printed as an equality, an inequality in fact) and the monotonicity of the bound.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/generalization.hpp"

namespace moelab::bounds::detail {

namespace {
struct Grid1 {
  std::vector<double> m{100, 1e3, 1e4, 1e5, 1e6}, T{2, 4, 8, 16, 64, 256}, k{1, 2, 3, 4, 8, 16}, N{1, 4}, dN{1, 8},
      delta{0.01, 0.05, 0.2};
};
}  // namespace

// Eq. 17 -> Eq. 18: printed as an equality; it is 2 N d_N log C(T, k) <= 2 k N d_N log T.
Evidence eq17_eq18_claim(const CheckBudget&, const RngKey&) {
  const Grid1 g;
  double max_rel = 0.0, min_gap = std::numeric_limits<double>::infinity();
  std::string where;
  for (double m : g.m)
    for (double T : g.T)
      for (double k : g.k) {
        if (k > T) continue;
        for (double N : g.N)
          for (double dN : g.dN) {
            const Theorem1Params p{.C = 1, .rademacher = 0.01, .k = k, .N = N, .d_N = dN, .T = T, .m = m, .delta = 0.05};
            const double a = theorem1_eq17(p).total, c = theorem1_printed(p).total;
            const double rel = (c - a) / c;
            if (rel > max_rel) max_rel = rel, where = fmt::format("T = {}, k = {}, N = {}, d_N = {}, m = {}", T, k, N, dN, m);
            min_gap = std::min(min_gap, c - a);
          }
      }
  const double tol = 1e-14;  // relative rounding of the two totals (sums of a few logs and a sqrt)
  Evidence e;
  e.printed = claims::deterministic_test("Eq. 17 = Eq. 18 (largest relative difference of the Theorem 1 totals)", max_rel, 0.0,
                                         max_rel <= tol);
  e.exact = claims::deterministic_test("Eq. 17 <= Eq. 18 (smallest difference)", min_gap, 0.0, min_gap >= -1e-15);
  e.control(claims::deterministic_test("reverse: Eq. 18 <= Eq. 17 (largest relative excess)", max_rel, 0.0, max_rel <= tol));
  // Exhaustive over the grid: any relative difference above the rounding tolerance is seen.
  e.relevance = tol;
  e.note = fmt::format("grid T up to 256, k up to 16, m 1e2..1e6: Eq. 18 exceeds Eq. 17 by up to {:.1f} % ({}); equal only at k = 1",
                       100.0 * max_rel, where);
  return e;
}

// Theorem 1 (Eq. 5) moves as a bound must: down in m and delta, up in k and T; the naive ensemble's rate is
// linear in T (compared on the same grid in the note).
Evidence theorem1_monotone_claim(const CheckBudget&, const RngKey&) {
  const Grid1 g;
  std::int64_t pairs = 0, bad = 0, pairs_m = 0, bad_control = 0;
  auto total = [](Theorem1Params p) { return theorem1_printed(p).total; };
  for (double T : g.T)
    for (double k : g.k) {
      if (k > T) continue;
      for (double N : g.N)
        for (double dN : g.dN)
          for (std::size_t i = 0; i < g.m.size(); ++i)
            for (std::size_t j = 0; j < g.delta.size(); ++j) {
              const Theorem1Params p{.C = 1, .rademacher = 0.05, .k = k, .N = N, .d_N = dN, .T = T, .m = g.m[i], .delta = g.delta[j]};
              const double here = total(p);
              if (i + 1 < g.m.size()) {
                auto q = p;
                q.m = g.m[i + 1];
                ++pairs, ++pairs_m;
                if (!(total(q) < here)) ++bad;
                if (!(total(q) > here)) ++bad_control;  // control: the bound grows with m
              }
              if (j + 1 < g.delta.size()) {
                auto q = p;
                q.delta = g.delta[j + 1];
                ++pairs;
                if (!(total(q) < here)) ++bad;
              }
              auto q = p;
              q.T = 2 * T;
              ++pairs;
              if (!(total(q) > here)) ++bad;
              if (k < T) {
                auto r = p;
                r.k = k + 1;
                ++pairs;
                if (!(total(r) > here)) ++bad;
              }
            }
    }
  const Theorem1Params at{.C = 1, .rademacher = 0.05, .k = 2, .N = 1, .d_N = 1, .T = 64, .m = 1e4, .delta = 0.05};
  Evidence e;
  e.printed = claims::exhaustive_test("Eq. 5 decreases in m, delta and increases in T, k (violating pairs)", pairs, bad);
  e.control(claims::exhaustive_test("Eq. 5 increases in m (violating pairs)", pairs_m, bad_control));
  // Every adjacent pair of the grid is enumerated: one violating pair refutes the statement.
  e.relevance = 1.0;
  e.note = fmt::format("{} adjacent pairs. At T = 64, k = 2, m = 1e4, R = 0.05: Theorem 1 {:.4f} (printed), {:.4f} (derived); naive "
                       "ensemble {:.4f} (printed, T R), {:.4f} (averaged ensemble, Lemma 10)",
                       pairs, theorem1_printed(at).total, theorem1_derived(at).total,
                       naive_ensemble_printed(64, 0.05, 1e4, 0.05).total,
                       naive_ensemble_derived(1, 64, 0.05, 1e4, 0.05, true).total);
  return e;
}

}  // namespace moelab::bounds::detail
