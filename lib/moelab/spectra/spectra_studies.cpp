#include "moelab/spectra/spectra_studies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"
#include "moelab/spectra/spiked_covariance.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace moelab::spectra {

namespace {

/// A histogram of `values` on [lo, hi) with `bins` equal bins, normalised by `total` (so that a
/// sample with mass outside the range, e.g. an atom at 0, keeps its true density scale).
std::vector<double> histogram_density(const std::vector<double>& values, double lo, double hi, int bins, double total) {
  std::vector<double> h(static_cast<std::size_t>(bins), 0.0);
  const double width = (hi - lo) / bins;
  for (double v : values) {
    if (v < lo || v >= hi) continue;
    const auto b = std::min(bins - 1, static_cast<int>((v - lo) / width));
    h[static_cast<std::size_t>(b)] += 1.0;
  }
  for (double& x : h) x /= total * width;
  return h;
}

/// N from params.N, or from params.c = M / N (exactly one of them).
int columns_of(const ParamView& v, int M) {
  if (v.find("params.c") == nullptr) return static_cast<int>(v.get_int_at_least("params.N", 1));
  if (v.find("params.N") != nullptr) v.fail("params.N", "give params.N or params.c, not both");
  const double c = v.get_positive("params.c");
  const auto N = static_cast<int>(std::lround(M / c));
  if (N < 1) v.fail("params.c", fmt::format("M / c = {} / {} leaves no columns", M, c));
  return N;
}

// ---- spectra.esd: empirical spectral density of sample covariances vs Marchenko-Pastur ----
class EsdPoint : public PreparedPoint {
 public:
  EsdPoint(int M, int N, double sigma2, EntryLaw law, int bins, std::int64_t trials)
      : M_(M), N_(N), sigma2_(sigma2), law_(law), bins_(bins), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const MarchenkoPastur mp(static_cast<double>(M_) / N_, sigma2_);
    const auto ev = parallel_map<Eigen::VectorXd>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      // Gaussian white Wishart: the tridiagonal model has the same spectrum law at O(M^2) cost.
      Eigen::VectorXd e = law_ == EntryLaw::gaussian && M_ <= N_
                              ? Eigen::VectorXd(laguerre_tridiagonal_eigenvalues(M_, N_, 1.0, b.seed, t) * (sigma2_ / N_))
                              : sample_covariance_eigenvalues(M_, N_, {}, sigma2_, law_, b.seed, t);
      progress.advance();
      return e;
    });
    std::vector<double> pooled;
    Welford ks;
    for (const auto& e : ev) {
      pooled.insert(pooled.end(), e.data(), e.data() + e.size());
      ks.add(mp.ks_distance(std::span<const double>(e.data(), static_cast<std::size_t>(e.size()))));
    }
    const double a = mp.lower_edge(), bb = mp.upper_edge(), margin = 0.08 * (bb - a);
    const double lo = std::max(a - margin, mp.c() > 1.0 ? 0.5 * a : 0.0), hi = bb + margin;
    const auto h = histogram_density(pooled, lo, hi, bins_, static_cast<double>(pooled.size()));
    std::vector<CsvRow> rows;
    const double width = (hi - lo) / bins_;
    for (int i = 0; i < bins_; ++i) {
      const double x = lo + (i + 0.5) * width;
      // Bin average of the limit density (exact via the CDF), comparable with the histogram.
      const double limit = (mp.cdf(lo + (i + 1) * width) - mp.cdf(lo + i * width)) / width;
      rows.push_back({mp.c(), std::int64_t{M_}, std::int64_t{N_}, std::string(entry_law_name(law_)), x,
                      h[static_cast<std::size_t>(i)], limit, mp.density(x), ks.mean(), trials_});
    }
    return rows;
  }

 private:
  int M_, N_;
  double sigma2_;
  EntryLaw law_;
  int bins_;
  std::int64_t trials_;
};

