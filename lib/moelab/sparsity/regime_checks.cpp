#include "moelab/sparsity/regime_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "moelab/core/error.hpp"

namespace moelab::sparsity {

namespace {

void expect_increasing(const std::vector<double>& v, const char* msg) {
  MOELAB_EXPECT(!v.empty(), msg);
  for (std::size_t i = 1; i < v.size(); ++i) MOELAB_EXPECT(v[i] > v[i - 1], msg);
}

void expect_grid(const RegimeGrid& g) {
  expect_increasing(g.N, "RegimeGrid: N must be non-empty and strictly increasing");
  expect_increasing(g.m, "RegimeGrid: m must be non-empty and strictly increasing");
  expect_increasing(g.d_N, "RegimeGrid: d_N must be non-empty and strictly increasing");
  expect_increasing(g.T, "RegimeGrid: T must be non-empty and strictly increasing");
  expect_increasing(g.a, "RegimeGrid: a must be non-empty and strictly increasing");
  expect_increasing(g.b, "RegimeGrid: b must be non-empty and strictly increasing");
}

Axis regime_axis(Regime r) {
  switch (r) {
    case Regime::a_dataset_size: return Axis::m;
    case Regime::b_router_complexity: return Axis::d_N;
    case Regime::c_task_complexity: return Axis::N;
    case Regime::d_total_experts: return Axis::T;
  }
  return Axis::m;
}

// +1: the conclusion asserts that k* increases along the axis; -1: decreases.
int asserted_direction(Regime r) { return r == Regime::b_router_complexity ? -1 : +1; }

double k_star(const TradeoffParams& p, const RegimeOptions& o) {
  return o.domain == KDomain::integer ? static_cast<double>(integer_k_star(p, o.form).k) : real_k_star(p, o.form).k;
}

// Calls f(base) for every combination of the grid's axes except `skip` (whose value in base is unset).
template <class F>
void for_each_other(const RegimeGrid& g, Axis skip, F&& f) {
  const std::vector<double> one{1.0};
  const auto& Ns = skip == Axis::N ? one : g.N;
  const auto& ms = skip == Axis::m ? one : g.m;
  const auto& ds = skip == Axis::d_N ? one : g.d_N;
  const auto& Ts = skip == Axis::T ? one : g.T;
  for (double N : Ns)
    for (double m : ms)
      for (double d : ds)
        for (double T : Ts)
          for (double a : g.a)
            for (double b : g.b) {
              TradeoffParams p;
              p.N = N;
              p.m = m;
              p.d_N = d;
              p.T = static_cast<std::int64_t>(T);
              p.a = a;
              p.b = b;
              f(p);
            }
}

}  // namespace

RegimeGrid default_regime_grid() {
  return {{1, 2, 4, 8, 16}, {1e2, 1e3, 1e4, 1e5, 1e6}, {1, 4, 16, 64}, {8, 16, 32, 64, 128}, {1}, {0.1, 1, 10}};
}

RegimeCheck check_regime(Regime regime, const RegimeGrid& grid, const RegimeOptions& options, bool reversed) {
  expect_grid(grid);
  for (double T : grid.T) MOELAB_EXPECT(T == std::floor(T) && T >= 1.0, "check_regime: T values must be integers >= 1");
  RegimeCheck out;
  out.regime = regime;
  out.reversed = reversed;
  out.options = options;
  const Axis axis = regime_axis(regime);
  const std::vector<double>& values = axis == Axis::m ? grid.m : axis == Axis::d_N ? grid.d_N : axis == Axis::N ? grid.N : grid.T;
  for_each_other(grid, axis, [&](const TradeoffParams& base) {
    TradeoffParams prev = with_axis(base, axis, values[0]);
    double k_prev = k_star(prev, options);
    for (std::size_t i = 1; i < values.size(); ++i) {
      const TradeoffParams cur = with_axis(base, axis, values[i]);
      const double k_cur = k_star(cur, options);
      ++out.pairs;
      bool counterexample = false;
      if (regime == Regime::d_total_experts) {
        const double T1 = static_cast<double>(prev.T), T2 = static_cast<double>(cur.T);
        const double r1 = k_prev / T1, r2 = k_cur / T2;
        const double tol = options.domain == KDomain::integer ? 1.0 / T1 + 1.0 / T2 : 1e-9 * std::max(r1, r2);
        const bool proportional = std::abs(r2 - r1) <= tol;
        if (proportional) ++out.moved_as_asserted; else ++out.moved_against;
        if (k_cur == k_prev) ++out.unchanged;
        // asserted: proportional; control: k* independent of T.
        counterexample = reversed ? (k_cur != k_prev) : !proportional;
      } else {
        const int dir = asserted_direction(regime);
        const int moved = k_cur > k_prev ? +1 : k_cur < k_prev ? -1 : 0;
        if (moved == 0) ++out.unchanged;
        else if (moved == dir) ++out.moved_as_asserted;
        else ++out.moved_against;
        const int want = reversed ? -dir : dir;
        counterexample = options.reading == Reading::strict ? moved != want : moved == -want;
      }
      if (counterexample) out.counterexamples.push_back({prev, cur, k_prev, k_cur});
      prev = cur;
      k_prev = k_cur;
    }
  });
  return out;
}

ProportionalCheck check_proportional_estimation(const RegimeGrid& grid, const std::vector<double>& fractions,
                                                EstimationForm form, bool reversed) {
  expect_grid(grid);
  MOELAB_EXPECT(!fractions.empty(), "check_proportional_estimation: fractions must not be empty");
  for (double c : fractions) MOELAB_EXPECT(c > 0.0 && c <= 1.0, "check_proportional_estimation: each c must be in (0, 1]");
  ProportionalCheck out;
  out.reversed = reversed;
  for_each_other(grid, Axis::T, [&](const TradeoffParams& base) {
    for (double c : fractions) {
      TradeoffParams prev = with_axis(base, Axis::T, grid.T[0]);
      double k_prev = std::max(1.0, c * static_cast<double>(prev.T));
      double e_prev = estimation_error(k_prev, prev, form);
      for (std::size_t i = 1; i < grid.T.size(); ++i) {
        const TradeoffParams cur = with_axis(base, Axis::T, grid.T[i]);
        const double k_cur = std::max(1.0, c * static_cast<double>(cur.T));
        const double e_cur = estimation_error(k_cur, cur, form);
        ++out.pairs;
        const bool increased = e_cur > e_prev;
        if (increased) ++out.increased;
        if (reversed ? !increased : increased) out.counterexamples.push_back({prev, cur, c, e_prev, e_cur});
        prev = cur;
        e_prev = e_cur;
      }
    }
  });
  return out;
}

PowerlawCheck check_powerlaw_reducing_k(const std::vector<std::int64_t>& N, const std::vector<double>& alpha,
                                        std::int64_t T, bool reversed) {
  MOELAB_EXPECT(!N.empty() && !alpha.empty(), "check_powerlaw_reducing_k: N and alpha must not be empty");
  MOELAB_EXPECT(T >= 2, "check_powerlaw_reducing_k: T must be >= 2");
  PowerlawCheck out;
  out.reversed = reversed;
  for (std::int64_t n : N) {
    const std::vector<double> D = index_difficulties(n);
    for (double al : alpha) {
      const double W = powerlaw_weight_sum(D, al);
      for (std::int64_t k = 2; k <= T; ++k) {
        const double e_lo = W / static_cast<double>(k - 1), e_hi = W / static_cast<double>(k);
        ++out.pairs;
        const bool holds = reversed ? e_lo > e_hi : e_lo < e_hi;
        if (!holds) out.counterexamples.push_back({n, al, k, e_lo, e_hi});
      }
    }
  }
  return out;
}

}  // namespace moelab::sparsity
