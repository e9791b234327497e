// Claim: Lemma 6 (Natarajan / Haussler-Long growth, Eq. 27) of the compositional paper, over a grid
// (Eq. 13's routing-pattern counts against this growth bound: claims_pattern_counts.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/core/log_binomial.hpp"

namespace moelab::bounds::detail {

namespace {

// Lemma 6 and its relatives over a grid: the Haussler-Long count never exceeds Lemma 6's m^d L^(2d); log-space
// binomials equal the exact integers for small arguments; Sauer-Shelah's closed form bounds its sum.
Evidence check_natarajan(const CheckBudget&, const RngKey&) {
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

}  // namespace

void register_growth_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"bounds.lemma6.natarajan", src + "Lemma 6, Eq. 27; Haussler & Long 1995",
         "A class of Natarajan dimension d realises at most m^d L^(2d) labelings of m points into L classes.", ClaimKind::bound,
         check_natarajan});
}

}  // namespace moelab::bounds::detail
