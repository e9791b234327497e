// Claims of the granularity paper ("Granularity boosts MoE expressivity"): region masses of Gaussian
// top-k routing (Lemma 3.2, Lemmas A.5-A.7), the mean-shift bound (Lemma A.3), random constant
// experts (Lemma 3.3 / A.8), the counting of Claim A.9, conditional covariances (Lemma 3.5 / B.5) and
// the piecewise-constant separation of Theorem 3.1 in miniature. Each has a negative control that
// must be rejected; where the printed statement is wrong the exact form is tested beside it.
#include "moelab/routing/routing_claims.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/conditional_covariance.hpp"
#include "moelab/routing/counting.hpp"
#include "moelab/routing/expert_packing.hpp"
#include "moelab/routing/order_statistics.hpp"
#include "moelab/routing/region_masses.hpp"
#include "moelab/routing/separation.hpp"

namespace moelab::routing {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::SizeSeries;
using claims::TestResult;

namespace {

double inv(double n) { return 1.0 / n; }

/// One-sided test of H0: E[X] >= bound (rejected when the mean is significantly below it).
TestResult lower_bound_test(std::string form, const Welford& w, double bound) {
  TestResult t = claims::upper_bound_test(std::move(form), w.scaled(-1.0), -bound);
  t.estimate = -t.estimate;
  t.reference = bound;
  return t;
}

/// Region-mass summaries of `draws` independent routing draws (R ~ N(0, I), n points each).
std::vector<RegionMassSummary> region_draws(int m, int k, int d, int draws, std::uint64_t n, std::uint64_t seed) {
  return parallel_map<RegionMassSummary>(static_cast<std::size_t>(draws), [&](std::size_t t) {
    const Router router(gaussian_routing_vectors(m, d, seed, t), k, ScorePath::automatic);
    return summarize_regions(region_histogram(router, InputLaw::gaussian, n, seed, t, false));
  });
}

// ---- Lemma 3.2, Lemmas A.5-A.7: region masses ----
Evidence check_region_masses(const CheckBudget& b, std::uint64_t seed) {
  // (m, k) = (10, 3), C = 120; d = 16 ~ k (log m)^2 = 15.9 (the lemmas' condition with C = 1).
  constexpr int m = 10, k = 3, d = 16;
  const int draws = b.pick(100, 400);
  const std::uint64_t n = b.pick<std::uint64_t>(24000, 48000);  // 200 (400) points per region
  const double C = static_cast<double>(binomial(m, k));
  const auto at = region_draws(m, k, d, draws, n, seed);
  Welford first, second, balanced;
  for (const auto& s : at) first.add(C * s.first_region_mass), second.add(s.normalized_second_moment), balanced.add(s.balanced_fraction);
  const SecondMomentExpansion ex = second_moment_expansion(m, k);

  // Universality of the constant in d >= C k (log m)^2: the rigorous lower bound
  // C^2 E mu^2 >= 1 + c2 / d (docs/routing.md) at (m, k) = (64000, 2000) with a generous C = 100.
  constexpr int big_m = 64000, big_k = 2000;
  const double big_d = 100.0 * big_k * std::pow(std::log(static_cast<double>(big_m)), 2);
  const double big_lower = 1.0 + second_moment_expansion(big_m, big_k).c2 / big_d;

  // Exact form: C^2 E mu^2 = 1 + c2/d + O(d^-2): d (C^2 E mu^2 - 1) extrapolated in 1/d to c2.
  SizeSeries curvature;
  const std::vector<int> dims = b.pick(std::vector<int>{32, 64, 128, 256}, std::vector<int>{32, 64, 128, 256, 512});
  const int series_draws = b.pick(60, 200);
  const std::uint64_t series_n = b.pick<std::uint64_t>(12000, 24000);
  for (int dd : dims) {
    const auto s = region_draws(m, k, dd, series_draws, series_n, seed + static_cast<std::uint64_t>(dd));
    Welford w;
    for (const auto& x : s) w.add(dd * (x.normalized_second_moment - 1.0));
    curvature.n.push_back(dd), curvature.value.push_back(w);
  }
  const TestResult printed[] = {
      claims::equality_test("Eq. 3.2: C E mu(U_S0) = 1", first, 1.0),
      claims::upper_bound_test("Lemma A.5: C^2 E mu(U_S)^2 <= 3 at d = 16 ~ k (log m)^2", second, 3.0),
      lower_bound_test("Lemma A.6 / 3.2: E #{S : mu(U_S) >= 1/(2C)} / C >= 1/9", balanced, 1.0 / 9.0),
      claims::deterministic_test("Lemma A.5 with a universal C (C = 100): C^2 E mu^2 <= 3 at (m, k) = (64000, 2000), "
                                 "d = 100 k (log m)^2; rigorous lower bound 1 + c2/d",
                                 big_lower, 3.0, big_lower <= 3.0)};
  const TestResult exact[] = {
      claims::equality_test("", first, 1.0), lower_bound_test("", balanced, 1.0 / 9.0),
      lower_bound_test("", second, 1.0 + ex.c2 / d),
      claims::intercept_test("", curvature, {inv}, ex.c2)};
  Evidence e;
  e.printed = claims::combine_bonferroni("Eq. 3.2, Lemma A.5 (at d = 16 and, with C = 100, at k = 2000), Lemma A.6", printed);
  e.exact = claims::combine_bonferroni("C^2 E mu^2 >= 1 + c2/d and d (C^2 E mu^2 - 1) -> c2 (Mehler), with Eq. 3.2 and Lemma A.6", exact);
  e.control = claims::intercept_test("d (C^2 E mu^2 - 1) -> k (log m)^2 (the scaling Lemma A.5 states)", curvature, {inv},
                                     k * std::pow(std::log(static_cast<double>(m)), 2));
  e.note = fmt::format(
      "(m, k) = (10, 3), C = 120, d = 16, {} draws x {} points: C mu(U_S0) {:.4f} +- {:.2g}; C^2 E mu^2 {:.4f} +- {:.2g} "
      "(bound 3; lower bound 1 + c2/d = {:.4f}); balanced fraction {:.4f} +- {:.2g} (>= 1/9). c2 = {:.4f} (c1 = {:.4f}); "
      "d (C^2 E mu^2 - 1) extrapolated over d = {}..{}: {:.3f} +- {:.2g}. Universality: c2(64000, 2000) = {:.4g}, so at "
      "d = 100 k (log m)^2 = {:.4g} the second moment is at least {:.3f} / C^2 > 3 / C^2; c2 ~ k^2 log^2(m/k), so Lemma A.5 "
      "needs d >= c2 / 2 (here {:.4g}), not C k (log m)^2",
      draws, n, first.mean(), first.standard_error(), second.mean(), second.standard_error(), 1.0 + ex.c2 / d, balanced.mean(),
      balanced.standard_error(), ex.c2, ex.c1, dims.front(), dims.back(), exact[3].estimate, exact[3].std_error,
      second_moment_expansion(big_m, big_k).c2, big_d, big_lower, lemma_a5_necessary_dimension(m, k));
  return e;
}

// ---- Lemma A.3: the mean-shift bound ----
Evidence check_shift_bound(const CheckBudget& b, std::uint64_t seed) {
  constexpr int m = 8, k = 2;
  const std::vector<double> deltas{0.1, 0.25, 0.5};
  const std::int64_t samples = b.pick<std::int64_t>(200000, 1000000);
  constexpr std::int64_t chunk = 10000;
  std::vector<TestResult> printed, control;
  std::string detail;
  for (std::size_t a = 0; a < deltas.size(); ++a) {
    const double delta = deltas[a];
    // Chunks of 10^4 draws: the hit fraction per chunk is one Welford sample.
    const auto frac = parallel_map<double>(static_cast<std::size_t>(samples / chunk), [&](std::size_t c) {
      const RandomStream rs(seed, StreamTag::routing_points, a * 100000 + c);
      std::int64_t hits = 0;
      for (std::int64_t i = 0; i < chunk; ++i) {
        double lo = INFINITY, hi = -INFINITY;
        for (int j = 0; j < m; ++j) {
          const double x = rs.normal(static_cast<std::uint64_t>(i * m + j)) + (j < k ? delta : 0.0);
          if (j < k) lo = std::min(lo, x);
          else hi = std::max(hi, x);
        }
        hits += lo > hi;
      }
      return static_cast<double>(hits) / chunk;
    });
    const Welford w = summarize(frac);
    const double bound = lemma_a3_bound_printed(m, k, delta), exact = top_set_probability(m, k, delta);
    printed.push_back(claims::upper_bound_test("", w, bound));
    control.push_back(claims::upper_bound_test("", w, 1.0 / static_cast<double>(binomial(m, k))));
    detail += fmt::format("{}delta {}: f {:.5f} +- {:.2g} (exact {:.5f}, sharp bound exp(delta s_k)/C {:.5f}, printed {:.5f}, "
                          "printed/exact {:.2f})",
                          a ? "; " : "", delta, w.mean(), w.standard_error(), exact, lemma_a3_bound_sharp(m, k, delta), bound,
                          bound / exact);
  }
  Evidence e;
  e.printed = claims::combine_bonferroni("f(delta) <= exp(delta k sqrt(2 log m)) / C(m, k) at delta = 0.1, 0.25, 0.5", printed);
  e.control = claims::combine_bonferroni("f(delta) <= 1 / C(m, k) (no gain from the shift)", control);
  e.note = fmt::format("(m, k) = (8, 2), {} draws per delta; {}", samples, detail);
  return e;
}

// ---- Lemma 3.3 / A.8: random constant experts ----
Evidence check_expert_packing(const CheckBudget& b, std::uint64_t seed) {
  constexpr int m = 10, k = 3;
  const int trials = b.pick(200, 1000);
  const auto run = [&](int d, std::uint64_t offset) {
    return parallel_map<PackingCheck>(static_cast<std::size_t>(trials),
                                      [&](std::size_t t) { return routing::check_packing(random_constant_experts(m, d, k, seed, offset + t), k); });
  };
  const auto fail_rate = [](const std::vector<PackingCheck>& v) {
    Welford w;
    for (const auto& p : v) w.add(!(p.bounded() && p.separated()));
    return w;
  };
  // The printed sufficient dimension: the union bound C e^(-d/8) + C^2 e^(-d/16) <= 0.1.
  const int d_printed = packing_sufficient_dimension(m, k, 0.1, true), d_exact = packing_sufficient_dimension(m, k, 0.1, false);
  const Welford fail_printed = fail_rate(run(d_printed, 0));
  // The proof's per-pair law at a small d: the fraction of non-separated pairs has mean
  // P[chi2_d < d/2] and the fraction of unbounded sums P[chi2_d > 2d] (per trial, then over trials).
  constexpr int d_small = 24;
  Welford pair_frac, set_frac;
  {
    const auto per = parallel_map<std::pair<double, double>>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      const Eigen::MatrixXd U = random_constant_experts(m, d_small, k, seed, 1000000 + t);
      const SubsetRanker ranker(m, k);
      const std::uint64_t C = ranker.count();
      std::vector<Eigen::VectorXd> sums(C);
      for (std::uint64_t s = 0; s < C; ++s) {
        sums[s] = Eigen::VectorXd::Zero(d_small);
        for (int j : ranker.unrank(s)) sums[s] += U.row(j).transpose();
      }
      std::uint64_t bad_pairs = 0, bad_sets = 0;
      for (std::uint64_t s = 0; s < C; ++s) {
        bad_sets += sums[s].squaredNorm() > 1.0;
        const auto ms = ranker.unrank(s);
        for (std::uint64_t u = s + 1; u < C; ++u) {
          const auto mu = ranker.unrank(u);
          std::vector<int> common;
          std::set_intersection(ms.begin(), ms.end(), mu.begin(), mu.end(), std::back_inserter(common));
          const double sym = 2.0 * (k - static_cast<int>(common.size()));
          bad_pairs += (sums[s] - sums[u]).squaredNorm() < sym / (4.0 * k);
        }
      }
      return std::make_pair(static_cast<double>(bad_pairs) / (C * (C - 1) / 2.0), static_cast<double>(bad_sets) / C);
    });
    for (const auto& [p, s] : per) pair_frac.add(p), set_frac.add(s);
  }
  // Where both conditions start to hold with probability 0.9 (a scan, reported).
  int d_measured = -1;
  std::vector<std::pair<int, double>> scan;
  for (int d = 16; d <= d_exact + 16 && d_measured < 0; d += 8) {
    const double f = fail_rate(run(d, 2000000 + static_cast<std::uint64_t>(d) * 10000)).mean();
    scan.emplace_back(d, f);
    if (f <= 0.1) d_measured = d;
  }
  // Control: the union bound's factor left out, P[fail] <= exp(-d/16), at d = 48.
  const Welford fail48 = fail_rate(run(48, 3000000));
  const TestResult printed[] = {
      claims::upper_bound_test(fmt::format("P[boundedness or separation fails] <= C e^(-d/8) + C^2 e^(-d/16) at d = {}", d_printed),
                               fail_printed, packing_failure_union_bound(m, k, d_printed, true)),
      claims::equality_test("P[||u_S - u_S'||^2 < |S delta S'|/(4k)] = P[chi2_d < d/2] per pair (d = 24)", pair_frac,
                            packing_unseparated_probability(d_small)),
      claims::equality_test("P[||u_S||^2 > 1] = P[chi2_d > 2d] per set (d = 24)", set_frac, packing_unbounded_probability(d_small))};
  Evidence e;
  e.printed = claims::combine_bonferroni("Lemma A.8: union bound at its sufficient d, and the per-pair / per-set laws of its proof", printed);
  e.control = claims::upper_bound_test("P[fail] <= exp(-d/16) at d = 48 (one pair's bound, no union over pairs)", fail48, std::exp(-48.0 / 16.0));
  std::string s;
  for (const auto& [d, f] : scan) s += fmt::format("{}{}: {:.3f}", s.empty() ? "" : ", ", d, f);
  e.note = fmt::format(
      "(m, k) = (10, 3), C = 120, 7140 pairs, {} trials: P[fail] at the printed sufficient d = {} (union bound 0.1 with "
      "Laurent-Massart tails): {:.4f}; exact-tail union bound reaches 0.1 at d = {}; measured P[fail] <= 0.1 first at d = {} "
      "(scan d: P[fail] = {}); k log m = {:.2f}, so the measured constant is C = {:.1f}. Per-pair non-separation at d = 24: "
      "{:.5f} +- {:.2g} vs {:.5f}; per-set unboundedness {:.5f} +- {:.2g} vs {:.5f}. P[fail] at d = 48: {:.3f} vs exp(-3) = {:.3f}",
      trials, d_printed, fail_printed.mean(), d_exact, d_measured, s, k * std::log(10.0), d_measured / (k * std::log(10.0)),
      pair_frac.mean(), pair_frac.standard_error(), packing_unseparated_probability(d_small), set_frac.mean(),
      set_frac.standard_error(), packing_unbounded_probability(d_small), fail48.mean(), std::exp(-3.0));
  return e;
}

