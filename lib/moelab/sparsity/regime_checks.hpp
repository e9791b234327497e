// Checks of the regime conclusions (a)-(d) of the `compositional` paper (arXiv:2410.13964), end of
// Sec. 4.3.3, and of the A.5 statement on reducing k, over grids of parameters. Each check returns the
// grid points where the statement does NOT hold; each has a negative control (the reversed statement).
//
// What each conclusion asserts, as read here (the paper's words in quotes):
//   (a) "Under large dataset regime (m is large), a larger k* is preferred": k* increases with m.
//   (b) "Under high router complexity regime (d_N is large), a smaller k* is preferred": k* decreases with d_N.
//   (c) "Under increasing task complexity setting, a larger k* is preferred": k* increases with N.
//   (d) "When the total number of available experts T is increasing, k needs to be adjusted proportionally
//       to prevent an increase in the estimation error": two readings, both checked:
//       (d, k*)  k*(T) / T does not change with T;
//       (d, est) with k = c T (c fixed), E_est(c T) does not increase with T (`check_proportional_estimation`).
// Pairs compared: adjacent values of the regime's axis (each axis list strictly increasing), at every
// combination of the other axes. For (a)-(c) a pair is classified as moved_as_asserted, unchanged or
// moved_against; the weak reading counts moved_against as counterexamples, the strict reading also
// unchanged (the conclusion says k* moves). Reversed control: the opposite direction in the same reading.
// For (d, k*) the classes are proportional / not proportional (integer k*: within the rounding
// 1/T1 + 1/T2; real k*: 1e-9 relative); its control asserts that k* does not change with T at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::sparsity {

enum class Regime { a_dataset_size, b_router_complexity, c_task_complexity, d_total_experts };
/// weak: k* never moves against the asserted direction; strict: k* moves in it at every pair.
enum class Reading { weak, strict };
/// Which k* is compared: the exact integer minimiser over 1..T or the real one over [1, T].
enum class KDomain { integer, real };

/// Axis values of a grid (each strictly increasing; T values integers >= 1).
struct RegimeGrid {
  std::vector<double> N, m, d_N, T, a, b;
};
/// The grid used in docs/sparsity.md: N in {1, 2, 4, 8, 16}, m in {1e2, 1e3, 1e4, 1e5, 1e6},
/// d_N in {1, 4, 16, 64}, T in {8, 16, 32, 64, 128}, a = 1, b in {0.1, 1, 10}.
RegimeGrid default_regime_grid();

struct RegimeOptions {
  EstimationForm form = EstimationForm::definition5;
  KDomain domain = KDomain::integer;
  Reading reading = Reading::strict;
};

/// One compared pair where the statement fails: the two parameter sets (lower and upper value of the
/// regime's axis) and their k*.
struct RegimeCounterexample {
  TradeoffParams lower, upper;
  double k_star_lower = 0.0, k_star_upper = 0.0;
};

struct RegimeCheck {
  Regime regime = Regime::a_dataset_size;
  bool reversed = false;
  RegimeOptions options;
  std::size_t pairs = 0;
  std::size_t moved_as_asserted = 0;  ///< (d): proportional pairs
  std::size_t unchanged = 0;          ///< (d): pairs with k*(T1) = k*(T2)
  std::size_t moved_against = 0;      ///< (d): non-proportional pairs
  std::vector<RegimeCounterexample> counterexamples;
  bool holds() const { return counterexamples.empty(); }
  /// No pair showed the asserted movement: a "holds" under the weak reading is then empty of content.
  bool vacuous() const { return moved_as_asserted == 0; }
};

/// The statement of `regime` (or its reversal, the negative control) over `grid`.
RegimeCheck check_regime(Regime regime, const RegimeGrid& grid, const RegimeOptions& options, bool reversed = false);

/// (d, est): with k = max(1, c T), does E_est stop increasing when T increases?
struct ProportionalCounterexample {
  TradeoffParams lower, upper;
  double c = 0.0;
  double estimation_lower = 0.0, estimation_upper = 0.0;
};
struct ProportionalCheck {
  bool reversed = false;
  std::size_t pairs = 0, increased = 0;
  std::vector<ProportionalCounterexample> counterexamples;
  bool holds() const { return counterexamples.empty(); }
};
/// Asserted: E_est(c T2; T2) <= E_est(c T1; T1) for T1 < T2 adjacent in grid.T, every c in `fractions`
/// (0 < c <= 1) and every combination of N, m, d_N, b. Reversed control: E_est increases strictly.
ProportionalCheck check_proportional_estimation(const RegimeGrid& grid, const std::vector<double>& fractions,
                                                EstimationForm form = EstimationForm::definition5,
                                                bool reversed = false);

/// App. A.5: "Reducing k focuses capacity on high-weight combinations, minimizing the Approximation
/// Error": asserted E_pl(k - 1) < E_pl(k) for k = 2..T with D_i = i (i = 1..N). Reversed control:
/// E_pl(k - 1) > E_pl(k).
struct PowerlawCounterexample {
  std::int64_t N = 0;
  double alpha = 0.0;
  std::int64_t k = 0;  ///< the pair (k - 1, k)
  double error_k_minus_1 = 0.0, error_k = 0.0;
};
struct PowerlawCheck {
  bool reversed = false;
  std::size_t pairs = 0;
  std::vector<PowerlawCounterexample> counterexamples;
  bool holds() const { return counterexamples.empty(); }
};
PowerlawCheck check_powerlaw_reducing_k(const std::vector<std::int64_t>& N, const std::vector<double>& alpha,
                                        std::int64_t T, bool reversed = false);

}  // namespace moelab::sparsity