class EsdStudy : public Study {
 public:
  std::string name() const override { return "spectra.esd"; }
  std::string summary() const override {
    return "eigenvalue histogram of (1/N) X X' (X M x N iid, params.law) vs the Marchenko-Pastur density";
  }
  std::vector<std::string> columns() const override {
    return {"c", "M", "N", "law", "x", "empirical_density", "limit_bin_density", "limit_density", "ks_distance_mean", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const int M = static_cast<int>(v.get_int_at_least("params.M", 2));
    const int N = columns_of(v, M);
    const double sigma2 = v.get_positive("params.sigma2", 1.0);
    const EntryLaw law = entry_law_from_name(v.get_choice("params.law", entry_law_names(), "gaussian"));
    const int bins = static_cast<int>(v.get_int_at_least("params.bins", 5, 60));
    return std::make_unique<EsdPoint>(M, N, sigma2, law, bins, b.trials);
  }
};

// ---- spectra.tw: scaled largest eigenvalue of white Wishart matrices vs Tracy-Widom ----
class TwPoint : public PreparedPoint {
 public:
  TwPoint(int n, int p, int beta, int bins, std::int64_t trials) : n_(n), p_(p), beta_(beta), bins_(bins), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const EdgeScaling sc =
        wishart_largest_eigenvalue_scaling(n_, p_, beta_ == 1 ? WishartEdge::johnstone_real : WishartEdge::johansson_complex);
    const int M = std::min(n_, p_), N = std::max(n_, p_);  // X X' and X' X share their nonzero eigenvalues
    auto s = parallel_map<double>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      const double top = laguerre_tridiagonal_largest(M, N, beta_, b.seed, t);
      progress.advance();
      return (top / beta_ - sc.centre) / sc.scale;
    });
    std::sort(s.begin(), s.end());
    const auto cdf = [&](double x) { return tracy_widom_cdf(x, beta_); };
    const double d = ks_statistic(s, cdf), pv = ks_pvalue(d, s.size());
    const Welford w = summarize(s);
    const double lo = -6.0, hi = beta_ == 1 ? 4.0 : 3.0;
    const auto h = histogram_density(s, lo, hi, bins_, static_cast<double>(s.size()));
    std::vector<CsvRow> rows;
    const double width = (hi - lo) / bins_;
    for (int i = 0; i < bins_; ++i) {
      const double x = lo + (i + 0.5) * width;
      const double limit = (cdf(lo + (i + 1) * width) - cdf(lo + i * width)) / width;
      rows.push_back({std::int64_t{n_}, std::int64_t{p_}, std::int64_t{beta_}, x, h[static_cast<std::size_t>(i)], limit,
                      tracy_widom_pdf(x, beta_), w.mean(), w.variance(), d, pv, trials_});
    }
    return rows;
  }

 private:
  int n_, p_, beta_, bins_;
  std::int64_t trials_;
};

class TwStudy : public Study {
 public:
  std::string name() const override { return "spectra.tw"; }
  std::string summary() const override {
    return "largest eigenvalue of white Wishart matrices (beta 1 real / 2 complex), Johnstone-Johansson scaled, vs Tracy-Widom";
  }
  std::vector<std::string> columns() const override {
    return {"n", "p", "beta", "s", "empirical_density", "limit_bin_density", "limit_density", "scaled_mean", "scaled_variance",
            "ks_distance", "ks_p_value", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const int n = static_cast<int>(v.get_int_at_least("params.n", 2));
    const int p = static_cast<int>(v.get_int_at_least("params.p", 1));
    const auto beta = static_cast<int>(v.get_int("params.beta", 1));
    if (beta != 1 && beta != 2) v.fail("params.beta", fmt::format("must be 1 (real) or 2 (complex), got {}", beta));
    const int bins = static_cast<int>(v.get_int_at_least("params.bins", 5, 50));
    return std::make_unique<TwPoint>(n, p, beta, bins, b.trials);
  }
};

// ---- spectra.spike: top eigenvalue and eigenvector of a spiked sample covariance vs BBP / Paul ----
class SpikePoint : public PreparedPoint {
 public:
  SpikePoint(int M, int N, double ell, double sigma2, EntryLaw law, std::int64_t trials)
      : M_(M), N_(N), ell_(ell), sigma2_(sigma2), law_(law), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto draws = parallel_map<TopEigenpair>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      auto d = spiked_top_eigenpair(M_, N_, {ell_}, sigma2_, law_, b.seed, t);
      progress.advance();
      return d;
    });
    Welford value, overlap;
    for (const auto& d : draws) value.add(d.value), overlap.add(d.overlap2);
    const double c = static_cast<double>(M_) / N_;
    const bool above = ell_ > spiked_threshold(c);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double var_limit = above && law_ == EntryLaw::gaussian ? spiked_fluctuation_variance(ell_, c, sigma2_, GaussianField::real) : nan;
    return {{c, std::int64_t{M_}, std::int64_t{N_}, ell_, std::string(entry_law_name(law_)), value.mean(), value.standard_error(),
             static_cast<double>(N_) * value.variance(), spiked_eigenvalue_limit(ell_, c, sigma2_), spiked_bulk_edge(c, sigma2_),
             var_limit, overlap.mean(), overlap.standard_error(), spiked_eigenvector_overlap(ell_, c), trials_}};
  }

 private:
  int M_, N_;
  double ell_, sigma2_;
  EntryLaw law_;
  std::int64_t trials_;
};

class SpikeStudy : public Study {
 public:
  std::string name() const override { return "spectra.spike"; }
  std::string summary() const override {
    return "top eigenvalue/eigenvector of a spiked sample covariance (one spike params.ell) vs the BBP limit, Paul's variance and overlap";
  }
  std::vector<std::string> columns() const override {
    return {"c", "M", "N", "ell", "law", "top_mean", "top_std_error", "n_times_variance", "limit", "bulk_edge",
            "variance_limit", "overlap_mean", "overlap_std_error", "overlap_limit", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const int M = static_cast<int>(v.get_int_at_least("params.M", 2));
    const int N = columns_of(v, M);
    const double ell = v.get_positive("params.ell");
    const double sigma2 = v.get_positive("params.sigma2", 1.0);
    const EntryLaw law = entry_law_from_name(v.get_choice("params.law", entry_law_names(), "gaussian"));
    return std::make_unique<SpikePoint>(M, N, ell, sigma2, law, b.trials);
  }
};

}  // namespace

void add_spectra_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<EsdStudy>());
  out.push_back(std::make_unique<TwStudy>());
  out.push_back(std::make_unique<SpikeStudy>());
}

}  // namespace moelab::spectra
