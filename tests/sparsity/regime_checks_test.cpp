// Regime conclusions (a)-(d) of the `compositional` paper (Sec. 4.3.3) and the A.5 statement on reducing
// k, checked over the documented grid: what holds, what fails (with the counterexample), and every
// check's negative control.
#include "moelab/sparsity/regime_checks.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

namespace sps = moelab::sparsity;
using sps::EstimationForm;
using sps::KDomain;
using sps::Reading;
using sps::Regime;

namespace {

constexpr Regime kMonotone[] = {Regime::a_dataset_size, Regime::b_router_complexity, Regime::c_task_complexity};

}  // namespace

TEST_CASE("Definition 5 as printed: k* never moves, so (a)-(c) fail in the strict reading", "[sparsity]") {
  const auto grid = sps::default_regime_grid();
  for (KDomain domain : {KDomain::integer, KDomain::real}) {
    for (Regime r : kMonotone) {
      const auto c = sps::check_regime(r, grid, {EstimationForm::definition5, domain, Reading::strict});
      INFO("regime " << static_cast<int>(r));
      CHECK(c.pairs > 0);
      CHECK(c.unchanged == c.pairs);              // k* = T at every grid point
      CHECK(c.counterexamples.size() == c.pairs);  // the asserted movement never happens
      for (const auto& x : c.counterexamples) {
        CHECK(x.k_star_lower == static_cast<double>(x.lower.T));
        CHECK(x.k_star_upper == static_cast<double>(x.upper.T));
      }
      // The weak reading has no counterexample but is vacuous: nothing moved.
      const auto w = sps::check_regime(r, grid, {EstimationForm::definition5, domain, Reading::weak});
      CHECK(w.holds());
      CHECK(w.vacuous());
      // Negative control (strict reversal) also has counterexamples: the check can fail.
      CHECK_FALSE(sps::check_regime(r, grid, {EstimationForm::definition5, domain, Reading::strict}, true).holds());
    }
  }
}

TEST_CASE("Definition 5 as printed: (d) k* proportional to T holds trivially (k* = T), its control fails", "[sparsity]") {
  const auto grid = sps::default_regime_grid();
  const auto c = sps::check_regime(Regime::d_total_experts, grid, {});
  CHECK(c.holds());
  CHECK(c.moved_as_asserted == c.pairs);
  const auto control = sps::check_regime(Regime::d_total_experts, grid, {}, true);
  CHECK(control.counterexamples.size() == control.pairs);  // k* changes with T at every pair
}

TEST_CASE("(d) proportional scaling of k does not stop the estimation error from increasing", "[sparsity]") {
  const auto grid = sps::default_regime_grid();
  const std::vector<double> fractions{0.1, 1.0 / std::numbers::e, 0.5};  // c < 1
  for (EstimationForm form : {EstimationForm::definition5, EstimationForm::definition5_e, EstimationForm::theorem1}) {
    const auto c = sps::check_proportional_estimation(grid, fractions, form);
    INFO("form " << static_cast<int>(form));
    // Definition 5 with k = cT: E_est = b sqrt(N c T d_N log(1/c) / m), ~ sqrt(T): increases at every pair.
    CHECK(c.counterexamples.size() == c.pairs);
    // Negative control: "E_est increases strictly" has no counterexample for c < 1 ...
    CHECK(sps::check_proportional_estimation(grid, fractions, form, true).holds());
  }
  // ... and has counterexamples at c = 1 under Definition 5 (k = T: E_est = 0 for every T).
  const auto at_T = sps::check_proportional_estimation(grid, {1.0}, EstimationForm::definition5, true);
  CHECK(at_T.counterexamples.size() == at_T.pairs);
  // One counterexample by hand: N = 1, m = 100, d_N = 1, b = 0.1, c = 0.5, T 8 -> 16:
  // 0.1 sqrt(4 log 2 / 100) < 0.1 sqrt(8 log 2 / 100).
  sps::TradeoffParams p;
  p.m = 100;
  p.T = 8;
  p.b = 0.1;
  const double e8 = sps::estimation_error(4.0, p);
  p.T = 16;
  CHECK(sps::estimation_error(8.0, p) > e8);
  CHECK_THAT(sps::estimation_error(8.0, p) / e8, Catch::Matchers::WithinRel(std::sqrt(2.0), 1e-15));
}

