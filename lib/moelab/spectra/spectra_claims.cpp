// Claims of the random-matrix laws in spectra/: Marchenko-Pastur (Gaussian and universality),
// Tracy-Widom edge laws of white Wishart matrices, spiked-covariance limits and fluctuations.
// Asymptotic laws are tested on the intercept of a weighted fit over a size sweep (never at one
// size); each claim has a negative control that must be rejected.
#include "moelab/spectra/spectra_claims.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/spectra/dozier_silverstein.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/info_plus_noise.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"
#include "moelab/spectra/spiked_covariance.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace moelab::spectra {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::SizeSeries;
using claims::TestResult;

namespace {

double inv(double n) { return 1.0 / n; }
double inv2(double n) { return 1.0 / (n * n); }
double inv13(double n) { return std::pow(n, -1.0 / 3.0); }
double inv23(double n) { return std::pow(n, -2.0 / 3.0); }

/// Fraction of `ev` at or below x.
double empirical_cdf(const Eigen::VectorXd& ev, double x) {
  return static_cast<double>((ev.array() <= x).count()) / static_cast<double>(ev.size());
}

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
  e.control = claims::combine_bonferroni(fmt::format("same vs the CDF of MP(c = {})", c_wrong), ctl);
  e.note = fmt::format("c = {}, sigma2 = {}, M = {}..{}, {} matrices per size; mean KS distance of one matrix's ESD to MP at M = {}: {:.3g}",
                       mp.c(), mp.sigma2(), sizes.front(), sizes.back(), trials, sizes.back(), ks_last);
  return e;
}

Evidence check_mp_gaussian(const CheckBudget& b, std::uint64_t seed) {
  // Real Gaussian white Wishart through the Dumitriu-Edelman tridiagonal model (same spectrum law,
  // O(M^2) per matrix): eigenvalues of B B' / N ~ eigenvalues of X X' / N.
  const double c = 0.5;
  const MarchenkoPastur mp(c, 1.0);
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800, 1600});
  const auto eigen = [&](int M, std::size_t t) {
    const int N = static_cast<int>(M / c);
    return Eigen::VectorXd(laguerre_tridiagonal_eigenvalues(M, N, 1.0, seed + static_cast<std::uint64_t>(M), t) / N);
  };
  return mp_cdf_evidence(mp, 0.55, sizes, b.pick<std::int64_t>(200, 1000), {0.2, 0.5, 0.8}, eigen, "real Gaussian Wishart");
}

Evidence check_mp_universality(const CheckBudget& b, std::uint64_t seed) {
  // Rademacher entries, c = 2 > 1: the atom of mass 1/2 at 0 and the continuous part together.
  const double c = 2.0, sigma2 = 1.5;
  const MarchenkoPastur mp(c, sigma2);
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const auto eigen = [&](int M, std::size_t t) {
    return sample_covariance_eigenvalues(M, static_cast<int>(M / c), {}, sigma2, EntryLaw::rademacher, seed + static_cast<std::uint64_t>(M), t);
  };
  return mp_cdf_evidence(mp, 2.3, sizes, b.pick<std::int64_t>(300, 1000), {0.6, 0.75, 0.9}, eigen, "Rademacher sample-covariance");
}

