// Claims: the scaling paper's ERM generalization bound (as its review states it: "combined with a standard ERM
// analysis for squared loss, this yields a generalization bound"; excess risk of ERM <~ approximation error +
// sigma^2 (active-parameter entropy + routing overhead) / n, the routing overhead being Lemma 3.7's union bound
// over routing patterns), in the smallest routed class where ERM is exact (erm.hpp): d = 1, a top-1 router =
// a partition of [0, 1] into E intervals, constant experts, squared loss, Gaussian noise (docs/sparsity.md,
// "ERM with a learned router").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/log_binomial.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/detail/claim_support.hpp"
#include "moelab/scaling/erm.hpp"

namespace moelab::scaling::detail {

namespace {

// (i) Fixed routing: E = 8 equal cells, f(x) = sin(2 pi x + 0.3) (not in the class: approximation > 0),
// sigma = 0.5. ERM over the E constants is the regressogram; its expected L2 excess risk is exact
// (regressogram_risk: multinomial counts, empty cells predicted 0). Monte-Carlo: each trial draws (x, y) and
// computes its excess exactly (cell moments of the sine in closed form), so the only error is sampling.
Evidence check_erm_fixed_routing(const CheckBudget& b, const RngKey& key) {
  const int E = 8;
  const double sigma = 0.5, phase = 0.3, sigma2 = sigma * sigma;
  const std::int64_t trials = b.pick<std::int64_t>(10000, 100000);
  const auto cells = sine_cells(E, phase);
  std::vector<claims::TestResult> parts, half, leading;
  std::vector<double> rel;
  std::string per_n;
  for (std::int64_t n : {16, 64, 256}) {
    Welford w;
    const auto sx = key.with("x", n).seed(), sz = key.with("noise", n).seed();
    for (std::int64_t t = 0; t < trials; ++t) w.add(regressogram_sine_excess(E, n, sigma, phase, sx, sz, static_cast<std::uint64_t>(t)));
    const auto r = regressogram_risk(cells, n, sigma2);
    const double v_bar = r.approximation * E;  // mean cell variance of f (equal masses 1/E)
    parts.push_back(claims::equality_test(fmt::format("n = {}", n), w, r.total));
    // Controls: the estimation term halved (sigma^2 E / (2n)), and the leading order (sigma^2 + v) E / n without
    // the exact 1/N moments and the empty-cell term.
    half.push_back(claims::equality_test(fmt::format("n = {}", n), w, r.approximation + sigma2 * E / (2.0 * n)));
    leading.push_back(claims::equality_test(fmt::format("n = {}", n), w, r.approximation + (sigma2 + v_bar) * E / static_cast<double>(n)));
    // An estimation term off by 10% matters (the halved one is off by about 50%).
    rel.push_back(0.1 * (r.estimation + r.empty_cells));
    per_n += fmt::format("{}n = {}: MC {:.6g} +- {:.2g} vs exact {:.6g} (approx {:.4g}, estimation {:.4g}, empty cells {:.3g}; "
                         "sigma^2 E/n = {:.4g})",
                         per_n.empty() ? "" : "; ", n, w.mean(), w.standard_error(), r.total, r.approximation, r.estimation,
                         r.empty_cells, sigma2 * E / static_cast<double>(n));
  }
  Evidence e;
  e.printed = claims::combine_bonferroni(
      "fixed routing (E = 8 equal cells): E excess of the regressogram = sum p v + sum p (v + sigma^2) E[1/N; N >= 1] + "
      "sum p m^2 (1 - p)^n (n = 16, 64, 256; Bonferroni)",
      parts);
  e.control(claims::combine_bonferroni("estimation term sigma^2 E / (2n)", half));
  e.control(claims::combine_bonferroni("leading order (sigma^2 + v) E / n (no 1/N moments, no empty cells)", leading));
  e.relevance = claims::combined_relevance(e.printed, parts, rel);
  e.note = fmt::format("f = sin(2 pi x + 0.3) on U[0,1], sigma = 0.5, {} draws per n: {}", trials, per_n);
  return e;
}

// (ii) Learned routing: ERM over all C(n - 1, E - 1) partitions of the sorted sample into E = 4 intervals and the
// constants on them (least-squares segmentation, exact DP), on a target in the class (approximation 0):
// f = 0 on 4 cells, i.e. 4 pieces with equal levels, the case where no routing pattern is preferred and the
// union bound over patterns is paid (the worst case of the referee's objection). sigma = 1.
//  - the oracle inequality with its constants written out (erm_oracle_bound; fixed design, so it is checked on
//    the in-sample excess): one-sided, at every n;
//  - the rate: r(n) = learned / fixed-routing population excess (the fixed-routing excess is exact), fitted
//    r = a + b log n with standard errors. Controls: "no routing overhead" (the learned in-sample excess is at
//    most a fixed pattern's, sigma^2 E / n, what a dense model with the same E active parameters pays), "the
//    overhead does not grow with n" (b = 0) and "the overhead is linear in the number of patterns"
//    (r ~ C(n - 1, E - 1) ~ n^(E - 1): log-log slope E - 1).
Evidence check_erm_routing_overhead(const CheckBudget& b, const RngKey& key) {
  const int E = 4;
  const double sigma = 1.0, sigma2 = 1.0;
  const PiecewiseConstant flat{{0.0, 0.25, 0.5, 0.75, 1.0}, {0.0, 0.0, 0.0, 0.0}};
  const std::vector<std::int64_t> sizes = b.full ? std::vector<std::int64_t>{64, 128, 256, 512, 1024, 2048}
                                                 : std::vector<std::int64_t>{64, 128, 256, 512};
  const std::int64_t trials = b.pick<std::int64_t>(300, 2000);
  std::vector<claims::TestResult> bound_parts, dense_parts;
  std::vector<double> bound_rel, logn, ratio, ratio_w, log_ratio, log_ratio_w, q_n, q_w;
  std::string per_n;
  double worst_tightness = INFINITY;
  for (std::int64_t n : sizes) {
    Welford in_sample, population;
    const auto sx = key.with("x", n).seed(), sz = key.with("noise", n).seed();
    for (std::int64_t t = 0; t < trials; ++t) {
      const auto d = erm_draw(flat, n, E, sigma, sx, sz, static_cast<std::uint64_t>(t));
      in_sample.add(d.learned_in_sample);
      population.add(d.learned_excess);
    }
    const double bound = erm_oracle_bound(n, E, sigma2), fixed = fixed_routing_excess(flat, n, sigma2);
    bound_parts.push_back(claims::upper_bound_test(fmt::format("n = {}", n), in_sample, bound));
    // Exceeding the bound by 10% of itself matters.
    bound_rel.push_back(0.1 * bound);
    dense_parts.push_back(claims::upper_bound_test(fmt::format("n = {}", n), in_sample, sigma2 * E / static_cast<double>(n)));
    worst_tightness = std::min(worst_tightness, bound / in_sample.mean());
    const double r = population.mean() / fixed, se = population.standard_error() / fixed;
    logn.push_back(std::log(static_cast<double>(n)));
    ratio.push_back(r), ratio_w.push_back(1.0 / (se * se));
    log_ratio.push_back(std::log(r)), log_ratio_w.push_back(r * r / (se * se));  // delta method
    // The population excess in units of the theory's complexity sigma^2 (E + log C(n - 1, E - 1)) / n.
    const double complexity = E + log_binomial(static_cast<double>(n - 1), E - 1.0);
    const double q = n * population.mean() / (sigma2 * complexity), q_se = n * population.standard_error() / (sigma2 * complexity);
    q_n.push_back(q), q_w.push_back(1.0 / (q_se * q_se));
    per_n += fmt::format("{}n = {}: n x in-sample {:.2f} (bound {:.0f}), ratio {:.3f} +- {:.3f}, n x excess / (E + log C(n-1, "
                         "E-1)) = {:.3f}",
                         per_n.empty() ? "" : "; ", n, n * in_sample.mean(), n * bound, r, se, q);
  }
  const std::vector<double> ones(logn.size(), 1.0);
  const auto lin = weighted_least_squares({ones, logn}, ratio, ratio_w);
  // The rate as the theory states it: n x excess / (sigma^2 (E + log C(n-1, E-1))) does not drift with n.
  const auto q_fit = weighted_least_squares({ones, logn}, q_n, q_w);
  const auto power_fit = weighted_least_squares({ones, logn}, log_ratio, log_ratio_w);
  const auto samples = static_cast<std::int64_t>(trials * static_cast<std::int64_t>(sizes.size()));

  // A target the router can lock onto: jumps of 1, 2, 1.5 sigma between the 4 levels. Reported, not tested:
  // the union bound's log n is a worst case; when the data pin the partition the ratio stays flat.
  const PiecewiseConstant separated{{0.0, 0.25, 0.5, 0.75, 1.0}, {0.0, 1.0, -1.0, 0.5}};
  std::string sep;
  for (std::int64_t n : {64, 512}) {
    Welford pop;
    const auto sx = key.with("sep_x", n).seed(), sz = key.with("sep_noise", n).seed();
    for (std::int64_t t = 0; t < trials / 2; ++t)
      pop.add(erm_draw(separated, n, E, sigma, sx, sz, static_cast<std::uint64_t>(t)).learned_excess);
    const double fixed = fixed_routing_excess(separated, n, sigma2);
    sep += fmt::format("{}n = {}: {:.2f} +- {:.2f}", sep.empty() ? "" : ", ", n, pop.mean() / fixed, pop.standard_error() / fixed);
  }

  Evidence e;
  // The rate part: the slope of q = n excess / (sigma^2 (E + log C(n-1, E-1))) in log n is 0. The deviation that
  // matters is the slope q would have without the routing overhead (n excess constant, q ~ 1 / (E + log C)):
  // -q (E - 1) / (E + log C(n-1, E-1)) per unit log n, smallest in size at the largest n.
  const double n_max = static_cast<double>(sizes.back());
  const double q_mean = q_fit.coef[0] + q_fit.coef[1] * 0.5 * (logn.front() + logn.back());
  const double q_relevance = q_mean * (E - 1) / (E + log_binomial(n_max - 1.0, E - 1.0));
  std::vector<claims::TestResult> parts = bound_parts;
  parts.push_back(claims::z_equality_test("rate: slope of n x excess / (sigma^2 (E + log C(n-1, E-1))) in log n = 0",
                                          q_fit.coef[1], q_fit.se[1], 0.0, samples));
  std::vector<double> rel = bound_rel;
  rel.push_back(q_relevance);
  e.printed = claims::combine_bonferroni(
      "learned routing, target in the class: E in-sample excess <= (4 sigma^2/n)[c^2 + sqrt(2 pi) c + 2], c = sqrt(2E-1) + "
      "sqrt(2 log C(n-1, E-1)) (oracle inequality over the routing patterns, constants written out; every n), and the "
      "population excess grows as sigma^2 (E + log C(n-1, E-1)) / n (Bonferroni)",
      parts);
  e.relevance = claims::combined_relevance(e.printed, parts, rel);
  e.control(claims::combine_bonferroni("no routing overhead: learned-routing in-sample excess <= sigma^2 E / n (a fixed "
                                       "pattern's, a dense model with E active parameters)",
                                       dense_parts));
  e.control(claims::z_equality_test("the overhead does not grow with n: slope of learned/fixed excess in log n = 0", lin.coef[1],
                                    lin.se[1], 0.0, samples));
  e.control(claims::z_equality_test(
      fmt::format("overhead linear in the number of patterns C(n-1, E-1): log-log slope of learned/fixed excess = E - 1 = {}", E - 1),
      power_fit.coef[1], power_fit.se[1], static_cast<double>(E - 1), samples));
  e.note = fmt::format(
      "E = 4 intervals, target 0 (4 equal pieces), sigma = 1, {} draws per n; learned routing = exact least-squares "
      "segmentation over C(n-1, 3) patterns. {}. Ratio learned/fixed = {:.3f} + {:.3f} log n (+- {:.3f}; chi2 {:.2f} on {} "
      "dof), log-log slope {:.3f} +- {:.3f} (E - 1 = 3 for an overhead linear in the pattern count, 0 for none): the "
      "overhead grows like log n. n x excess / (sigma^2 (E + log C(n-1, E-1))) = {:.3f} {:+.4f} log n (+- {:.4f}; no "
      "overhead would give a slope of -{:.3f}): the excess is the theory's complexity with a constant near 1. The "
      "explicit bound is loose by {:.1f}x or more. "
      "Checked: the bound with its constants (in-sample, fixed design) and the rates (population excess); the "
      "random-design bound's constants are not. Separated target (levels 0, 1, -1, 0.5): ratio {} (flat: the overhead "
      "is the union bound's worst case, not paid when the data pin the partition)",
      trials, per_n, lin.coef[0], lin.coef[1], lin.se[1], lin.chi2, lin.dof, power_fit.coef[1], power_fit.se[1], q_fit.coef[0],
      q_fit.coef[1], q_fit.se[1], q_relevance, worst_tightness, sep);
  return e;
}

}  // namespace

void register_erm_claims(claims::Registry& r) {
  r.add({"scaling.erm.fixed_routing", "scaling, generalization bound (review: \"standard ERM analysis for squared loss\")",
         "With a fixed routing pattern (E cells, constant experts) ERM is the regressogram: excess risk = approximation error + "
         "sigma^2 E / n up to exact finite-n terms.",
         ClaimKind::equality, check_erm_fixed_routing});
  r.add({"scaling.erm.routing_overhead", "scaling, generalization bound with Lemma 3.7's routing overhead",
         "Excess risk of ERM over routed models <~ approximation error + sigma^2 (active parameters + log #routing patterns) / "
         "n: with learned routing the overhead grows like log C(n-1, E-1) ~ E log n, beyond a fixed pattern's sigma^2 E / n.",
         ClaimKind::bound, check_erm_routing_overhead});
}

}  // namespace moelab::scaling::detail
