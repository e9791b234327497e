// The spectra topic's studies (scenario/study.hpp): spectra.esd, spectra.tw, spectra.spike.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "moelab/core/stats.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"
#include "moelab/spectra/spectra_engine.hpp"
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

// ---- cost models (hardening; docs/hardening.md, "Cost model") ----

/// Trials that run at once under define_trial_study (parallel_map over the trials).
double concurrent(std::int64_t trials) { return std::min(static_cast<double>(num_threads()), static_cast<double>(trials)); }

/// One dense sample covariance spectrum (ensembles.cpp: iid_matrix / spiked_factor, gram_eigenvalues):
/// X (M x N), the Gram matrix min(M, N)^2 and the eigensolver's working copy of it.
double dense_spectrum_bytes(double M, double N) {
  const double r = std::min(M, N);
  return 8.0 * (M * N + 2.0 * r * r + 4.0 * M);
}

// Sizes: M rows, N columns given directly or through c = M / N.
std::vector<ParamDecl> size_params() {
  return {integer("params.M", "rows of X (the dimension of the sample covariance)").at_least(2).at_most(1 << 16),
          integer("params.N", "columns of X (samples); give params.N or params.c").at_least(1).at_most(1 << 20).optional(),
          real("params.c", "aspect ratio M / N; N = round(M / c)").positive().optional(),
          real("params.sigma2", "entry variance").positive().or_default(1.0),
          choice("params.law", entry_law_names(), "law of the iid entries").or_default("gaussian")};
}

/// N from params.N, or from params.c = M / N (exactly one of them).
int columns_of(const PointParams& p, int M) {
  if (!p.has("params.c")) {
    if (!p.has("params.N")) p.fail("params.N", "give params.N or params.c");
    return p.small("params.N");
  }
  if (p.has("params.N")) p.fail("params.N", "give params.N or params.c, not both");
  const double c = p.real("params.c");
  const double n = std::round(M / c);
  if (!(n >= 1.0)) p.fail("params.c", fmt::format("M / c = {} / {} leaves no columns", M, c));
  if (n > static_cast<double>(1 << 20)) p.fail("params.c", fmt::format("M / c = {} / {} gives more than 2^20 columns", M, c));
  return static_cast<int>(n);
}

// ---- spectra.esd: empirical spectral density of sample covariances vs Marchenko-Pastur ----
struct EsdPoint {
  int M, N;
  double sigma2;
  EntryLaw law;
  int bins;
};

/// spectra.esd's reduction (shared by the CPU and the CUDA run).
auto esd_reduce = [](const EsdPoint& pt, std::span<const Eigen::VectorXd> ev, const RunContext& ctx, RowSink& rows) {
  const MarchenkoPastur mp(static_cast<double>(pt.M) / pt.N, pt.sigma2);
  std::vector<double> pooled;
  Welford ks;
  for (const auto& e : ev) {
    pooled.insert(pooled.end(), e.data(), e.data() + e.size());
    ks.add(mp.ks_distance(std::span<const double>(e.data(), static_cast<std::size_t>(e.size()))));
  }
  const double a = mp.lower_edge(), bb = mp.upper_edge(), margin = 0.08 * (bb - a);
  const double lo = std::max(a - margin, mp.c() > 1.0 ? 0.5 * a : 0.0), hi = bb + margin;
  const auto h = histogram_density(pooled, lo, hi, pt.bins, static_cast<double>(pooled.size()));
  const double width = (hi - lo) / pt.bins;
  for (int i = 0; i < pt.bins; ++i) {
    const double x = lo + (i + 0.5) * width;
    // Bin average of the limit density (exact via the CDF), comparable with the histogram.
    const double limit = (mp.cdf(lo + (i + 1) * width) - mp.cdf(lo + i * width)) / width;
    rows.row().set("c", mp.c()).set("M", pt.M).set("N", pt.N).set("law", entry_law_name(pt.law)).set("x", x)
        .set("empirical_density", h[static_cast<std::size_t>(i)]).set("limit_bin_density", limit)
        .set("limit_density", mp.density(x)).set("ks_distance_mean", ks.mean()).set("trials", ctx.trials);
  }
};

