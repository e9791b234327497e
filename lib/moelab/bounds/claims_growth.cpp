// Claims: Lemma 6 (Natarajan / Haussler-Long growth, Eq. 27) and Eq. 13 (routing-pattern counts of
// the mask class against its growth bound). The pattern count is the experiment of the study
// bounds.patterns: both call count_routing_patterns (pattern_counts.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/bounds/pattern_counts.hpp"

namespace moelab::bounds::detail {

// Lemma 6 and its relatives over a grid: the Haussler-Long count never exceeds Lemma 6's m^d L^(2d); log-space
// binomials equal the exact integers for small arguments; Sauer-Shelah's closed form bounds its sum.
Evidence lemma6_claim(const CheckBudget&, const RngKey&) {
  double worst = -std::numeric_limits<double>::infinity(), worst_reverse = std::numeric_limits<double>::infinity();
  std::string where;
  int points = 0;
  for (double m : {1.0, 2.0, 5.0, 10.0, 50.0, 256.0, 1e4, 1e8})
    for (double d : {0.0, 1.0, 2.0, 5.0, 16.0, 64.0})
      for (double L : {2.0, 3.0, 10.0, 28.0, 4.1e9}) {
        const double hl = log_haussler_long(m, d, L), nat = log_natarajan_growth(m, d, L);
        ++points;
        if (hl - nat > worst) worst = hl - nat, where = fmt::format("m = {}, d = {}, labels = {}", m, d, L);
        if (d >= 1) worst_reverse = std::min(worst_reverse, hl - nat);
      }
  // log-space binomial against exact integers (C(n, k) < 2^53 is exact in double).
  double bin_err = 0.0;
  for (int n = 0; n <= 50; ++n) {
    double c = 1.0;  // C(n, 0)
    for (int k = 0; k <= n; ++k) {
      bin_err = std::max(bin_err, std::abs(log_binomial(n, k) - std::log(c)) / std::max(1.0, std::log(c)));
      c = c * (n - k) / (k + 1);
    }
  }
  Evidence e;
  const double tol = 1e-12;  // relative rounding of log-sum-exp over at most 65 terms
  e.printed = claims::deterministic_test("Lemma 6: Haussler-Long count <= m^d labels^(2d) (max log excess over the grid)", worst,
                                         0.0, worst <= tol && bin_err <= 1e-13);
  e.control(claims::deterministic_test("reverse: m^d labels^(2d) <= Haussler-Long count (d >= 1)", -worst_reverse, 0.0,
                                       -worst_reverse <= tol));
  // Exhaustive over the grid, no sampling: any log excess above the rounding tolerance is seen.
  e.relevance = tol;
  e.note = fmt::format("{} grid points; largest log excess {:.3g} at {}; log C(n, k) vs exact integers n <= 50: relative error "
                       "{:.2g}; the reverse fails by up to {:.3g} nats",
                       points, worst, where, bin_err, -worst_reverse);
  return e;
}

// Item 4: distinct top-k patterns realised by random linear routers vs Eq. 13 (Lemma 6) with d_N = d T.
// One trial = one random router (as in bounds.patterns); the count is exact for the routers drawn, a
// lower estimate of the growth function, so a count above a bound refutes it without sampling error.
Evidence pattern_counts_claim(const CheckBudget& b, const RngKey& key) {
  PatternCountParams p{.m = 32, .d = 3, .T = 8, .k = 2, .routers = b.pick<std::uint64_t>(100000, 1000000)};
  const auto r = count_routing_patterns(p, key.with("routers").seed());
  const double log_c = log_binomial(p.T, p.k);
  const double control_bound = std::log(static_cast<double>(p.m)) + 2.0 * log_c;  // d_N = 1
  Evidence e;
  e.printed = claims::deterministic_test("distinct patterns <= Eq. 13 bound m^(d_N) C(T,k)^(2 d_N), d_N = d T (log)",
                                         r.log_patterns, r.log_eq13_bound, r.log_patterns <= r.log_eq13_bound);
  e.exact = claims::deterministic_test("distinct patterns <= hyperplane-arrangement bound (log)", r.log_patterns,
                                       r.log_arrangement_bound, r.log_patterns <= r.log_arrangement_bound);
  e.control(claims::deterministic_test("Eq. 13 with d_N = 1 (log)", r.log_patterns, control_bound,
                                       r.log_patterns <= control_bound));
  // One pattern above the bound refutes it: a log excess of log(1 + 1/count) is detected.
  e.relevance = std::log1p(1.0 / static_cast<double>(r.distinct_patterns));
  e.note = fmt::format("m = {}, d = {}, T = {}, k = {}: {} distinct patterns from {} routers (sample-limited fraction {:.3f}), "
                       "{} distinct masks of C(T,k) = {:.0f}; log count {:.2f} vs Eq. 13 {:.1f}, arrangements {:.1f}, all tuples {:.1f}",
                       p.m, p.d, p.T, p.k, r.distinct_patterns, r.routers, r.sample_limited, r.distinct_masks, std::exp(log_c),
                       r.log_patterns, r.log_eq13_bound, r.log_arrangement_bound, r.log_all_patterns);
  return e;
}

}  // namespace moelab::bounds::detail