// ---- Claim A.9 and the counting of Theorem 3.1 ----
Evidence check_counting(const CheckBudget&, std::uint64_t) {
  // Grid: k from 1 to 10^7, m in {2k+1, 4k, 64k}, c' in {10^-5, 10^-4, 1/2001} (< 1/2000 as the proof assumes).
  std::vector<int> ks;
  for (double k = 1; k <= 1e7; k *= 1.7) ks.push_back(static_cast<int>(k));
  const std::vector<double> cps{1e-5, 1e-4, 1.0 / 2001.0};
  double worst_printed = -INFINITY, worst_control = -INFINITY, worst_margin = -INFINITY, worst_ball = -INFINITY;
  int points = 0, vacuous = 0;
  for (int k : ks)
    for (long long mm : {2LL * k + 1, 4LL * k, 64LL * k}) {
      if (mm > 2000000000LL) continue;
      const int m = static_cast<int>(mm);
      for (double cp : cps) {
        ++points;
        const int t = static_cast<int>(std::floor(cp * k));
        vacuous += t == 0;
        const double needed = claim_a9_exponent_needed(m, k, cp);
        worst_printed = std::max(worst_printed, needed - claim_a9_exponent_printed(cp));
        worst_control = std::max(worst_control, needed - cp);
        if (8.0 * cp * std::log2(1.0 / cp) <= 0.01) worst_margin = std::max(worst_margin, claim_a9_log_margin(m, k, 1e-3, cp));
        worst_ball = std::max(worst_ball, log_swap_ball(m, k, t) - log_swap_ball_printed(m, k, t));
      }
    }
  const bool ok = worst_printed <= 0 && worst_margin <= 0 && worst_ball <= 1e-9;
  Evidence e;
  e.printed = claims::deterministic_test("C(m, floor(c'k)) <= C(m, k)^(4 c' log2(1/c')); p <= c C^0.99 => p C(m, c'k) C(k, c'k) <= c C; "
                                         "swap ball <= C(m, t) C(k, t), over the grid (largest excess)",
                                         std::max({worst_printed, worst_margin, worst_ball}), 0.0, ok);
  e.control = claims::deterministic_test("the same exponent without its log factor: C(m, floor(c'k)) <= C(m, k)^c'", worst_control, 0.0,
                                         worst_control <= 0);
  // Theorem 3.1's counting condition on Table 1: the c each granularity-1 model needs against DeepSeek-V3.
  const double c_maverick = theorem31_required_c(256, 8, 128, 1), c_qwen = theorem31_required_c(256, 8, 64, 4);
  e.note = fmt::format(
      "{} grid points (k = 1..1e7, m = 2k+1, 4k, 64k, c' = 1e-5, 1e-4, 1/2001); largest exponent excess {:.3g} (<= 0 holds); "
      "at {} of them floor(c'k) = 0 and the claim reduces to p < C(m, k) / const (c' < 1/2000 needs k >= 2000 to bite; "
      "8 c' log2(1/c') <= 0.01 needs c' <= 6e-5, i.e. k >= 1.7e4); control excess {:.3g}. Thm 3.1 condition against DeepSeek-V3 "
      "(256, 8), C = {:.4g}: Llama-4 Maverick (128, 1) needs c >= {:.3g}, Qwen1.5 (64, 4) needs c >= {:.3g}",
      points, worst_printed, vacuous, worst_control, std::exp(log_configurations(256, 8)), c_maverick, c_qwen);
  return e;
}