StudyDef esd_study() {
  StudyDef d;
  d.name = "spectra.esd";
  d.summary = "eigenvalue histogram of (1/N) X X' (X M x N iid, params.law) vs the Marchenko-Pastur density";
  d.figure = "Marchenko & Pastur 1967; Bai & Silverstein 2010, Thm 3.6";
  d.trial_unit = "random matrices";
  d.params = size_params();
  d.params.push_back(integer("params.bins", "histogram bins").in(5, 100000).or_default(60));
  d.columns = {{"c", "aspect ratio M / N"},
               {"M", "rows"},
               {"N", "columns"},
               {"law", "entry law"},
               {"x", "bin centre"},
               {"empirical_density", "pooled eigenvalue histogram (density, normalised by all eigenvalues)"},
               {"limit_bin_density", "MP mass of the bin / bin width (exact, comparable with the histogram)"},
               {"limit_density", "MP density at the bin centre"},
               {"ks_distance_mean", "mean KS distance of one matrix's ESD to MP"},
               {"trials", "matrices"}};
  StudyDef def = define_trial_study<EsdPoint, Eigen::VectorXd>(
      std::move(d),
      [](const PointParams& p) {
        const int M = p.small("params.M");
        return EsdPoint{M, columns_of(p, M), p.real("params.sigma2"), entry_law_from_name(p.text("params.law")),
                        p.small("params.bins")};
      },
      [](const EsdPoint& pt, const RunContext& ctx, std::int64_t t) {
        const auto trial = static_cast<std::uint64_t>(t);
        // Gaussian white Wishart: the tridiagonal model has the same spectrum law at O(M^2) cost.
        return pt.law == EntryLaw::gaussian && pt.M <= pt.N
                   ? Eigen::VectorXd(laguerre_tridiagonal_eigenvalues(pt.M, pt.N, 1.0, ctx.key.seed(), trial) * (pt.sigma2 / pt.N))
                   : sample_covariance_eigenvalues(pt.M, pt.N, {}, pt.sigma2, pt.law, ctx.key.seed(), trial);
      },
      esd_reduce);
  // The CUDA path (validated on an H200 at a8b58ee, docs/gpu.md "Validation"; `auto` takes it where a
  // usable device exists): every trial's matrix drawn on the device at the
  // CPU's Sampler::entries addresses, eigenvalues batched there (the engine make_spectra_engine gives
  // for the resolved backend, spectra_engine.hpp), then the same
  // reduction. For Gaussian entries with M <= N the CPU draws the tridiagonal model instead (same
  // spectral law, other draws): there the device rows agree with the CPU's in law, not byte for byte.
  def.cuda = CudaPath::validated;
  def.run = [cpu_run = def.run](const std::any& a, const RunContext& ctx, RowSink& rows) {
    if (ctx.backend != Backend::cuda) return cpu_run(a, ctx, rows);
    const EsdPoint& pt = std::any_cast<const EsdPoint&>(a);
    const auto ev = make_spectra_engine(ctx.backend)->sample_covariance_eigenvalues(pt.M, pt.N, {}, pt.sigma2, pt.law, ctx.key.seed(), 0,
                                                                                     static_cast<int>(ctx.trials));
    ctx.advance(static_cast<std::size_t>(ctx.trials));
    esd_reduce(pt, ev, ctx, rows);
  };
  def.trial_block = nullptr;  // (T = Eigen::VectorXd is not trivially copyable: never set for this study)
  // Per running trial: the tridiagonal Laguerre model (a few M-vectors; eigenvalues by implicit QR,
  // ~30 M^2 operations) for Gaussian entries with M <= N, else the dense spectrum (dense_spectrum_bytes;
  // Gram M N min(M, N) and tridiagonalisation 4/3 min^3). Kept: every trial's M eigenvalues, then
  // pooled into one vector in reduce (2 x 8 M per trial).
  set_cost<EsdPoint>(def, [](const EsdPoint& pt, std::int64_t trials) {
    const double M = pt.M, N = pt.N, r = std::min(M, N), t = static_cast<double>(trials);
    const bool tridiagonal = pt.law == EntryLaw::gaussian && pt.M <= pt.N;
    const double one = tridiagonal ? 8.0 * 8.0 * M : dense_spectrum_bytes(M, N);
    const double work = tridiagonal ? 200.0 * M + 30.0 * M * M : 20.0 * M * N + M * N * r + 4.0 / 3.0 * r * r * r + 30.0 * r * r;
    return StudyCost{concurrent(trials) * one + 16.0 * M * t + 8.0 * pt.bins, t * work};
  });
  return def;
}

