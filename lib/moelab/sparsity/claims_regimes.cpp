// Claims: the regime conclusions (a)-(d) at the end of Sec. 4.3.3 of the compositional paper, checked
// exhaustively over the grid of docs/sparsity.md (default_regime_grid) and reported as deterministic
// tests. "Printed" is the statement with Definition 5 as printed; "exact" is the same conclusion with
// the k-dependent term of Theorem 1 (Eq. 5), the estimation error the paper derives before
// simplifying it (docs/sparsity.md).
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "moelab/sparsity/detail/claim_support.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"
#include "moelab/sparsity/regime_checks.hpp"

namespace moelab::sparsity::detail {

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

/// Every pair of the grid enumerated: failing pairs counted; a statement that holds only because no
/// pair moved at all (vacuous) is rejected too.
TestResult as_test(const std::string& form, const RegimeCheck& c) {
  return claims::deterministic_test(form + " (failing pairs)", static_cast<double>(c.counterexamples.size()), 0.0,
                                    c.holds() && !c.vacuous());
}

Evidence check_regime_conclusion(Regime regime) {
  const auto grid = default_regime_grid();
  const RegimeOptions printed{EstimationForm::definition5, KDomain::integer, Reading::strict};
  const RegimeOptions exact{EstimationForm::theorem1, KDomain::integer, Reading::weak};
  const auto p = check_regime(regime, grid, printed);
  const auto x = check_regime(regime, grid, exact);
  const auto c = check_regime(regime, grid, exact, /*reversed=*/true);
  Evidence e;
  e.printed = as_test("Definition 5 as printed, k* moves as asserted at every pair", p);
  e.exact = as_test("Theorem 1's k-term, k* never moves against the assertion (and moves somewhere)", x);
  e.control(as_test("Theorem 1's k-term, reversed direction", c));
  // Exhaustive over the grid: one failing pair refutes the statement.
  e.relevance = 1.0;
  e.note = fmt::format("printed: {}. exact: {}. control: {}", describe(p), describe(x), describe(c));
  return e;
}

// (d): "k needs to be adjusted proportionally" — printed reading (d, est) with Definition 5, exact reading (d, k*)
// with Theorem 1's term; both fail on the grid (docs/sparsity.md).
Evidence check_regime_d_total_experts(const CheckBudget&, const RngKey&) {
  const auto grid = default_regime_grid();
  const auto est = check_proportional_estimation(grid, {0.1, 1.0 / M_E, 0.5});
  const RegimeOptions exact{EstimationForm::theorem1, KDomain::integer, Reading::weak};
  const auto k = check_regime(Regime::d_total_experts, grid, exact);
  const auto c = check_regime(Regime::d_total_experts, grid, exact, /*reversed=*/true);
  Evidence e;
  e.printed = claims::exhaustive_test("Definition 5: with k = c T, E_est does not grow with T (failing pairs)",
                                      static_cast<std::int64_t>(est.pairs), static_cast<std::int64_t>(est.counterexamples.size()));
  e.exact = as_test("Theorem 1's k-term: k*(T) / T constant", k);
  e.control(as_test("Theorem 1's k-term: k* does not depend on T", c));
  // Exhaustive over the grid: one failing pair refutes the statement.
  e.relevance = 1.0;
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

}  // namespace

void register_regimes_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"sparsity.regime.a_dataset_size", src + "Sec. 4.3.3 (a)", "Under a large dataset (m large) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, const RngKey&) { return check_regime_conclusion(Regime::a_dataset_size); }});
  r.add({"sparsity.regime.b_router_complexity", src + "Sec. 4.3.3 (b)",
         "Under high router complexity (d_N large) a smaller k* is preferred.", ClaimKind::inequality,
         [](const CheckBudget&, const RngKey&) { return check_regime_conclusion(Regime::b_router_complexity); }});
  r.add({"sparsity.regime.c_task_complexity", src + "Sec. 4.3.3 (c)", "Under increasing task complexity (N) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, const RngKey&) { return check_regime_conclusion(Regime::c_task_complexity); }});
  r.add({"sparsity.regime.d_total_experts", src + "Sec. 4.3.3 (d)",
         "When T increases, k must be adjusted proportionally to prevent an increase of the estimation error.", ClaimKind::inequality,
         check_regime_d_total_experts});
}

}  // namespace moelab::sparsity::detail
