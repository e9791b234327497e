// Claims of sparsity/: statements about closed forms, checked exhaustively over the grid of
// docs/sparsity.md (default_regime_grid) and reported as deterministic tests. "Printed" is the statement
// with Definition 5 as printed; "exact" is the same conclusion with the k-dependent term of Theorem 1
// (Eq. 5), the estimation error the paper derives before simplifying it (docs/sparsity.md).
#include "moelab/sparsity/sparsity_claims.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"
#include "moelab/sparsity/regime_checks.hpp"

namespace moelab::sparsity {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;

namespace {

std::string describe(const RegimeCheck& c) {
  std::string s = fmt::format("{} of {} pairs fail ({} moved as asserted, {} unchanged, {} against)", c.counterexamples.size(), c.pairs,
                              c.moved_as_asserted, c.unchanged, c.moved_against);
  if (!c.counterexamples.empty()) {
    const auto& x = c.counterexamples.front();
    s += fmt::format("; e.g. N = {}, m = {}, d_N = {}, T = {}, b = {}: k* {} -> {}", x.lower.N, x.lower.m, x.lower.d_N, x.lower.T,
                     x.lower.b, x.k_star_lower, x.k_star_upper);
  }
  return s;
}

claims::TestResult as_test(const std::string& form, const RegimeCheck& c) {
  return claims::deterministic_test(form + " (failing pairs)", static_cast<double>(c.counterexamples.size()), 0.0, c.holds() && !c.vacuous());
}

Evidence check_regime_claim(Regime regime) {
  const auto grid = default_regime_grid();
  const RegimeOptions printed{EstimationForm::definition5, KDomain::integer, Reading::strict};
  const RegimeOptions exact{EstimationForm::theorem1, KDomain::integer, Reading::weak};
  const auto p = check_regime(regime, grid, printed);
  const auto x = check_regime(regime, grid, exact);
  const auto c = check_regime(regime, grid, exact, /*reversed=*/true);
  Evidence e;
  e.printed = as_test("Definition 5 as printed, k* moves as asserted at every pair", p);
  e.exact = as_test("Theorem 1's k-term, k* never moves against the assertion (and moves somewhere)", x);
  e.control = as_test("Theorem 1's k-term, reversed direction", c);
  e.note = fmt::format("printed: {}. exact: {}. control: {}", describe(p), describe(x), describe(c));
  return e;
}

// (d): "k needs to be adjusted proportionally" — printed reading (d, est) with Definition 5, exact reading (d, k*)
// with Theorem 1's term; both fail on the grid (docs/sparsity.md).
Evidence check_regime_d_claim(const CheckBudget&, std::uint64_t) {
  const auto grid = default_regime_grid();
  const auto est = check_proportional_estimation(grid, {0.1, 1.0 / M_E, 0.5});
  const RegimeOptions exact{EstimationForm::theorem1, KDomain::integer, Reading::weak};
  const auto k = check_regime(Regime::d_total_experts, grid, exact);
  const auto c = check_regime(Regime::d_total_experts, grid, exact, /*reversed=*/true);
  Evidence e;
  e.printed = claims::deterministic_test("Definition 5: with k = c T, E_est does not grow with T (failing pairs)",
                                         static_cast<double>(est.counterexamples.size()), 0.0, est.holds());
  e.exact = as_test("Theorem 1's k-term: k*(T) / T constant", k);
  e.control = as_test("Theorem 1's k-term: k* does not depend on T", c);
  std::string ex;
  if (!est.counterexamples.empty()) {
    const auto& x = est.counterexamples.front();
    ex = fmt::format("e.g. c = {:.3g}, T {} -> {}: E_est {:.5g} -> {:.5g}", x.c, x.lower.T, x.upper.T, x.estimation_lower,
                     x.estimation_upper);
  }
  e.note = fmt::format("printed: {} of {} pairs fail, {}. exact: {}. control: {}", est.counterexamples.size(), est.pairs, ex,
                       describe(k), describe(c));
  return e;
}

// Sec. 4.3.3: the balance of E_approx and E_est gives an optimal k* inside (1, T).
Evidence check_interior_claim(const CheckBudget&, std::uint64_t) {
  const auto g = default_regime_grid();
  std::size_t points = 0, interior_def5 = 0, interior_thm1 = 0;
  for (double N : g.N)
    for (double m : g.m)
      for (double dN : g.d_N)
        for (double T : g.T)
          for (double b : g.b) {
            const TradeoffParams p{.N = N, .m = m, .d_N = dN, .T = static_cast<std::int64_t>(T), .a = 1.0, .b = b};
            ++points;
            const auto k5 = integer_k_star(p, EstimationForm::definition5).k;
            const auto k1 = integer_k_star(p, EstimationForm::theorem1).k;
            interior_def5 += (k5 > 1 && k5 < p.T);
            interior_thm1 += (k1 > 1 && k1 < p.T);
          }
  Evidence e;
  e.printed = claims::deterministic_test("Definition 5: grid points with 1 < k* < T", static_cast<double>(interior_def5), 1.0,
                                         interior_def5 > 0);
  e.exact = claims::deterministic_test("Theorem 1's k-term: grid points with 1 < k* < T", static_cast<double>(interior_thm1), 1.0,
                                       interior_thm1 > 0);
  e.control = claims::deterministic_test("Theorem 1's k-term: k* at an end of [1, T] everywhere", static_cast<double>(interior_thm1), 0.0,
                                         interior_thm1 == 0);
  e.note = fmt::format("{} grid points: interior k* at {} (Definition 5: k* = T always, E_est(T) = 0) and {} (Theorem 1's term)", points,
                       interior_def5, interior_thm1);
  return e;
}

// Remark 3: E_est of Definition 5 peaks at k = T / e.
Evidence check_remark3_claim(const CheckBudget&, std::uint64_t) {
  double worst = 0.0, worst_control = INFINITY;
  int n = 0;
  for (std::int64_t T : {3, 5, 8, 16, 64, 256, 1000, 100000})
    for (double N : {1.0, 7.0})
      for (double m : {10.0, 1e6}) {
        const TradeoffParams p{.N = N, .m = m, .d_N = 3.0, .T = T, .a = 1.0, .b = 2.0};
        const double k = estimation_peak_k_numeric(p);
        worst = std::max(worst, std::abs(k - estimation_peak_k(T)) / k);
        worst_control = std::min(worst_control, std::abs(k - T / 2.0) / k);
        ++n;
      }
  const double tol = 1e-7;  // Brent's maximiser is accurate to ~sqrt(eps) relative in k
  Evidence e;
  e.printed = claims::deterministic_test("numerical argmax of E_est = T / e (largest relative difference)", worst, 0.0, worst <= tol);
  e.control = claims::deterministic_test("argmax at T / 2 (smallest relative difference)", worst_control, 0.0, worst_control <= tol);
  e.note = fmt::format("{} parameter sets, T = 3..1e5: argmax within {:.2g} of T/e (tolerance {:g}: Brent, sqrt(eps))", n, worst, tol);
  return e;
}

// App. A.5: "Reducing k focuses capacity on high-weight combinations, minimizing the Approximation Error".
Evidence check_a5_claim(const CheckBudget&, std::uint64_t) {
  const std::vector<std::int64_t> N{2, 4, 8, 16};
  const std::vector<double> alpha{1.5, 2.0, 3.0};
  const auto printed = check_powerlaw_reducing_k(N, alpha, 64);
  const auto reversed = check_powerlaw_reducing_k(N, alpha, 64, /*reversed=*/true);
  // Control: E_pl does not depend on k (relative change of 1e-12 at most between k - 1 and k).
  double min_change = INFINITY;
  for (auto n : N)
    for (double a : alpha) {
      const auto D = index_difficulties(n);
      for (std::int64_t k = 2; k <= 64; ++k) {
        const double lo = powerlaw_approximation_error(static_cast<double>(k - 1), D, a);
        const double hi = powerlaw_approximation_error(static_cast<double>(k), D, a);
        min_change = std::min(min_change, std::abs(lo - hi) / hi);
      }
    }
  Evidence e;
  e.printed = claims::deterministic_test("E_pl(k - 1) < E_pl(k) (failing pairs)", static_cast<double>(printed.counterexamples.size()), 0.0,
                                         printed.holds());
  e.exact = claims::deterministic_test("E_pl(k - 1) > E_pl(k): a W / k decreases in k for any weights (failing pairs)",
                                       static_cast<double>(reversed.counterexamples.size()), 0.0, reversed.holds());
  e.control = claims::deterministic_test("E_pl independent of k (smallest relative change)", min_change, 0.0, min_change <= 1e-12);
  e.note = fmt::format("N in {{2, 4, 8, 16}}, alpha in {{1.5, 2, 3}}, k = 2..64, D_i = i: the printed statement fails at {} of {} pairs",
                       printed.counterexamples.size(), printed.pairs);
  return e;
}

}  // namespace

void register_sparsity_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"sparsity.remark3.peak", src + "Remark 3", "E_est(k) = b sqrt(N k d_N log(T/k) / m) is largest at k = T / e.",
         ClaimKind::equality, check_remark3_claim});
  r.add({"sparsity.sec433.interior_optimum", src + "Sec. 4.3.3",
         "Balancing E_approx = a N^2 / k against E_est gives an optimal sparsity k* strictly between 1 and T.", ClaimKind::inequality,
         check_interior_claim});
  r.add({"sparsity.regime.a_dataset_size", src + "Sec. 4.3.3 (a)", "Under a large dataset (m large) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, std::uint64_t) { return check_regime_claim(Regime::a_dataset_size); }});
  r.add({"sparsity.regime.b_router_complexity", src + "Sec. 4.3.3 (b)",
         "Under high router complexity (d_N large) a smaller k* is preferred.", ClaimKind::inequality,
         [](const CheckBudget&, std::uint64_t) { return check_regime_claim(Regime::b_router_complexity); }});
  r.add({"sparsity.regime.c_task_complexity", src + "Sec. 4.3.3 (c)", "Under increasing task complexity (N) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, std::uint64_t) { return check_regime_claim(Regime::c_task_complexity); }});
  r.add({"sparsity.regime.d_total_experts", src + "Sec. 4.3.3 (d)",
         "When T increases, k must be adjusted proportionally to prevent an increase of the estimation error.", ClaimKind::inequality,
         check_regime_d_claim});
  r.add({"sparsity.a5.reducing_k", src + "App. A.5",
         "With power-law weights, reducing k focuses capacity on high-weight combinations, minimising the approximation error.",
         ClaimKind::inequality, check_a5_claim});
}

}  // namespace moelab::sparsity