// ---- spectra.tw: scaled largest eigenvalue of white Wishart matrices vs Tracy-Widom ----
struct TwPoint {
  int n, p, beta, bins;
};

StudyDef tw_study() {
  StudyDef d;
  d.name = "spectra.tw";
  d.summary = "largest eigenvalue of white Wishart matrices (beta 1 real / 2 complex), Johnstone-Johansson scaled, vs Tracy-Widom";
  d.figure = "Johnstone 2001, Thm 1.1; Johansson 2000, Thm 1.6";
  d.trial_unit = "random matrices";
  d.params = {integer("params.n", "samples (rows of X)").at_least(2).at_most(1 << 24),
              integer("params.p", "variables (columns of X)").at_least(1).at_most(1 << 24),
              integer("params.beta", "1 (real) or 2 (complex)").in(1, 2).or_default(1),
              integer("params.bins", "histogram bins").in(5, 100000).or_default(50)};
  d.columns = {{"n", "samples"},
               {"p", "variables"},
               {"beta", "1 real, 2 complex"},
               {"s", "bin centre of the scaled largest eigenvalue"},
               {"empirical_density", "histogram of the scaled largest eigenvalue"},
               {"limit_bin_density", "TW mass of the bin / bin width"},
               {"limit_density", "TW density at the bin centre"},
               {"scaled_mean", "mean of the scaled largest eigenvalue"},
               {"scaled_variance", "its variance"},
               {"ks_distance", "KS distance to TW"},
               {"ks_p_value", "KS p-value (asymptotic)"},
               {"trials", "matrices"}};
  StudyDef def = define_trial_study<TwPoint, double>(
      std::move(d),
      [](const PointParams& p) {
        return TwPoint{p.small("params.n"), p.small("params.p"), p.small("params.beta"), p.small("params.bins")};
      },
      [](const TwPoint& pt, const RunContext& ctx, std::int64_t t) {
        const EdgeScaling sc = wishart_largest_eigenvalue_scaling(
            pt.n, pt.p, pt.beta == 1 ? WishartEdge::johnstone_real : WishartEdge::johansson_complex);
        const int M = std::min(pt.n, pt.p), N = std::max(pt.n, pt.p);  // X X' and X' X share their nonzero eigenvalues
        const double top = laguerre_tridiagonal_largest(M, N, pt.beta, ctx.key.seed(), static_cast<std::uint64_t>(t));
        return (top / pt.beta - sc.centre) / sc.scale;
      },
      [](const TwPoint& pt, std::span<const double> draws, const RunContext& ctx, RowSink& rows) {
        std::vector<double> s(draws.begin(), draws.end());
        std::sort(s.begin(), s.end());
        const auto cdf = [&](double x) { return tracy_widom_cdf(x, pt.beta); };
        const double dist = ks_statistic(s, cdf), pv = ks_pvalue(dist, s.size());
        const Welford w = summarize(s);
        const double lo = -6.0, hi = pt.beta == 1 ? 4.0 : 3.0;
        const auto h = histogram_density(s, lo, hi, pt.bins, static_cast<double>(s.size()));
        const double width = (hi - lo) / pt.bins;
        for (int i = 0; i < pt.bins; ++i) {
          const double x = lo + (i + 0.5) * width;
          const double limit = (cdf(lo + (i + 1) * width) - cdf(lo + i * width)) / width;
          rows.row().set("n", pt.n).set("p", pt.p).set("beta", pt.beta).set("s", x)
              .set("empirical_density", h[static_cast<std::size_t>(i)]).set("limit_bin_density", limit)
              .set("limit_density", tracy_widom_pdf(x, pt.beta)).set("scaled_mean", w.mean())
              .set("scaled_variance", w.variance()).set("ks_distance", dist).set("ks_p_value", pv).set("trials", ctx.trials);
        }
      });
  // Per running trial: the bidiagonal and tridiagonal of the Laguerre model (4 min(n, p)-vectors);
  // 2 min(n, p) gamma variates and up to 100 Sturm bisections of min(n, p) steps. Kept: one double
  // per trial (the frame) and its sorted copy in reduce.
  set_cost<TwPoint>(def, [](const TwPoint& pt, std::int64_t trials) {
    const double r = std::min(pt.n, pt.p), t = static_cast<double>(trials);
    return StudyCost{concurrent(trials) * 32.0 * r + 8.0 * t + 8.0 * pt.bins, t * (200.0 * r + 100.0 * 6.0 * r)};
  });
  return def;
}

