// noisy, Sec. 4.5 / Fig. 2-3 (A.6): excess risk of the min-norm dense and per-expert estimators
// against n. The experiment is the study noisy.excess_risk's (simulate_excess) and the a/n^2 + b/n
// fit is its summary's (fit_excess_order).
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/excess_fit.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::noisy::detail {

namespace {

struct ExcessSeries {
  std::vector<int> n;
  std::vector<ExcessSummary> at;
};

ExcessSeries simulate_series(const Model& m, std::vector<int> sizes, std::int64_t trials, const RngKey& key) {
  ExcessSeries s;
  s.n = std::move(sizes);
  for (int n : s.n) s.at.push_back(simulate_excess(m, n, Allocation::balanced, trials, key.with("n", n).seed()));
  return s;
}

/// A Bonferroni combination whose power statement does not switch with the reported part (the exact
/// form's counterpart of combined_relevance): every part i is rescaled to a deviation test with one
/// common standard error s = target x max_j (se_j / relevance_j), estimate (est_i - ref_i) s / se_i
/// against 0, so each part keeps its p-value and min_detectable(result) <= target iff every part
/// detects its own relevance (at the combination's level), whichever part is reported.
TestResult equal_power_bonferroni(std::string form, std::span<const TestResult> parts, std::span<const double> relevance,
                                  double target) {
  double worst = 0.0;
  for (std::size_t i = 0; i < parts.size(); ++i) worst = std::max(worst, parts[i].std_error / std::fabs(relevance[i]));
  const double s = target * worst;
  std::vector<TestResult> scaled(parts.begin(), parts.end());
  for (auto& t : scaled) {
    const double f = s / t.std_error;
    t.estimate = (t.estimate - t.reference) * f;
    t.reference = 0.0;
    t.std_error = s;
  }
  return claims::combine_bonferroni(std::move(form), scaled);
}

Model excess_model(const RngKey& key) { return equal_block_model(4, 6, 0.5, 1.0, 1.0, key.with("model").seed()); }

ExcessOrderFit fit(const ExcessSeries& s, bool dense) {
  std::vector<double> n, mean, se;
  for (std::size_t i = 0; i < s.n.size(); ++i) {
    const Welford& w = dense ? s.at[i].dense : s.at[i].sparse;
    n.push_back(s.n[i]), mean.push_back(w.mean()), se.push_back(w.standard_error());
  }
  const auto f = fit_excess_order(n, mean, se);
  MOELAB_EXPECT(f.has_value(), "the Sec. 4.5 series has at least 3 sizes");
  return *f;
}

Evidence check_excess_order(const CheckBudget& b, const RngKey& key) {
  const Model m = excess_model(key);
  // n/d from 10 to 160: the dense extrapolation L + a/n + b/n^2 of n x excess needs the higher-order
  // terms ((d+1)/n)^3 small. 1400 training sets at --quick: with 400 the exact forms (in units of
  // n x excess, those of the relevance) detected only deviations 1.1-1.4 x the relevance at seeds 1-4;
  // with 1000 the dense intercept (the weakest exact part) detected 1.03 x its relevance at seed 2 once
  // its power is judged at the Bonferroni level of the 6 exact parts. 2600: at 1400 the exact parts'
  // detectable deviation judged at the whole suite's alpha/(m B) was 1.0-1.1 x the relevance, so the
  // verdict switched between erratum and inconclusive (8 of 20 seeds erratum in the stability run).
  const auto s = simulate_series(m, b.pick(std::vector<int>{240, 480, 960, 1920, 3840},
                                           std::vector<int>{240, 480, 960, 1920, 3840, 7680}),
                                 b.pick<std::int64_t>(2600, 4000), key);
  // Printed: excess = a/n^2 (no 1/n term) for both estimators: z-test of the fitted 1/n coefficient = 0.
  const auto fd = fit(s, true), fs = fit(s, false);
  const TestResult printed[] = {claims::z_equality_test("", fd.b(), fd.fit.se[1], 0.0, 0),
                                claims::z_equality_test("", fs.b(), fs.fit.se[1], 0.0, 0)};
  Evidence e;
  e.printed = claims::combine_bonferroni("fitted b of a/n^2 + b/n is 0 (dense and sparse)", printed);
  // Exact: sparse excess = sum p_i v_i d_i / (n_i - d_i - 1) at every n; dense n x excess -> the
  // stratified sandwich trace (theorems.hpp, dense_excess_leading_coefficient_stratified).
  std::vector<TestResult> exact, control;
  claims::SizeSeries dense_n;
  for (std::size_t i = 0; i < s.n.size(); ++i) {
    // Every exact part in units of n x excess, those of the fitted b and of the relevance below.
    const double n_ex = s.n[i] * sparse_excess_exact(m, allocate_samples(m, s.n[i], Allocation::balanced, 0, 0));
    exact.push_back(claims::equality_test("", s.at[i].sparse.scaled(s.n[i]), n_ex));
    control.push_back(claims::equality_test("", s.at[i].sparse.scaled(s.n[i]), 1.2 * n_ex));
    dense_n.n.push_back(s.n[i]);
    dense_n.value.push_back(s.at[i].dense.scaled(s.n[i]));
  }
  // Balanced allocation = stratified samples: the dense sandwich drops the per-expert score means.
  const double lead_dense = dense_excess_leading_coefficient_stratified(m);
  const double lead_sparse = sparse_excess_leading_coefficient(m);
  exact.push_back(claims::intercept_test("", dense_n, {inv_n, inv_n2}, lead_dense));
  control.push_back(claims::intercept_test("", dense_n, {inv_n, inv_n2}, 1.2 * lead_dense));
  // One wrong form (the exact forms scaled by 1.2): rejected when any of its parts is.
  e.control(claims::combine_bonferroni("1.2 x the exact forms", control));
  // A 1/n term that matters: kRelevance of the leading coefficient the exact forms predict for it.
  const double rel[] = {kRelevance * lead_dense, kRelevance * lead_sparse};
  e.relevance = combined_relevance(e.printed, printed, rel);
  // The exact parts' power: each must detect kRelevance of its own value. Reported on a common scale
  // (equal_power_bonferroni), so that the power statement does not depend on which part is the most
  // significant (it did: seeds 9 and 11 were inconclusive when the dense intercept was reported).
  std::vector<double> exact_rel;
  for (const auto& t : exact) exact_rel.push_back(kRelevance * t.reference);
  e.exact = equal_power_bonferroni(
      "sparse: n x exact Wishart formula at each n; dense: n x excess -> tr(H^-1 (S - sum_i p_i g_i g_i')) (stratified); "
      "deviations on a common scale (each part's relevance kRelevance x its value)",
      exact, exact_rel, e.relevance);
  e.note = fmt::format("d = 24, k = 4, Toeplitz 0.5, n = {}..{}: fitted b dense {:.4g} +- {:.2g}, sparse {:.4g} +- {:.2g}; "
                       "dense stratified sandwich trace = {:.4g}, sparse sum v_i d_i = {:.4g}",
                       s.n.front(), s.n.back(), fd.b(), fd.fit.se[1], fs.b(), fs.fit.se[1], lead_dense, lead_sparse);
  return e;
}

Evidence check_sparse_beats_dense(const CheckBudget& b, const RngKey& key) {
  const Model m = excess_model(key);
  // 9000 training sets at --quick: with 400 the test detected only deviations ~1.7 x the relevance
  // below (5% of the dense excess at the weakest n) at seeds 1-3, and with 2000 1.39 x it once its
  // power is judged at the whole suite's alpha/(m B) (inconclusive at all 20 seeds of the stability
  // run); with 6000 it was 0.6-1.0 x (the model, drawn per suite seed, sets the relevance; seed 4 the
  // closest), so 9000 (~0.8 x at the worst of 20 seeds).
  // "Every sample size": n/d = 0.5 (over-parameterised: 12 samples, 3 per expert of 6 features, both
  // estimators min-norm interpolators), 2 (past both interpolation thresholds n = d and n_i = d_i + 1),
  // and 5 to 80 (Fig. 3's over-determined side). n = d exactly (and n_i <= d_i + 1) is left out: there
  // the expected excess of both estimators is infinite, so no mean can be compared.
  const auto s = simulate_series(m, b.pick(std::vector<int>{12, 48, 120, 480, 1920}, std::vector<int>{12, 48, 120, 240, 480, 960, 1920, 3840}),
                                 b.pick<std::int64_t>(9000, 16000), key);
  std::vector<TestResult> parts;
  std::vector<double> rel;
  std::string sizes;
  Evidence e;
  // n/d = 0.5 (n = 12) is measured and reported, not tested: there the two excess risks agree to within
  // ~2% (0.386 vs 0.379 at seed 2, difference 0.007 +- 0.009), so neither "sparse lower" nor its reverse
  // can be decided at any affordable budget; the claim is stated for n/d >= 2 (see the statement).
  const Welford& small = s.at.front().difference;
  const std::string small_note = fmt::format("n = {} (n/d = 0.5, not tested): sparse {:.4g} vs dense {:.4g}, difference {:.3g} +- {:.2g}",
                                             s.n.front(), s.at.front().sparse.mean(), s.at.front().dense.mean(), small.mean(),
                                             small.standard_error());
  for (std::size_t i = 1; i < s.n.size(); ++i) {
    const Welford& diff = s.at[i].difference;
    parts.push_back(claims::upper_bound_test(fmt::format("n = {}", s.n[i]), diff, 0.0));
    e.control(claims::upper_bound_test(fmt::format("reversed at n = {}: excess_dense <= excess_sparse", s.n[i]),
                                       diff.scaled(-1.0), 0.0));
    // A violation that matters: sparse above dense by kRelevance of the dense excess at that n.
    rel.push_back(kRelevance * s.at[i].dense.mean());
    sizes += fmt::format("{}n={}: {:.3g} vs {:.3g}", i > 1 ? "; " : "", s.n[i], s.at[i].sparse.mean(), s.at[i].dense.mean());
  }
  e.printed = claims::combine_bonferroni("paired excess_sparse - excess_dense <= 0 at every n (Bonferroni)", parts);
  e.relevance = combined_relevance(e.printed, parts, rel);
  e.note = "sparse vs dense excess: " + sizes + "; " + small_note;
  return e;
}

}  // namespace

void register_sec45_claims(claims::Registry& r) {
  r.add({"noisy.sec45.excess_order", "noisy, Sec. 4.5, Fig. 2",
         "Both dense and sparse min-norm estimators have excess risk of order n^-2 (fit a/n^2, no 1/n term).",
         ClaimKind::asymptotic, check_excess_order});
  r.add({"noisy.sec45.sparse_beats_dense", "noisy, Sec. 4.5 (hypothesis), Fig. 3",
         "Sparse estimators achieve lower excess risk than the dense estimator at every sample size (checked for n/d >= 2, "
         "over- and just-determined; at n/d = 0.5 the two are equal within the budget, reported in the note).",
         ClaimKind::inequality, check_sparse_beats_dense});
}

}  // namespace moelab::noisy::detail