TEST_CASE("with a k-increasing estimation error, (a)-(c) hold in the weak reading and their controls fail", "[sparsity]") {
  const auto grid = sps::default_regime_grid();
  for (EstimationForm form : {EstimationForm::definition5_e, EstimationForm::theorem1}) {
    for (KDomain domain : {KDomain::integer, KDomain::real}) {
      for (Regime r : kMonotone) {
        const auto c = sps::check_regime(r, grid, {form, domain, Reading::weak});
        INFO("form " << static_cast<int>(form) << ", regime " << static_cast<int>(r));
        CHECK(c.holds());
        CHECK_FALSE(c.vacuous());
        CHECK(c.moved_against == 0);
        const auto control = sps::check_regime(r, grid, {form, domain, Reading::weak}, true);
        CHECK(control.counterexamples.size() == c.moved_as_asserted);
        CHECK_FALSE(control.holds());
        // Strict reading: k* pinned at 1 or T on part of the grid, so "k* moves" fails there.
        CHECK_FALSE(sps::check_regime(r, grid, {form, domain, Reading::strict}).holds());
      }
    }
  }
}

TEST_CASE("with Theorem 1's estimation term, (d) fails: k* can decrease when T grows", "[sparsity]") {
  const auto grid = sps::default_regime_grid();
  const auto c = sps::check_regime(Regime::d_total_experts, grid, {EstimationForm::theorem1, KDomain::integer});
  CHECK_FALSE(c.holds());
  // The documented counterexample: N = 1, m = 100, d_N = 1, a = 1, b = 0.1, T = 16 -> 32: k* = 16 -> 15.
  sps::TradeoffParams p;
  p.m = 100;
  p.b = 0.1;
  p.T = 16;
  CHECK(sps::integer_k_star(p, EstimationForm::theorem1).k == 16);
  p.T = 32;
  CHECK(sps::integer_k_star(p, EstimationForm::theorem1).k == 15);
  CHECK_FALSE(sps::check_regime(Regime::d_total_experts, grid, {EstimationForm::theorem1, KDomain::integer}, true).holds());
}

TEST_CASE("A.5: reducing k never reduces the power-law weighted approximation error", "[sparsity]") {
  const auto c = sps::check_powerlaw_reducing_k({2, 4, 8, 16}, {1.5, 2.0, 3.0}, 64);
  CHECK(c.pairs == 4 * 3 * 63);
  CHECK(c.counterexamples.size() == c.pairs);  // W / (k - 1) > W / k at every pair
  CHECK(c.counterexamples.front().error_k_minus_1 > c.counterexamples.front().error_k);
  // Negative control: "reducing k increases it" holds everywhere, so it has no counterexample.
  CHECK(sps::check_powerlaw_reducing_k({2, 4, 8, 16}, {1.5, 2.0, 3.0}, 64, true).holds());
}

TEST_CASE("regime checks reject malformed grids", "[sparsity]") {
  auto grid = sps::default_regime_grid();
  grid.m = {1e3, 1e2};
  CHECK_THROWS_AS(sps::check_regime(Regime::a_dataset_size, grid, {}), std::logic_error);
  grid = sps::default_regime_grid();
  grid.T = {8, 12.5};
  CHECK_THROWS_AS(sps::check_regime(Regime::d_total_experts, grid, {}), std::logic_error);
  CHECK_THROWS_AS(sps::check_proportional_estimation(sps::default_regime_grid(), {1.5}), std::logic_error);
}