// ---- spectra.spike: top eigenvalue and eigenvector of a spiked sample covariance vs BBP / Paul ----
struct SpikePoint {
  int M, N;
  double ell, sigma2;
  EntryLaw law;
};

StudyDef spike_study() {
  StudyDef d;
  d.name = "spectra.spike";
  d.summary = "top eigenvalue/eigenvector of a spiked sample covariance (one spike params.ell) vs the BBP limit, Paul's variance and overlap";
  d.figure = "Baik & Silverstein 2006, Thm 1.1; Paul 2007, Thms 3-4";
  d.trial_unit = "random matrices";
  d.params = size_params();
  d.params.push_back(real("params.ell", "the population spike (covariance eigenvalue along e_1)").positive());
  d.columns = {{"c", "aspect ratio M / N"},
               {"M", "rows"},
               {"N", "columns"},
               {"ell", "spike"},
               {"law", "entry law"},
               {"top_mean", "mean top sample eigenvalue"},
               {"top_std_error", "its standard error"},
               {"n_times_variance", "N times the variance of the top eigenvalue"},
               {"limit", "BBP limit sigma2 ell (1 + c/(ell - 1)) above the threshold, else the bulk edge"},
               {"bulk_edge", "sigma2 (1 + sqrt c)^2"},
               {"variance_limit", "Paul's limit of N var (real Gaussian, above the threshold; nan otherwise)"},
               {"overlap_mean", "mean <v_hat, e_1>^2"},
               {"overlap_std_error", "its standard error"},
               {"overlap_limit", "Paul's overlap limit"},
               {"trials", "matrices"}};
  StudyDef def = define_trial_study<SpikePoint, TopEigenpair>(
      std::move(d),
      [](const PointParams& p) {
        const int M = p.small("params.M");
        return SpikePoint{M, columns_of(p, M), p.real("params.ell"), p.real("params.sigma2"),
                          entry_law_from_name(p.text("params.law"))};
      },
      [](const SpikePoint& pt, const RunContext& ctx, std::int64_t t) {
        return spiked_top_eigenpair(pt.M, pt.N, {pt.ell}, pt.sigma2, pt.law, ctx.key.seed(), static_cast<std::uint64_t>(t));
      },
      [](const SpikePoint& pt, std::span<const TopEigenpair> draws, const RunContext& ctx, RowSink& rows) {
        Welford value, overlap;
        for (const auto& d : draws) value.add(d.value), overlap.add(d.overlap2);
        const double c = static_cast<double>(pt.M) / pt.N;
        const bool above = pt.ell > spiked_threshold(c);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double var_limit =
            above && pt.law == EntryLaw::gaussian ? spiked_fluctuation_variance(pt.ell, c, pt.sigma2, GaussianField::real) : nan;
        rows.row().set("c", c).set("M", pt.M).set("N", pt.N).set("ell", pt.ell).set("law", entry_law_name(pt.law))
            .set("top_mean", value.mean()).set("top_std_error", value.standard_error())
            .set("n_times_variance", static_cast<double>(pt.N) * value.variance())
            .set("limit", spiked_eigenvalue_limit(pt.ell, c, pt.sigma2)).set("bulk_edge", spiked_bulk_edge(c, pt.sigma2))
            .set("variance_limit", var_limit).set("overlap_mean", overlap.mean())
            .set("overlap_std_error", overlap.standard_error()).set("overlap_limit", spiked_eigenvector_overlap(pt.ell, c))
            .set("trials", ctx.trials);
      });
  // Per running trial: Y (M x N) and, when the power iteration (Y (Y' v), 4 M N per step, up to 300
  // steps) does not converge, the dense fallback Y Y' with eigenvectors (3 M^2). Work: 20 M N for the
  // entries and ~100 power steps (typical; the estimate is an order of magnitude).
  set_cost<SpikePoint>(def, [](const SpikePoint& pt, std::int64_t trials) {
    const double M = pt.M, N = pt.N;
    return StudyCost{concurrent(trials) * 8.0 * (M * N + 3.0 * M * M + 4.0 * M),
                     static_cast<double>(trials) * (20.0 * M * N + 100.0 * 4.0 * M * N)};
  });
  return def;
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(esd_study());
  out.push_back(tw_study());
  out.push_back(spike_study());
}

}  // namespace moelab::spectra
