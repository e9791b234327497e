// Claims: Tracy-Widom laws of the largest eigenvalue of white Wishart matrices (beta 1 and 2).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/spectra/detail/claim_support.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace moelab::spectra::detail {

namespace {

/// Largest eigenvalue of white Wishart matrices (tridiagonal model, beta = 1 or 2) centred and
/// scaled: mean and second moment about the Tracy-Widom mean, extrapolated in p^-1/3, p^-2/3.
Evidence check_tw(const CheckBudget& b, const RngKey& key, int beta) {
  const double ratio = 2.0;  // n = 2 p
  // Sturm bisection on the tridiagonal model: O(p) per matrix, so large p are affordable, which
  // the two-term extrapolation needs (the p^-1/3 and p^-2/3 columns are nearly collinear).
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400, 800, 1600}, std::vector<int>{50, 100, 200, 400, 800, 1600, 3200, 6400});
  // 8000 at --quick: with 4000 the variance sub-test detects only ~1.2x the TW1-vs-TW2 difference
  // (power statement, combined_relevance), so the claim could not be decided. beta = 1 takes 12000:
  // at 8000 its power judged at the whole suite's alpha/(m B) sat at the relevance (detectable 0.2585
  // vs 0.2565 at seed 8), so the verdict switched between holds and inconclusive over the seeds (5 of
  // 20 holds in the 20-seed stability run); 12000 puts the detectable deviation ~18% below it.
  const std::int64_t trials = beta == 1 ? b.pick<std::int64_t>(12000, 16000) : b.pick<std::int64_t>(8000, 16000);
  const TracyWidomMoments tw = tracy_widom_moments(beta), other = tracy_widom_moments(beta == 1 ? 2 : 1);
  const WishartEdge kind = beta == 1 ? WishartEdge::johnstone_real : WishartEdge::johansson_complex;
  SizeSeries mean, second;
  std::vector<double> last;
  for (int p : sizes) {
    const int n = static_cast<int>(ratio * p);
    const EdgeScaling sc = wishart_largest_eigenvalue_scaling(n, p, kind);
    // beta = 2: the tridiagonal model's X has E|x|^2 = 2; halve to the E|x|^2 = 1 of Johansson.
    const auto s = parallel_map<double>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      const double top = laguerre_tridiagonal_largest(p, n, beta, key.with("p", p).seed(), t);
      return (top / beta - sc.centre) / sc.scale;
    });
    Welford m, q;
    for (double v : s) m.add(v), q.add((v - tw.mean) * (v - tw.mean));
    mean.n.push_back(p), mean.value.push_back(m);
    second.n.push_back(p), second.value.push_back(q);
    last = s;
  }
  const TestResult t[] = {claims::intercept_test("", mean, {inv13, inv23}, tw.mean),
                          claims::intercept_test("", second, {inv13, inv23}, tw.variance)};
  const TestResult ctl[] = {claims::intercept_test("", mean, {inv13, inv23}, other.mean),
                            claims::intercept_test("", second, {inv13, inv23}, other.variance + (other.mean - tw.mean) * (other.mean - tw.mean))};
  Evidence e;
  e.printed = claims::combine_bonferroni(fmt::format("extrapolated (L + a p^-1/3 + b p^-2/3) mean and variance of the scaled largest "
                                                     "eigenvalue vs TW{}", beta), t);
  // One wrong law: rejecting either of its moments rejects it (Bonferroni over the two).
  e.control(claims::combine_bonferroni(fmt::format("same vs the moments of TW{}", beta == 1 ? 2 : 1), ctl));
  // Both moments are claimed: each sub-test must see the other law's value of its moment.
  const double rel[] = {ctl[0].reference - tw.mean, ctl[1].reference - tw.variance};
  e.relevance = claims::combined_relevance(e.printed, t, rel);
  std::sort(last.begin(), last.end());
  const double d = ks_statistic(last, [&](double x) { return tracy_widom_cdf(x, beta); });
  e.note = fmt::format("n = 2p, p = {}..{}, {} matrices per size (tridiagonal model, Sturm bisection); TW{} mean {:.6f}, variance {:.6f}; "
                       "extrapolated {:.4f} +- {:.2g}, {:.4f} +- {:.2g}; at p = {}: KS distance to TW{} {:.4f} (iid p-value {:.3g})",
                       sizes.front(), sizes.back(), trials, beta, tw.mean, tw.variance, t[0].estimate, t[0].std_error,
                       t[1].estimate, t[1].std_error, sizes.back(), beta, d, ks_pvalue(d, last.size()));
  return e;
}

}  // namespace

void register_tw_claims(claims::Registry& r) {
  r.add({"spectra.tw.wishart_real", "Johnstone 2001, Thm 1.1; Tracy & Widom 1996",
         "(l1 - mu_np) / sigma_np of a real white Wishart matrix converges in law to TW1 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, const RngKey& k) { return check_tw(b, k, 1); }});
  r.add({"spectra.tw.wishart_complex", "Johansson 2000, Thm 1.6; Tracy & Widom 1994",
         "(l1 - mu_np) / sigma_np of a complex white Wishart matrix converges in law to TW2 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, const RngKey& k) { return check_tw(b, k, 2); }});
}

}  // namespace moelab::spectra::detail
