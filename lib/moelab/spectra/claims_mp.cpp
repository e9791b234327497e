// Claims: the Marchenko-Pastur law (Gaussian; universality with Rademacher entries, c > 1).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/spectra/detail/claim_support.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"

namespace moelab::spectra::detail {

namespace {

/// E[F_M(x_q)] at the MP quantiles x_q, per size, extrapolated (L + a/M + b/M^2) against q; the
/// control tests the same series against the CDF of MP(c_wrong). `eigen(M, t)` draws trial t.
template <class Eigen_>
Evidence mp_cdf_evidence(const MarchenkoPastur& mp, double c_wrong, const std::vector<int>& sizes, std::int64_t trials,
                         const std::vector<double>& qs, Eigen_ eigen, const std::string& what) {
  std::vector<SizeSeries> series(qs.size());
  std::vector<double> xs;
  for (double q : qs) xs.push_back(mp.quantile(q));
  double ks_last = 0.0;
  for (int M : sizes) {
    const auto ev = parallel_map<Eigen::VectorXd>(static_cast<std::size_t>(trials), [&](std::size_t t) { return eigen(M, t); });
    for (std::size_t j = 0; j < qs.size(); ++j) {
      Welford w;
      for (const auto& e : ev) w.add(empirical_cdf(e, xs[j]));
      series[j].n.push_back(M);
      series[j].value.push_back(w);
    }
    Welford ks;
    for (const auto& e : ev) ks.add(mp.ks_distance(std::span<const double>(e.data(), static_cast<std::size_t>(e.size()))));
    ks_last = ks.mean();
  }
  const MarchenkoPastur wrong(c_wrong, mp.sigma2());
  std::vector<TestResult> t, ctl;
  for (std::size_t j = 0; j < qs.size(); ++j) {
    t.push_back(claims::intercept_test("", series[j], {inv, inv2}, qs[j]));
    ctl.push_back(claims::intercept_test("", series[j], {inv, inv2}, wrong.cdf(xs[j])));
  }
  Evidence e;
  e.printed = claims::combine_bonferroni(fmt::format("extrapolated (L + a/M + b/M^2) {} ESD at the MP quantiles {} vs q", what,
                                                     fmt::join(qs, ", ")), t);
  // One wrong law: a rejection at any point rejects it (Bonferroni over the points).
  e.control(claims::combine_bonferroni(fmt::format("same vs the CDF of MP(c = {})", c_wrong), ctl));
  // Power statement: the wrong law's smallest distance to the right one over the test points.
  // Power statement: every test point must see the wrong law's deviation there.
  std::vector<double> rel;
  for (std::size_t j = 0; j < qs.size(); ++j) rel.push_back(wrong.cdf(xs[j]) - qs[j]);
  e.relevance = claims::combined_relevance(e.printed, t, rel);
  e.note = fmt::format("c = {}, sigma2 = {}, M = {}..{}, {} matrices per size; mean KS distance of one matrix's ESD to MP at M = {}: {:.3g}",
                       mp.c(), mp.sigma2(), sizes.front(), sizes.back(), trials, sizes.back(), ks_last);
  return e;
}

Evidence check_mp_gaussian(const CheckBudget& b, const RngKey& key) {
  // Real Gaussian white Wishart through the Dumitriu-Edelman tridiagonal model (same spectrum law,
  // O(M^2) per matrix): eigenvalues of B B' / N ~ eigenvalues of X X' / N.
  const double c = 0.5;
  const MarchenkoPastur mp(c, 1.0);
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800, 1600});
  const auto eigen = [&](int M, std::size_t t) {
    const int N = static_cast<int>(M / c);
    return Eigen::VectorXd(laguerre_tridiagonal_eigenvalues(M, N, 1.0, key.with("M", M).seed(), t) / N);
  };
  return mp_cdf_evidence(mp, 0.55, sizes, b.pick<std::int64_t>(200, 1000), {0.2, 0.5, 0.8}, eigen, "real Gaussian Wishart");
}

Evidence check_mp_universality(const CheckBudget& b, const RngKey& key) {
  // Rademacher entries, c = 2 > 1: the atom of mass 1/2 at 0 and the continuous part together.
  const double c = 2.0, sigma2 = 1.5;
  const MarchenkoPastur mp(c, sigma2);
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const auto eigen = [&](int M, std::size_t t) {
    return sample_covariance_eigenvalues(M, static_cast<int>(M / c), {}, sigma2, EntryLaw::rademacher, key.with("M", M).seed(), t);
  };
  return mp_cdf_evidence(mp, 2.3, sizes, b.pick<std::int64_t>(300, 1000), {0.6, 0.75, 0.9}, eigen, "Rademacher sample-covariance");
}

}  // namespace

void register_mp_claims(claims::Registry& r) {
  r.add({"spectra.mp.gaussian", "Marchenko & Pastur 1967; Bai & Silverstein 2010, Thm 3.6",
         "The ESD of (1/N) X X' (X M x N, iid N(0, 1), M/N -> c) converges to MP(c, 1).", ClaimKind::asymptotic,
         check_mp_gaussian});
  r.add({"spectra.mp.universality", "Bai & Silverstein 2010, Thm 3.6 (two moments suffice)",
         "With iid Rademacher entries, c = 2 > 1 and sigma2 = 1.5 the ESD converges to MP(2, 1.5), atom 1/2 at 0 included.",
         ClaimKind::asymptotic, check_mp_universality});
}

}  // namespace moelab::spectra::detail