// ---- Lemma 3.5 / B.5: conditional covariances ----
Evidence check_conditional_covariance(const CheckBudget& b, std::uint64_t seed) {
  const int trials = b.pick(20, 80);
  std::vector<TestResult> printed;
  std::string detail;
  Welford control_w;
  // Halfspaces {x_1 > t} by rejection sampling: the kappa-th smallest eigenvalue of the conditional
  // covariance, kappa from the proof's explicit constant and the exact mass. The ball needs a larger
  // d: its constant gives a kappa only when d/2 > kappa + log2(4/mu) (d = 80 for mu = 0.3).
  struct Set {
    InputLaw law;
    int d;
    double mass;
    std::uint64_t accepted;
  };
  for (const Set& set : {Set{InputLaw::gaussian, 16, 0.3, 2000}, Set{InputLaw::gaussian, 16, 0.03, 2000},
                         Set{InputLaw::ball, 80, 0.3, 1000}}) {
    const int d = set.d;
    double lo = set.law == InputLaw::gaussian ? -5.0 : -0.999, hi = -lo;
    for (int it = 0; it < 200; ++it) {  // t with the target mass (the exact mass is monotone in t)
      const double mid = 0.5 * (lo + hi);
      (halfspace_spectrum(set.law, d, mid).mass > set.mass ? lo : hi) = mid;
    }
    const double t = 0.5 * (lo + hi);
    const HalfspaceSpectrum ex = halfspace_spectrum(set.law, d, t);
    const int kappa = lemma_b5_kappa(set.law, ex.mass, d);
    MOELAB_EXPECT(kappa >= 1 && kappa <= d, "Lemma B.5's kappa must exist for the chosen sets");
    const auto ev = parallel_map<Eigen::VectorXd>(static_cast<std::size_t>(trials), [&](std::size_t tr) {
      return halfspace_sample_eigenvalues(set.law, d, t, set.accepted, seed, static_cast<std::uint64_t>(set.mass * 1e4) * 1000 + static_cast<std::uint64_t>(d) * 1000000 + tr);
    });
    Welford small, smallest;
    for (const auto& v : ev) small.add(d * v(kappa - 1)), smallest.add(d * v(0));
    printed.push_back(lower_bound_test("", small, d * lemma_b5_threshold(d)));
    if (set.law == InputLaw::gaussian && set.mass < 0.1) control_w = smallest;
    // A low eigenvalue ell (relative to the bulk `across`) of a covariance sampled n times in dimension
    // d comes out at ell (1 + c / (ell - 1)), c = (d - 1) / n, to first order (the low-spike analogue of
    // Baik-Silverstein): the finite-sample expectation quoted next to the exact value.
    const double ell = ex.along / ex.across, c = (d - 1.0) / static_cast<double>(set.accepted);
    detail += fmt::format("{}{} halfspace d = {}, mass {:.3g}: kappa {}, d lambda_kappa {:.4f}, d lambda_min {:.4f} +- {:.2g} (exact {:.4f}; "
                          "with the finite-sample bias of a low eigenvalue {:.4f})",
                          detail.empty() ? "" : "; ", input_law_name(set.law), d, ex.mass, kappa, small.mean(), smallest.mean(),
                          smallest.standard_error(), d * ex.along, d * ex.across * ell * (1.0 + c / (ell - 1.0)));
  }
  // Routing regions U_S of one Gaussian router, (m, k) = (8, 2), d = 16: the worst region's
  // kappa-th eigenvalue (kappa from the region's measured mass) per independent point sample.
  constexpr int m = 8, k = 2, d = 16;
  const Eigen::MatrixXd R = gaussian_routing_vectors(m, d, seed, 0);
  const std::uint64_t pts = b.pick<std::uint64_t>(40000, 120000);
  Welford worst_region, worst_min;
  const auto covs = parallel_map<std::vector<RegionCovariance>>(static_cast<std::size_t>(trials), [&](std::size_t tr) {
    return region_covariances(R, k, InputLaw::gaussian, pts, seed, 5000000 + tr);
  });
  double min_mass = 1.0;
  for (const auto& regions : covs) {
    double w = INFINITY, wm = INFINITY;
    for (const auto& rc : regions) {
      if (rc.eigenvalues.size() == 0) continue;
      const int kappa = lemma_b5_kappa(InputLaw::gaussian, rc.mass, d);
      w = std::min(w, d * rc.eigenvalues(std::min(kappa, d) - 1));
      wm = std::min(wm, d * rc.eigenvalues(0));
      min_mass = std::min(min_mass, rc.mass);
    }
    worst_region.add(w), worst_min.add(wm);
  }
  printed.push_back(lower_bound_test("", worst_region, d * lemma_b5_threshold(d)));
  Evidence e;
  e.printed = claims::combine_bonferroni("lambda_{d-kappa+1}(Sigma_U) >= 1/(30000 d), kappa from the proof's constant, for halfspaces "
                                         "(Gaussian, ball) and routing regions",
                                         printed);
  e.control = lower_bound_test("lambda_min(Sigma_U) >= 1/d (conditioning never shrinks a variance), Gaussian halfspace of mass 0.03",
                               control_w, 1.0);
  e.note = fmt::format("{} samples per set; threshold d lambda = 1/30000 = {:.3g}; {}; routing regions of (m, k) = (8, 2), d = 16, C = 28 "
                       "(smallest mass {:.4f}): worst d lambda_kappa {:.4f} +- {:.2g}, worst d lambda_min {:.4f} +- {:.2g}",
                       trials, 1.0 / 30000.0, detail, min_mass, worst_region.mean(), worst_region.standard_error(), worst_min.mean(),
                       worst_min.standard_error());
  return e;
}

