// Claims: information-plus-noise matrices (Benaych-Georges & Nadakuditi overlaps, Dozier-Silverstein ESD).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/spectra/detail/claim_support.hpp"
#include "moelab/spectra/dozier_silverstein.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/info_plus_noise.hpp"

namespace moelab::spectra::detail {

namespace {

Evidence check_ipn_overlap(const CheckBudget& b, const RngKey& key) {
  // One signal singular value, lambda = 2.5 > sqrt(c) sigma2, c = M / N = 1/2, Gaussian noise.
  const double c = 0.5, lambda = 2.5, sigma2 = 1.0;
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const std::int64_t trials = b.pick<std::int64_t>(200, 800);
  SizeSeries left, right;
  Eigen::VectorXd sv2(1);
  sv2 << lambda;
  for (int M : sizes) {
    const int N = static_cast<int>(M / c);
    const auto top = parallel_map<InfoPlusNoiseTop>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      return info_plus_noise_top(M, N, sv2, sigma2, EntryLaw::gaussian, key.with("M", M).seed(), t);
    });
    Welford l, r;
    for (const auto& d : top) l.add(d.left_overlap2), r.add(d.right_overlap2);
    left.n.push_back(N), left.value.push_back(l);
    right.n.push_back(N), right.value.push_back(r);
  }
  const double lo = info_plus_noise_left_overlap(lambda, c, sigma2), ro = info_plus_noise_right_overlap(lambda, c, sigma2);
  const TestResult t[] = {claims::intercept_test("", left, {inv}, lo), claims::intercept_test("", right, {inv}, ro)};
  // Control: left and right exchanged (the two formulas differ by c vs 1 in the denominator).
  const TestResult ctl[] = {claims::intercept_test("", left, {inv}, ro), claims::intercept_test("", right, {inv}, lo)};
  Evidence e;
  e.printed = claims::combine_bonferroni("extrapolated (L + a/N) left and right squared overlaps vs Benaych-Georges & Nadakuditi", t);
  e.control(claims::combine_bonferroni("same with left and right formulas exchanged", ctl));
  const double rel[] = {ro - lo, lo - ro};
  e.relevance = claims::combined_relevance(e.printed, t, rel);
  e.note = fmt::format("c = 1/2, lambda = 2.5, sigma2 = 1: left {:.6g} (extrapolated {:.6g} +- {:.2g}), right {:.6g} ({:.6g} +- {:.2g})", lo,
                       t[0].estimate, t[0].std_error, ro, t[1].estimate, t[1].std_error);
  return e;
}

Evidence check_ds_esd(const CheckBudget& b, const RngKey& key) {
  // Full-rank signal: B B' (M x M) has eigenvalues 0 (half), 2 (a quarter), 6 (a quarter); c = 1/2.
  const double c = 0.5, sigma2 = 1.0;
  const DozierSilverstein ds({0.0, 2.0, 6.0}, {0.5, 0.25, 0.25}, c, sigma2);
  const DozierSilverstein wrong({0.0, 2.0, 6.0}, {0.5, 0.25, 0.25}, c, 1.2 * sigma2);
  // Test points: the middle of each support interval (in a gap the ESD is a deterministic count by
  // exact separation, Bai & Silverstein 1999, so it carries no sampling information).
  const auto support = ds.support();
  const double lo = support.front().lower, hi = support.back().upper;
  std::vector<double> xs;
  for (const auto& iv : support) xs.push_back(0.5 * (iv.lower + iv.upper));
  // M a multiple of 4, so that the finite-M signal spectrum equals H exactly.
  const auto sizes = b.pick(std::vector<int>{48, 96, 192, 384}, std::vector<int>{48, 96, 192, 384, 768});
  const std::int64_t trials = b.pick<std::int64_t>(100, 400);
  std::vector<SizeSeries> series(xs.size());
  for (int M : sizes) {
    const int N = static_cast<int>(M / c);
    Eigen::VectorXd sv2(M / 2);
    for (int k = 0; k < M / 2; ++k) sv2(k) = k < M / 4 ? 2.0 : 6.0;
    const auto ev = parallel_map<Eigen::VectorXd>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      return info_plus_noise_eigenvalues(M, N, sv2, sigma2, EntryLaw::gaussian, key.with("M", M).seed(), t);
    });
    for (std::size_t j = 0; j < xs.size(); ++j) {
      Welford w;
      for (const auto& e : ev) w.add(empirical_cdf(e, xs[j]));
      series[j].n.push_back(M), series[j].value.push_back(w);
    }
  }
  std::vector<TestResult> t, ctl;
  std::vector<double> limits;
  for (std::size_t j = 0; j < xs.size(); ++j) {
    limits.push_back(ds.cdf(xs[j]));
    t.push_back(claims::intercept_test("", series[j], {inv, inv2}, limits.back()));
    ctl.push_back(claims::intercept_test("", series[j], {inv, inv2}, wrong.cdf(xs[j])));
  }
  Evidence e;
  e.printed = claims::combine_bonferroni("extrapolated (L + a/M + b/M^2) ESD at the middle of each support interval vs the Dozier-Silverstein CDF", t);
  e.control(claims::combine_bonferroni("same vs the law with sigma2 off by 20%", ctl));
  std::vector<double> rel;
  for (std::size_t j = 0; j < xs.size(); ++j) rel.push_back(ctl[j].reference - limits[j]);
  e.relevance = claims::combined_relevance(e.printed, t, rel);
  e.note = fmt::format("c = 1/2, H = 0.5 d0 + 0.25 d2 + 0.25 d6, sigma2 = 1; support [{:.4g}, {:.4g}] in {} interval(s); "
                       "CDF at {:.4g}: {:.5f}",
                       lo, hi, support.size(), fmt::join(xs, ", "), fmt::join(limits, ", "));
  return e;
}

}  // namespace

void register_info_plus_noise_claims(claims::Registry& r) {
  r.add({"spectra.ipn.overlap", "Benaych-Georges & Nadakuditi 2012 (rectangular additive perturbation)",
         "Above sqrt(c) sigma2 the top singular vectors of B + W have squared overlaps (t^2 - c)/(t (t + c)) (left) and "
         "(t^2 - c)/(t (t + 1)) (right) with those of B, t = lambda / sigma2.",
         ClaimKind::asymptotic, check_ipn_overlap});
  r.add({"spectra.ds.esd", "Dozier & Silverstein 2007",
         "The ESD of (B + W)(B + W)' with a full-rank signal converges to the law whose Stieltjes transform solves "
         "the Dozier-Silverstein equation.",
         ClaimKind::asymptotic, check_ds_esd});
}

}  // namespace moelab::spectra::detail
