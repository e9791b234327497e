// Claims on the generalization gap of trained MoEs against Theorem 1 of the compositional paper
// (Eq. 5 as printed). The training runs are the study trained.generalization_gap's (run_gap_trial):
// d = 8, a 4-expert top-1 linear teacher, label noise 0.5, 600 AdamW steps of batch 64 (lr 1e-2),
// 8192 test points, bounded loss min(1, |f - y|). Paired design: run t uses key.with(..., t) whatever
// the student, so the students compared at one m share teacher, data and noise.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/bounds/generalization.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/trained/detail/claim_support.hpp"
#include "moelab/trained/generalization_gap.hpp"

namespace moelab::trained::detail {

namespace {

GapSpec claim_spec(int T, int k, std::int64_t m) {
  GapSpec s;  // as scenarios/trained_generalization_gap.toml
  s.d = 8, s.teacher_T = 4, s.teacher_k = 1, s.noise = 0.5, s.test_size = 8192, s.steps = 600, s.batch = 64, s.lr = 1e-2;
  s.rademacher_draws = 200;
  s.T = T, s.k = k, s.m = m;
  return s;
}

/// The gaps of `specs` over `seeds` training seeds (index = spec * seeds + seed), in parallel.
std::vector<GapRun> gap_runs(const std::vector<GapSpec>& specs, std::int64_t seeds, const RngKey& key) {
  const auto n = static_cast<std::size_t>(seeds);
  return parallel_map<GapRun>(specs.size() * n, [&](std::size_t i) {
    return run_gap_trial(specs[i / n], key, static_cast<std::int64_t>(i % n));
  });
}

std::string values(const std::vector<GapRun>& runs, std::size_t first, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("{}{:.3f}", i ? ", " : "", runs[first + i].gap());
  return s;
}

// Theorem 1 as printed bounds the measured gap, checked at the most stringent size where it is not
// vacuous: T = 4, k = 2, m = 2048 (printed bound ~0.85 < 1). Over m = 64..8192 (6 seeds) the printed
// bound exceeds the mean gap by 12x (m = 64, bound 5.6) to 95x (m = 2048) and more: the gap is at most
// 1 (loss in [0, 1]) and falls below 0.05 before the bound falls below 1. So a bound 2x too small is
// still a true bound at every m and no measurement of this gap can reject it; the wrong forms the test
// can reject are those below the gap itself. The control is therefore the smallest such form at the
// claim's own point, on the same seeds: "no gap" (E gap <= 0) must be rejected, i.e. the measurement
// resolves the gap it compares with the bound (not a gap at another size). The note gives the factor
// by which the bound could shrink and still hold here (a lower confidence limit of bound / gap).
Evidence check_gap_below_bound(const CheckBudget& b, const RngKey& key) {
  // The per-seed gap at m = 2048 has a spread ~0.009 around a mean ~0.009: with 24 seeds "no gap" was
  // rejected at t ~ 4.8 (23 dof), just past the suite level (alpha / 99, one-sided t ~ 4.2), and the
  // verdict turned inconclusive at 3 of suite seeds 1..20. 64 seeds give t ~ 8: decided at every seed.
  const std::int64_t seeds = b.pick<std::int64_t>(64, 128);
  const auto spec = claim_spec(4, 2, 2048);
  const auto runs = gap_runs({spec}, seeds, key);
  const auto n = static_cast<std::size_t>(seeds);
  Welford g, rb;
  for (std::size_t t = 0; t < n; ++t) g.add(runs[t].gap()), rb.add(runs[t].expert_rademacher);
  const auto p = theorem1_params(spec, rb.mean());
  const auto printed = bounds::theorem1_printed(p), eq17 = bounds::theorem1_eq17(p), derived = bounds::theorem1_derived(p);
  Evidence e;
  e.printed = claims::upper_bound_test(
      fmt::format("E gap <= Theorem 1 as printed (Eq. 5) = {:.3f} at m = 2048, T = 4, k = 2 (d_N = d T = 32, R_m(H) = {:.4f})",
                  printed.total, rb.mean()),
      g, printed.total);
  e.control(claims::upper_bound_test("no generalization gap at the same point (E gap <= 0, m = 2048, same seeds)", g, 0.0));
  // A violation smaller than 0.05 (5% of the loss range [0, 1]) would not change the reading that the
  // bound sits far above the gap.
  e.relevance = 0.05;
  // Upper 99.9% limit of the mean gap (one-sided t): the bound could shrink by bound / that and still hold.
  const double gap_high = g.mean() + student_t_quantile(0.999, static_cast<double>(n) - 1.0) * g.standard_error();
  e.note = fmt::format(
      "{} seeds. m = 2048: gap {:.4f} +- {:.2g} (seeds: {}); Theorem 1 printed {:.3f}, Eq. 17 {:.3f}, derived {:.3f}. "
      "bound / gap = {:.0f} (printed); with the gap at its upper 99.9% limit {:.4f}, a bound {:.0f}x smaller than printed "
      "would still hold here, so a bound 2x too small cannot be rejected by this (or any) measurement of the gap: it is "
      "true. The test rejects only forms below the gap (control: no gap). {}",
      seeds, g.mean(), g.standard_error(), values(runs, 0, n), printed.total, eq17.total, derived.total,
      printed.total / g.mean(), gap_high, printed.total / gap_high,
      b.full ? "--full: 128 seeds." : "--quick: 64 seeds, ~0.1 s of training each.");
  return e;
}

// The printed routing term 2 k N d_N log T grows linearly in k: at fixed T the bound grows with k.
// Checked on the measured gap from k = 2 to k = 4 (k = 1 is left out: with one selected logit the
// softmax weight is 1 and the router receives no gradient, so k = 1 students have an untrained router,
// a different class). Statistic: the paired difference gap(k = 4) - gap(k = 2) at T = 16, m = 256.
// Printed: E[difference] >= 0 (rejected when significantly negative). Control: "no gap" at k = 2
// (E gap <= 0) must be rejected.
Evidence check_gap_grows_with_k(const CheckBudget& b, const RngKey& key) {
  const std::int64_t seeds = b.pick<std::int64_t>(8, 64);
  const auto k2 = claim_spec(16, 2, 256), k4 = claim_spec(16, 4, 256);
  const auto runs = gap_runs({k2, k4}, seeds, key);
  const auto n = static_cast<std::size_t>(seeds);
  Welford diff, g2, g4;
  for (std::size_t t = 0; t < n; ++t) {
    g2.add(runs[t].gap()), g4.add(runs[n + t].gap());
    diff.add(runs[n + t].gap() - runs[t].gap());
  }
  const auto b2 = bounds::theorem1_printed(theorem1_params(k2, 0.0)), b4 = bounds::theorem1_printed(theorem1_params(k4, 0.0));
  Evidence e;
  e.printed = detail::lower_bound_test("the gap grows with k as Theorem 1's printed k-term: E[gap(k = 4) - gap(k = 2)] >= 0 "
                                       "(T = 16, m = 256, paired seeds)",
                                       diff, 0.0);
  e.control(claims::upper_bound_test("no generalization gap at k = 2 (E gap <= 0)", g2, 0.0));
  // The printed bound's deviation term grows by a factor ~1.3 from k = 2 to 4 (note); a gap change of
  // 0.02 (under 10% of the measured gap ~0.25) is the smallest that would count as a k effect.
  e.relevance = 0.02;
  e.note = fmt::format(
      "{} seeds, T = 16, m = 256: gap k = 2 {:.4f} +- {:.2g}, k = 4 {:.4f} +- {:.2g}, paired difference {:.4f} +- {:.2g}. "
      "Theorem 1 printed deviation term (R-free) k = 2: {:.2f}, k = 4: {:.2f} (x{:.2f}); Eq. 17's routing log C(16, k): "
      "x{:.2f}. {}",
      seeds, g2.mean(), g2.standard_error(), g4.mean(), g4.standard_error(), diff.mean(), diff.standard_error(),
      b2.deviation_term, b4.deviation_term, b4.deviation_term / b2.deviation_term,
      log_binomial(16, 4) / log_binomial(16, 2),
      b.full ? "--full: 64 seeds (the quick 8 give a standard error ~0.007-0.01, too large for the relevance 0.02)." : "--quick: 8 seeds x 2 students.");
  return e;
}

// Both forms of the bound grow with T (printed: 2 k N d_N log T with d_N = d T; derived: 4 C T R).
// Statistic: paired gap(T = 16) - gap(T = 4) at k = 2, m = 256. Printed: E[difference] >= 0.
// Control: "no gap" at T = 4 must be rejected.
Evidence check_gap_grows_with_T(const CheckBudget& b, const RngKey& key) {
  const std::int64_t seeds = b.pick<std::int64_t>(8, 64);
  const auto t4 = claim_spec(4, 2, 256), t16 = claim_spec(16, 2, 256);
  const auto runs = gap_runs({t4, t16}, seeds, key);
  const auto n = static_cast<std::size_t>(seeds);
  Welford diff, g4, g16;
  for (std::size_t t = 0; t < n; ++t) {
    g4.add(runs[t].gap()), g16.add(runs[n + t].gap());
    diff.add(runs[n + t].gap() - runs[t].gap());
  }
  Evidence e;
  e.printed = detail::lower_bound_test("the gap grows with T as Theorem 1's terms: E[gap(T = 16) - gap(T = 4)] >= 0 (k = 2, "
                                       "m = 256, paired seeds)",
                                       diff, 0.0);
  e.control(claims::upper_bound_test("no generalization gap at T = 4 (E gap <= 0)", g4, 0.0));
  e.relevance = 0.02;  // as check_gap_grows_with_k
  const double ratio = g16.mean() / g4.mean();
  e.note = fmt::format(
      "{} seeds, k = 2, m = 256: gap T = 4 {:.4f} +- {:.2g}, T = 16 {:.4f} +- {:.2g}, ratio {:.2f} (log-slope in T {:.2f}); "
      "paired difference {:.4f} +- {:.2g}. Slopes of the bound's terms in T from 4 to 16: log T alone {:.2f}, sqrt(T log T) "
      "(printed deviation, d_N = d T) {:.2f}, T (derived Rademacher term) 1. {}",
      seeds, g4.mean(), g4.standard_error(), g16.mean(), g16.standard_error(), ratio, std::log(ratio) / std::log(4.0), diff.mean(),
      diff.standard_error(), std::log(std::log(16.0) / std::log(4.0)) / std::log(4.0),
      0.5 * std::log(16.0 * std::log(16.0) / (4.0 * std::log(4.0))) / std::log(4.0),
      b.full ? "--full: 64 seeds (the quick 8 give a standard error ~0.007-0.01, too large for the relevance 0.02)." : "--quick: 8 seeds x 2 students.");
  return e;
}

}  // namespace

void register_gap_claims(claims::Registry& r) {
  r.add({"trained.thm1.gap_below_bound", "compositional, Theorem 1 (Eq. 5) on trained MoEs",
         "Theorem 1 as printed bounds the generalization gap (bounded loss) of trained top-k MoEs, checked at the most "
         "stringent size where it is not vacuous (m = 2048, T = 4, k = 2).",
         claims::ClaimKind::bound, check_gap_below_bound});
  r.add({"trained.thm1.gap_grows_with_k", "compositional, Theorem 1 (Eq. 5, the 2 k N d_N log T term)",
         "At fixed T and m the generalization gap of a trained top-k MoE grows with k (T = 16, k = 2 -> 4, m = 256).",
         claims::ClaimKind::inequality, check_gap_grows_with_k});
  r.add({"trained.thm1.gap_grows_with_T", "compositional, Theorem 1 (printed and derived terms in T)",
         "At fixed k and m the generalization gap of a trained top-k MoE grows with T (k = 2, T = 4 -> 16, m = 256).",
         claims::ClaimKind::inequality, check_gap_grows_with_T});
}

}  // namespace moelab::trained::detail