// ---- Theorem 3.1 in miniature: the piecewise-constant separation ----
Evidence check_separation(const CheckBudget& b, std::uint64_t seed) {
  // Teacher (m, k) = (10, 3), C = 120, d = 64 (Lemma 3.3 holds for this draw: checked below).
  constexpr int m = 10, k = 3, d = 64;
  const Eigen::MatrixXd R = gaussian_routing_vectors(m, d, seed, 0), U = random_constant_experts(m, d, k, seed, 0);
  const PackingCheck pc = routing::check_packing(U, k);
  const std::uint64_t C = binomial(m, k);
  struct Student {
    std::string name;
    Eigen::MatrixXd Rs;
    int ks;
    std::uint64_t p;
  };
  std::vector<Student> students;
  // k-sum students: p of the C configuration sums (an (p, 1)-MoE), p <= C^0.99 = 114.
  for (std::uint64_t p : {12, 30, 60, 90, 114}) {
    const auto sub = random_configurations(C, p, seed, 100 + p);
    students.push_back({fmt::format("k-sum p = {}", p), k_sum_routing_vectors(R, k, sub), 1, p});
  }
  // Random Gaussian students of various granularities.
  for (auto [ms, ks] : std::vector<std::pair<int, int>>{{8, 1}, {8, 2}, {12, 3}}) students.push_back({fmt::format("Gaussian ({}, {})", ms, ks), gaussian_routing_vectors(ms, d, seed, 1000 + static_cast<std::uint64_t>(10 * ms + ks)), ks, binomial(ms, ks)});
  const int batches = b.pick(6, 16);
  const std::uint64_t n = b.pick<std::uint64_t>(20000, 40000);
  std::vector<TestResult> printed, control;
  std::string detail;
  const auto runs = parallel_map<SeparationResult>(students.size() * static_cast<std::size_t>(batches), [&](std::size_t i) {
    const Student& s = students[i / static_cast<std::size_t>(batches)];
    return piecewise_constant_separation(R, k, U, s.Rs, s.ks, pc.min_distance2, InputLaw::gaussian, n, seed, 10 + i % static_cast<std::size_t>(batches));
  });
  double min_floor = INFINITY;
  for (std::size_t s = 0; s < students.size(); ++s) {
    Welford excess, rel;
    double floor_rel = 0.0;
    for (int t = 0; t < batches; ++t) {
      const auto& r = runs[s * static_cast<std::size_t>(batches) + static_cast<std::size_t>(t)];
      excess.add(r.relative_error - r.floor / r.teacher_norm2);
      rel.add(r.relative_error);
      floor_rel += r.floor / r.teacher_norm2 / batches;
    }
    min_floor = std::min(min_floor, floor_rel);
    printed.push_back(lower_bound_test("", excess, 0.0));
    if (students[s].ks == 1 && students[s].name.rfind("k-sum", 0) == 0)
      control.push_back(lower_bound_test("", rel, 1.0 - static_cast<double>(students[s].p) / static_cast<double>(C)));
    detail += fmt::format("{}{} (p/C = {:.3f}): relative error {:.4f} +- {:.2g}, floor {:.4f}", detail.empty() ? "" : "; ", students[s].name,
                          static_cast<double>(students[s].p) / static_cast<double>(C), rel.mean(), rel.standard_error(), floor_rel);
  }
  // The exact student: all C configuration sums reproduce f (error 0 up to rounding).
  std::vector<std::uint64_t> all(C);
  for (std::uint64_t i = 0; i < C; ++i) all[i] = i;
  const auto exact = piecewise_constant_separation(R, k, U, k_sum_routing_vectors(R, k, all), 1, pc.min_distance2, InputLaw::gaussian, n, seed, 99);
  Evidence e;
  e.printed = claims::combine_bonferroni("best student error / E||f||^2 >= (delta/4)(1 - sum_i max_S mu(U_S cap V_i)) / E||f||^2 for "
                                         "students with C(m', k') <= C(m, k)^0.99",
                                         printed);
  e.control = claims::combine_bonferroni("relative error >= 1 - C(m', k')/C(m, k) (the naive count) for the k-sum students", control);
  e.note = fmt::format("teacher (10, 3), d = 64, C = 120; Lemma 3.3 for this draw: max ||u_S||^2 = {:.3f}, min separation ratio {:.3f}, "
                       "delta = min ||u_S - u_S'||^2 = {:.4f} (>= 1/(2k) = {:.4f}); {} batches x {} points per student; {}; smallest "
                       "floor {:.4f} (Theorem 3.1's c for these students). Exact (C, 1) k-sum student: relative error {:.2g}",
                       pc.max_norm2, pc.min_separation, pc.min_distance2, 0.5 / k, batches, n, detail, min_floor, exact.relative_error);
  return e;
}

}  // namespace