/// Largest eigenvalue of white Wishart matrices (tridiagonal model, beta = 1 or 2) centred and
/// scaled: mean and second moment about the Tracy-Widom mean, extrapolated in p^-1/3, p^-2/3.
Evidence check_tw(const CheckBudget& b, std::uint64_t seed, int beta) {
  const double ratio = 2.0;  // n = 2 p
  // Sturm bisection on the tridiagonal model: O(p) per matrix, so large p are affordable, which
  // the two-term extrapolation needs (the p^-1/3 and p^-2/3 columns are nearly collinear).
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400, 800, 1600}, std::vector<int>{50, 100, 200, 400, 800, 1600, 3200, 6400});
  const std::int64_t trials = b.pick<std::int64_t>(4000, 16000);
  const TracyWidomMoments tw = tracy_widom_moments(beta), other = tracy_widom_moments(beta == 1 ? 2 : 1);
  const WishartEdge kind = beta == 1 ? WishartEdge::johnstone_real : WishartEdge::johansson_complex;
  SizeSeries mean, second;
  std::vector<double> last;
  for (int p : sizes) {
    const int n = static_cast<int>(ratio * p);
    const EdgeScaling sc = wishart_largest_eigenvalue_scaling(n, p, kind);
    // beta = 2: the tridiagonal model's X has E|x|^2 = 2; halve to the E|x|^2 = 1 of Johansson.
    const auto s = parallel_map<double>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      const double top = laguerre_tridiagonal_largest(p, n, beta, seed + static_cast<std::uint64_t>(p), t);
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
  e.control = claims::combine_bonferroni(fmt::format("same vs the moments of TW{}", beta == 1 ? 2 : 1), ctl);
  std::sort(last.begin(), last.end());
  const double d = ks_statistic(last, [&](double x) { return tracy_widom_cdf(x, beta); });
  e.note = fmt::format("n = 2p, p = {}..{}, {} matrices per size (tridiagonal model, Sturm bisection); TW{} mean {:.6f}, variance {:.6f}; "
                       "extrapolated {:.4f} +- {:.2g}, {:.4f} +- {:.2g}; at p = {}: KS distance to TW{} {:.4f} (iid p-value {:.3g})",
                       sizes.front(), sizes.back(), trials, beta, tw.mean, tw.variance, t[0].estimate, t[0].std_error,
                       t[1].estimate, t[1].std_error, sizes.back(), beta, d, ks_pvalue(d, last.size()));
  return e;
}

// The spiked model of the spike claims: real Gaussian data, c = M / N = 1/2, one spike ell = 4
// (threshold 1 + sqrt(1/2) = 1.707), sigma2 = 1.
constexpr double kSpikeC = 0.5, kSpikeEll = 4.0;

/// Per size M (N = M / c, `trials` matrices each): the Welford summary of stat(top eigenpair, N)
/// for the spiked model.
template <class Stat>
SizeSeries spike_series(const std::vector<int>& sizes, std::int64_t trials, std::uint64_t seed, Stat stat) {
  SizeSeries series;
  for (int M : sizes) {
    const int N = static_cast<int>(M / kSpikeC);
    const auto draws = parallel_map<TopEigenpair>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      return spiked_top_eigenpair(M, N, {kSpikeEll}, 1.0, EntryLaw::gaussian, seed + static_cast<std::uint64_t>(M), t);
    });
    Welford w;
    for (const auto& d : draws) w.add(stat(d, static_cast<double>(N)));
    series.n.push_back(N), series.value.push_back(w);
  }
  return series;
}

Evidence check_spike_limit(const CheckBudget& b, std::uint64_t seed) {
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const std::int64_t trials = b.pick<std::int64_t>(200, 800);
  const SizeSeries top = spike_series(sizes, trials, seed, [](const TopEigenpair& d, double) { return d.value; });
  const double limit = spiked_eigenvalue_limit(kSpikeEll, kSpikeC, 1.0);
  Evidence e;
  e.printed = claims::intercept_test("extrapolated (L + a/N) top eigenvalue vs sigma2 ell (1 + c/(ell - 1))", top, {inv}, limit);
  e.control = claims::intercept_test("same vs the population eigenvalue sigma2 ell (no upward bias)", top, {inv}, kSpikeEll);
  e.note = fmt::format("real Gaussian, c = 1/2, ell = 4, N = {}..{}, {} matrices per size: limit {:.6g}, extrapolated {:.6g} +- {:.2g}",
                       top.n.front(), top.n.back(), trials, limit, e.printed.estimate, e.printed.std_error);
  return e;
}

