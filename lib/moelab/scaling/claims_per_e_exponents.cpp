// Claim: the scaling paper's per-E exponents in the compute-optimal split. The review (line 83) says the paper
// reads per-E reduced exponents mu(E), nu(E) from a cited empirical law (their Eq. 5 and Table 4), maps
// alpha_N(E) := mu(E), alpha_D(E) := nu(E) and allocates compute under F = 6 N_act D. Under
// L_E(N, D) = E0 + A N^-mu(E) + B D^-nu(E) that gives N* ~ F^(nu(E)/(mu(E)+nu(E))): checked per E against the
// brute-force grid of scaling.compute_optimal (grid_optimum, claims_scaling_laws.cpp). The review does not give
// Table 4, so the exponent law is an assumption, of the form of Clark et al. 2022's routed scaling law
// (log L = a log N + b log E + c log N log E + d, whose N-exponent a + c log E is log-linear in E):
//   mu(E) = 0.34 - 0.02 log E,  nu(E) = 0.28 + 0.01 log E,  E = 1, 2, 4, ..., 512,
// A = 406.4, B = 410.7, E0 = 1.69 (Hoffmann et al. 2022's fit) for every E.
// The theory's side (Theorem 4.3 with the ERM bound): the approximation term decays as N_act^(-2 beta/d) (squared
// L2 error) whatever E, and the estimation term sigma^2 (N_act + routing overhead) / D; with F = 6 N D its optimum
// is N* ~ F^(d/(2d + 2 beta)), the same for every E (the overhead adds no power of F). An E-dependent exponent is
// therefore the empirical law's, not something the active-parameter theory predicts. That prediction (an
// E-independent allocation exponent) is reported in the note, not used as a control: the assumed law excludes it
// by construction. The control is the nearest wrong mapping, the one read the other way round.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/scaling/detail/claim_support.hpp"
#include "moelab/scaling/scaling_laws.hpp"

namespace moelab::scaling::detail {

namespace {

// The assumed per-E exponent law (see the file comment).
double mu_of(double E) { return 0.34 - 0.02 * std::log(E); }
double nu_of(double E) { return 0.28 + 0.01 * std::log(E); }

Evidence check_per_e_exponents(const CheckBudget& b, const RngKey&) {
  const int G = b.pick(40001, 400001);
  const std::vector<double> flops{1e15, 1e18, 1e21, 1e24};
  std::int64_t cases = 0, outside = 0, swapped_cases = 0, swapped_outside = 0, slope_violations = 0, e_cases = 0;
  std::int64_t e_independent_violations = 0;
  double worst_slope = 0.0, tol = 0.0, slope_at_1 = 0.0, smallest_change = INFINITY, total_change = 0.0;
  std::string table;
  for (int i = 0; i <= 9; ++i) {
    const double E = std::ldexp(1.0, i);
    const LossModel model{1.69, 406.4, mu_of(E), 410.7, nu_of(E)};  // alpha_N(E) := mu(E), alpha_D(E) := nu(E)
    // The closed form against the grid bracket at each F, and the control (the mapping read the other way round,
    // alpha_N(E) := nu(E), alpha_D(E) := mu(E)), as in scaling.compute_optimal.
    const AllocationSweep r = allocation_sweep(model, flops, G);
    cases += r.cases, outside += r.outside, swapped_cases += r.swapped_cases, swapped_outside += r.swapped_outside;
    // The allocation exponent: slope of the grid minimisers between the extreme budgets, against nu/(mu+nu).
    const double slope = r.slope;
    const double stated = nu_of(E) / (mu_of(E) + nu_of(E));
    const double t = r.tol;  // each grid argmin within one step of the minimiser
    tol = std::max(tol, t);
    worst_slope = std::max(worst_slope, std::abs(slope - stated));
    if (std::abs(slope - stated) > t) ++slope_violations;
    if (i == 0) {
      slope_at_1 = slope;
    } else {
      // Reported (the active-parameter theory): the exponent does not move with E. Two grid slopes each within t of
      // their minimisers' slope differ by more than 2 t only if the exponents differ.
      ++e_cases;
      const double change = std::abs(slope - slope_at_1);
      smallest_change = std::min(smallest_change, change);
      total_change = std::max(total_change, change);
      if (change > 2.0 * t) ++e_independent_violations;
    }
    if (i % 3 == 0)
      table += fmt::format("{}E = {}: mu {:.3f}, nu {:.3f}, grid slope {:.4f} vs nu/(mu+nu) {:.4f}", table.empty() ? "" : "; ",
                           static_cast<int>(E), mu_of(E), nu_of(E), slope, stated);
  }
  Evidence e;
  e.printed = claims::exhaustive_test(
      "alpha_N(E) := mu(E), alpha_D(E) := nu(E): closed-form N* inside the grid bracket of argmin L_E(N, F/6N), and the grid "
      "minimisers' slope in F = nu(E)/(mu(E)+nu(E)), E = 1..512 (cases outside)",
      cases + 10, outside + slope_violations);
  // Not a control: that the allocation exponent moves with E follows from the assumed law itself, so "independent of E"
  // (what the active-parameter theory alone predicts) is rejected by construction; the note reports it
  // (e_independent_violations of e_cases) as information about the law, not as evidence for the mapping.
  e.control(claims::exhaustive_test("mapping swapped, alpha_N(E) := nu(E), alpha_D(E) := mu(E): inside the bracket",
                                    swapped_cases, swapped_outside));
  // Exhaustive with an exact (convexity) criterion, as scaling.compute_optimal: an error of more than two grid
  // steps in log N, or of more than `tol` in the exponent, is always seen.
  e.relevance = 2.0 * std::log(6e24 / 6.0) / (G - 1);
  e.note = fmt::format(
      "ASSUMED exponent law (the review omits Table 4): mu(E) = 0.34 - 0.02 log E, nu(E) = 0.28 + 0.01 log E (Clark et al. "
      "2022's log-linear form), A = 406.4, B = 410.7, E0 = 1.69; F = 1e15..1e24, {} grid points in log N. Closed form outside "
      "its bracket {} of {} times; grid slope within {:.2g} of nu/(mu+nu) for every E (worst {:.2g}). {}. The exponent moves "
      "with E by at least {:.3f} (E = 2) and {:.3f} over E = 1..512, so the active-parameter theory's E-independent "
      "exponent d/(2d + 2 beta) cannot produce it: the per-E law is empirical input, not a consequence of the bound. "
      "E-independent exponent contradicted at {} of {} E (by construction of the law). Swapped mapping outside {} of {}",
      G, outside, cases, tol, worst_slope, table, smallest_change, total_change, e_independent_violations, e_cases, swapped_outside,
      swapped_cases);
  return e;
}

}  // namespace

void register_per_e_exponents_claims(claims::Registry& r) {
  r.add({"scaling.per_e_exponents", "scaling, Sec. 5 / appendix (review line 83: alpha_N(E) := mu(E), alpha_D(E) := nu(E))",
         "Reading per-E exponents mu(E), nu(E) into L = E0 + A N^-mu + B D^-nu with F = 6 N_act D gives N* ~ "
         "F^(nu(E)/(mu(E)+nu(E))): an allocation exponent that moves with E.",
         ClaimKind::equality, check_per_e_exponents});
}

}  // namespace moelab::scaling::detail