void register_routing_claims(claims::Registry& r) {
  r.add({"routing.lemma32.region_masses", "granularity, Lemma 3.2 (Eqs. 3.1-3.3), Lemmas A.5-A.7",
         "For Gaussian routing vectors and d >= C k (log m)^2: E mu(U_S) = 1/C(m,k), E mu(U_S)^2 <= 3/C(m,k)^2, and at least 1/9 of "
         "the regions have mass >= 1/(2 C(m,k)).",
         ClaimKind::bound, check_region_masses});
  r.add({"routing.lemmaA3.shift_bound", "granularity, Lemma A.3",
         "With X_1..X_k ~ N(delta, 1) and the other m - k ~ N(0, 1), P[the first k are the top k] <= exp(delta k sqrt(2 log m)) / C(m, k).",
         ClaimKind::bound, check_shift_bound});
  r.add({"routing.lemma33.packing", "granularity, Lemma 3.3 = Lemma A.8",
         "u_j ~ N(0, I/(2dk)) give ||u_S||^2 <= 1 and ||u_S - u_S'||^2 >= |S delta S'|/(4k) for all S, S' with high probability "
         "once d >= C k log m (union bound with Laurent-Massart tails).",
         ClaimKind::bound, check_expert_packing});
  r.add({"routing.claimA9.counting", "granularity, Claim A.9 and Theorem 3.1 (counting condition)",
         "For m > 2k and small c, c': C(m, floor(c'k)) <= C(m, k)^(4 c' log2(1/c')), so p <= c C(m,k)^0.99 implies "
         "p C(m, floor(c'k)) C(k, floor(c'k)) <= c C(m, k).",
         ClaimKind::inequality, check_counting});
  r.add({"routing.lemma35.covariance", "granularity, Lemma 3.5 = Lemma B.10, Lemma B.5",
         "For N(0, I/d) or Unif[B] conditioned on U, fewer than kappa eigenvalues of the conditional covariance lie below 1/(30000 d) "
         "once kappa >= C (1 + log(1/mu(U))).",
         ClaimKind::bound, check_conditional_covariance});
  r.add({"routing.thm31.separation", "granularity, Theorem 3.1 (proof, Eqs. 3.5-3.6), in miniature",
         "An (m, k)-MoE with constant experts cannot be approximated by an (m', k')-MoE with C(m', k') <= c C(m, k)^0.99: the error is "
         "at least the separation floor (delta/4)(1 - sum_i max_S mu(U_S cap V_i)).",
         ClaimKind::bound, check_separation});
}

}  // namespace moelab::routing