Evidence check_spike_fluctuation(const CheckBudget& b, std::uint64_t seed) {
  const auto sizes = b.pick(std::vector<int>{25, 50, 100, 200}, std::vector<int>{25, 50, 100, 200, 400});
  const std::int64_t trials = b.pick<std::int64_t>(2000, 6000);
  const double rho = spiked_eigenvalue_limit(kSpikeEll, kSpikeC, 1.0);
  // N (lambda_hat - rho)^2 has mean v + O(1/N) (the bias of lambda_hat is O(1/N)).
  const SizeSeries scaled =
      spike_series(sizes, trials, seed, [rho](const TopEigenpair& d, double N) { return N * (d.value - rho) * (d.value - rho); });
  const double v = spiked_fluctuation_variance(kSpikeEll, kSpikeC, 1.0, GaussianField::real);
  const double v_complex = spiked_fluctuation_variance(kSpikeEll, kSpikeC, 1.0, GaussianField::complex);
  Evidence e;
  e.printed = claims::intercept_test("extrapolated (L + a/N) N E(lambda_hat - rho)^2 vs 2 ell^2 (1 - c/(ell - 1)^2)", scaled, {inv}, v);
  e.control = claims::intercept_test("same vs the complex-case variance (half)", scaled, {inv}, v_complex);
  e.note = fmt::format("real Gaussian, c = 1/2, ell = 4, N = {}..{}, {} matrices per size: variance {:.6g}, extrapolated {:.6g} +- {:.2g}",
                       scaled.n.front(), scaled.n.back(), trials, v, e.printed.estimate, e.printed.std_error);
  return e;
}

Evidence check_spike_overlap(const CheckBudget& b, std::uint64_t seed) {
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const std::int64_t trials = b.pick<std::int64_t>(200, 800);
  const SizeSeries overlap = spike_series(sizes, trials, seed, [](const TopEigenpair& d, double) { return d.overlap2; });
  const double limit = spiked_eigenvector_overlap(kSpikeEll, kSpikeC);
  const double naive = 1.0 - kSpikeC / ((kSpikeEll - 1.0) * (kSpikeEll - 1.0));
  Evidence e;
  e.printed = claims::intercept_test("extrapolated (L + a/N) <v_hat, e_1>^2 vs (1 - c/(ell-1)^2) / (1 + c/(ell-1))", overlap, {inv}, limit);
  e.control = claims::intercept_test("same vs the numerator alone, 1 - c/(ell-1)^2", overlap, {inv}, naive);
  e.note = fmt::format("real Gaussian, c = 1/2, ell = 4: limit {:.6g}, extrapolated {:.6g} +- {:.2g}", limit, e.printed.estimate,
                       e.printed.std_error);
  return e;
}

Evidence check_spike_subcritical(const CheckBudget& b, std::uint64_t seed) {
  // ell = 1.3 < 1 + sqrt(1/2): the top eigenvalue sticks to the bulk edge, with N^-2/3 corrections.
  const double ell = 1.3;
  const auto sizes = b.pick(std::vector<int>{50, 100, 200, 400}, std::vector<int>{50, 100, 200, 400, 800});
  const std::int64_t trials = b.pick<std::int64_t>(200, 600);
  SizeSeries top;
  for (int M : sizes) {
    const int N = static_cast<int>(M / kSpikeC);
    const auto ev = parallel_map<double>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      return sample_covariance_eigenvalues(M, N, {ell}, 1.0, EntryLaw::gaussian, seed + static_cast<std::uint64_t>(M), t)(M - 1);
    });
    top.n.push_back(N), top.value.push_back(summarize(ev));
  }
  const double edge = spiked_bulk_edge(kSpikeC, 1.0);
  const double formula_above = ell * (1.0 + kSpikeC / (ell - 1.0));  // the supercritical formula, wrongly applied
  Evidence e;
  e.printed = claims::intercept_test("extrapolated (L + a N^-2/3) top eigenvalue vs the bulk edge (1 + sqrt c)^2", top, {inv23}, edge);
  e.control = claims::intercept_test("same vs ell (1 + c/(ell - 1)) (the outlier formula below threshold)", top, {inv23}, formula_above);
  e.note = fmt::format("real Gaussian, c = 1/2, ell = 1.3 < 1.707: edge {:.6g}, extrapolated {:.6g} +- {:.2g}", edge, e.printed.estimate,
                       e.printed.std_error);
  return e;
}

Evidence check_ipn_overlap(const CheckBudget& b, std::uint64_t seed) {
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
      return info_plus_noise_top(M, N, sv2, sigma2, EntryLaw::gaussian, seed + static_cast<std::uint64_t>(M), t);
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
  e.control = claims::combine_bonferroni("same with left and right formulas exchanged", ctl);
  e.note = fmt::format("c = 1/2, lambda = 2.5, sigma2 = 1: left {:.6g} (extrapolated {:.6g} +- {:.2g}), right {:.6g} ({:.6g} +- {:.2g})", lo,
                       t[0].estimate, t[0].std_error, ro, t[1].estimate, t[1].std_error);
  return e;
}

Evidence check_ds_esd(const CheckBudget& b, std::uint64_t seed) {
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
      return info_plus_noise_eigenvalues(M, N, sv2, sigma2, EntryLaw::gaussian, seed + static_cast<std::uint64_t>(M), t);
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
  e.control = claims::combine_bonferroni("same vs the law with sigma2 off by 20%", ctl);
  e.note = fmt::format("c = 1/2, H = 0.5 d0 + 0.25 d2 + 0.25 d6, sigma2 = 1; support [{:.4g}, {:.4g}] in {} interval(s); "
                       "CDF at {:.4g}: {:.5f}",
                       lo, hi, support.size(), fmt::join(xs, ", "), fmt::join(limits, ", "));
  return e;
}

}  // namespace

void register_spectra_claims(claims::Registry& r) {
  r.add({"spectra.mp.gaussian", "Marchenko & Pastur 1967; Bai & Silverstein 2010, Thm 3.6",
         "The ESD of (1/N) X X' (X M x N, iid N(0, 1), M/N -> c) converges to MP(c, 1).", ClaimKind::asymptotic,
         check_mp_gaussian});
  r.add({"spectra.mp.universality", "Bai & Silverstein 2010, Thm 3.6 (two moments suffice)",
         "With iid Rademacher entries, c = 2 > 1 and sigma2 = 1.5 the ESD converges to MP(2, 1.5), atom 1/2 at 0 included.",
         ClaimKind::asymptotic, check_mp_universality});
  r.add({"spectra.tw.wishart_real", "Johnstone 2001, Thm 1.1; Tracy & Widom 1996",
         "(l1 - mu_np) / sigma_np of a real white Wishart matrix converges in law to TW1 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, std::uint64_t s) { return check_tw(b, s, 1); }});
  r.add({"spectra.tw.wishart_complex", "Johansson 2000, Thm 1.6; Tracy & Widom 1994",
         "(l1 - mu_np) / sigma_np of a complex white Wishart matrix converges in law to TW2 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, std::uint64_t s) { return check_tw(b, s, 2); }});
  r.add({"spectra.spike.limit", "Baik & Silverstein 2006, Thm 1.1; Baik, Ben Arous & Peche 2005",
         "A spike ell > 1 + sqrt(c) of the population covariance sends the top sample eigenvalue to sigma2 ell (1 + c/(ell - 1)).",
         ClaimKind::asymptotic, check_spike_limit});
  r.add({"spectra.spike.fluctuation", "Paul 2007, Thm 3; Bai & Yao 2008",
         "sqrt(N) (lambda_hat - rho) -> N(0, 2 sigma2^2 ell^2 (1 - c/(ell - 1)^2)) for real Gaussian data.",
         ClaimKind::asymptotic, check_spike_fluctuation});
  r.add({"spectra.spike.overlap", "Paul 2007, Thm 4",
         "<v_hat, e_1>^2 -> (1 - c/(ell - 1)^2) / (1 + c/(ell - 1)) above the threshold.", ClaimKind::asymptotic,
         check_spike_overlap});
  r.add({"spectra.spike.subcritical", "Baik & Silverstein 2006, Thm 1.1",
         "A spike ell <= 1 + sqrt(c) leaves the top sample eigenvalue at the bulk edge sigma2 (1 + sqrt c)^2.",
         ClaimKind::asymptotic, check_spike_subcritical});
  r.add({"spectra.ipn.overlap", "Benaych-Georges & Nadakuditi 2012 (rectangular additive perturbation)",
         "Above sqrt(c) sigma2 the top singular vectors of B + W have squared overlaps (t^2 - c)/(t (t + c)) (left) and "
         "(t^2 - c)/(t (t + 1)) (right) with those of B, t = lambda / sigma2.",
         ClaimKind::asymptotic, check_ipn_overlap});
  r.add({"spectra.ds.esd", "Dozier & Silverstein 2007",
         "The ESD of (B + W)(B + W)' with a full-rank signal converges to the law whose Stieltjes transform solves "
         "the Dozier-Silverstein equation.",
         ClaimKind::asymptotic, check_ds_esd});
}

}  // namespace moelab::spectra
