// `moelab spectrum`: the closed-form random-matrix laws of lib/moelab/spectra/ as CSV (a grid, or
// one row of values), to stdout or atomically to -o FILE. Conventions: docs/conventions.md.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/spectra/dozier_silverstein.hpp"
#include "moelab/spectra/info_plus_noise.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"
#include "moelab/spectra/spiked_covariance.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace moelab::cli {

namespace {

struct SpectrumOptions {
  std::string out;
  int points = 201;
};

void emit(const CsvTable& t, const SpectrumOptions& o) { emit_csv(t, o.out); }

[[noreturn]] void bad(const std::string& key, const std::string& reason) { bad_option(key, reason); }

// Domains of the real options (NaN and infinities are refused by every real option).
const ParamDecl kPositive = real("", "").positive();
// The Dozier-Silverstein solver's root brackets fail for c near the smallest doubles (fuzz finding,
// --c 1e-320 ended in an internal error); a ratio M/N below 1e-12 has no use.
const ParamDecl kRatio = real("", "").at_least(1e-12);
const ParamDecl kFinite = real("", "");
const ParamDecl kProbability = [] {
  ParamDecl d = real("", "").positive();
  return d.below(1.0);
}();

void add_common(CLI::App* cmd, SpectrumOptions& o, bool grid) {
  output_option(cmd, "-o,--output", o.out, "write the CSV here (atomically) instead of stdout");
  if (grid) int_option(cmd, "--points", o.points, 2, 1000000, "grid points")->capture_default_str();
}

}  // namespace

void emit_csv(const CsvTable& t, const std::string& out) {
  if (out.empty() || out == "-") {  // "-": stdout, as for most Unix tools
    std::fputs(t.to_string().c_str(), stdout);
  } else {
    write_file_atomic(out, t.to_string());
    fmt::print(stderr, "wrote {} ({} rows)\n", out, t.rows.size());
  }
}

void bad_option(const std::string& key, const std::string& reason) { throw InputError("command line", 0, key, reason); }

void add_spectrum(CLI::App& app, int& exit_code) {
  auto* root = app.add_subcommand("spectrum", "Closed-form random-matrix laws (MP, TW, spikes, Dozier-Silverstein) as CSV");
  root->require_subcommand(1);
  static SpectrumOptions o;
  static double c = 0.5, sigma2 = 1.0, ell = 4.0, lambda = 4.0, from = -6.0, to = 4.0, p = -1.0;
  static int beta = 2;
  static std::string convention = "sqrt2";
  static std::vector<double> atoms, weights;

  auto* mp = root->add_subcommand("mp", "Marchenko-Pastur MP(c, sigma2): S = (1/N) X X', X M x N, var sigma2, c = M/N. "
                                        "Grid over the support: x, density, cdf");
  real_option(mp, "--c", c, kPositive, "ratio c = M/N > 0")->capture_default_str();
  real_option(mp, "--sigma2", sigma2, kPositive, "entry variance > 0")->capture_default_str();
  add_common(mp, o, true);
  mp->callback([&exit_code] {
    const spectra::MarchenkoPastur law(c, sigma2);
    CsvTable t;
    t.columns = {"x", "density", "cdf"};
    t.add_metadata("law", fmt::format("Marchenko-Pastur c = {}, sigma2 = {}", c, sigma2));
    t.add_metadata("edges", fmt::format("{} {}", law.lower_edge(), law.upper_edge()));
    t.add_metadata("atom_at_0", fmt::format("{}", law.atom()));
    for (int i = 0; i < o.points; ++i) {
      const double x = law.lower_edge() + (law.upper_edge() - law.lower_edge()) * i / (o.points - 1);
      t.add_row({x, law.density(x), law.cdf(x)});
    }
    emit(t, o);
    exit_code = kExitOk;
  });

  auto* tw = root->add_subcommand("tw", "Tracy-Widom F_beta: grid of s, cdf, pdf (or one quantile with --quantile)");
  tw->add_option("--beta", beta, "1, 2 or 4")->check(CLI::IsMember({1, 2, 4}))->capture_default_str();
  tw->add_option("--convention", convention,
                 "beta = 4 only: sqrt2 (F4(s) = F4u(sqrt(2) s), Tracy-Widom 1996 tables, mean -2.3069) or unscaled "
                 "(F4u, the scale of F1 and F2, mean -3.2624); 'original' is a deprecated alias of sqrt2")
      ->check(CLI::IsMember({"sqrt2", "unscaled", "original"}))
      ->capture_default_str();
  real_option(tw, "--from", from, kFinite, "grid start")->capture_default_str();
  real_option(tw, "--to", to, kFinite, "grid end")->capture_default_str();
  real_option(tw, "--quantile", p, kProbability, "print the quantile at this probability in (0, 1) instead of a grid");
  add_common(tw, o, true);
  tw->callback([&exit_code] {
    if (convention == "original") {
      fmt::print(stderr, "note: --convention original is a deprecated alias of sqrt2 (F4(s) = F4u(sqrt(2) s))\n");
      convention = "sqrt2";
    }
    const auto conv = convention == "sqrt2" ? spectra::Tw4Convention::sqrt2 : spectra::Tw4Convention::unscaled;
    if (convention != "sqrt2" && beta != 4) bad("--convention", "applies to beta = 4 only");
    CsvTable t;
    t.add_metadata("law", fmt::format("Tracy-Widom beta = {}{}", beta, beta == 4 ? ", " + convention + " convention" : ""));
    if (p >= 0.0) {
      if (!(p > 0.0 && p < 1.0)) bad("--quantile", fmt::format("must be in (0, 1), got {}", p));
      t.columns = {"p", "quantile"};
      t.add_row({p, spectra::tracy_widom_quantile(p, beta, conv)});
    } else {
      if (!(to > from)) bad("--to", fmt::format("must exceed --from ({} <= {})", to, from));
      const auto m = spectra::tracy_widom_moments(beta, conv);
      t.add_metadata("moments", fmt::format("mean {} variance {} skewness {} excess_kurtosis {}", m.mean, m.variance, m.skewness,
                                            m.excess_kurtosis));
      t.columns = {"s", "cdf", "pdf"};
      for (int i = 0; i < o.points; ++i) {
        const double s = from + (to - from) * i / (o.points - 1);
        t.add_row({s, spectra::tracy_widom_cdf(s, beta, conv), spectra::tracy_widom_pdf(s, beta, conv)});
      }
    }
    emit(t, o);
    exit_code = kExitOk;
  });

  auto* spike = root->add_subcommand("spike", "Spiked covariance sigma2 diag(ell, 1, ...): BBP threshold, eigenvalue limit, "
                                              "eigenvector overlap, fluctuation variances (one row)");
  real_option(spike, "--ell", ell, kPositive, "population spike (units of sigma2) > 0")->capture_default_str();
  real_option(spike, "--c", c, kPositive, "ratio c = M/N > 0")->capture_default_str();
  real_option(spike, "--sigma2", sigma2, kPositive, "noise level > 0")->capture_default_str();
  add_common(spike, o, false);
  spike->callback([&exit_code] {
    CsvTable t;
    const bool above = ell > spectra::spiked_threshold(c);
    t.columns = {"ell", "c", "sigma2", "threshold", "bulk_edge", "eigenvalue_limit", "overlap_limit", "variance_real", "variance_complex"};
    const double nan = std::nan("");
    t.add_row({ell, c, sigma2, spectra::spiked_threshold(c), spectra::spiked_bulk_edge(c, sigma2),
               spectra::spiked_eigenvalue_limit(ell, c, sigma2), spectra::spiked_eigenvector_overlap(ell, c),
               above ? spectra::spiked_fluctuation_variance(ell, c, sigma2, spectra::GaussianField::real) : nan,
               above ? spectra::spiked_fluctuation_variance(ell, c, sigma2, spectra::GaussianField::complex) : nan});
    emit(t, o);
    exit_code = kExitOk;
  });

  auto* ipn = root->add_subcommand("ipn", "Information-plus-noise B + W (M x N, W iid N(0, sigma2/N)): threshold, limit of the "
                                          "eigenvalue of a squared signal singular value lambda, singular-vector overlaps (one row)");
  real_option(ipn, "--lambda", lambda, kPositive, "squared signal singular value > 0")->capture_default_str();
  real_option(ipn, "--c", c, kPositive, "ratio c = M/N > 0")->capture_default_str();
  real_option(ipn, "--sigma2", sigma2, kPositive, "noise level > 0")->capture_default_str();
  add_common(ipn, o, false);
  ipn->callback([&exit_code] {
    CsvTable t;
    t.columns = {"lambda", "c", "sigma2", "threshold", "bulk_edge", "eigenvalue_limit", "left_overlap", "right_overlap"};
    t.add_row({lambda, c, sigma2, spectra::info_plus_noise_threshold(c, sigma2), spectra::info_plus_noise_bulk_edge(c, sigma2),
               spectra::info_plus_noise_spike_limit(lambda, c, sigma2), spectra::info_plus_noise_left_overlap(lambda, c, sigma2),
               spectra::info_plus_noise_right_overlap(lambda, c, sigma2)});
    emit(t, o);
    exit_code = kExitOk;
  });

  auto* ds = root->add_subcommand("ds", "Dozier-Silverstein limit of (B + W)(B + W)' for a signal spectrum H = sum w_j delta(t_j) "
                                        "of B B': density grid over the support, with the solver's status per point");
  real_list_option(ds, "--atoms", atoms, "eigenvalues t_j >= 0 of B B'")->required();
  real_list_option(ds, "--weights", weights, "their weights (sum 1)")->required();
  real_option(ds, "--c", c, kRatio, "ratio c = M/N >= 1e-12")->capture_default_str();
  real_option(ds, "--sigma2", sigma2, kPositive, "noise level > 0")->capture_default_str();
  add_common(ds, o, true);
  ds->callback([&exit_code] {
    if (atoms.size() != weights.size()) bad("--weights", fmt::format("{} weights for {} atoms", weights.size(), atoms.size()));
    for (double a : atoms)
      if (!(a >= 0.0) || !std::isfinite(a)) bad("--atoms", fmt::format("atoms must be finite and >= 0, got {}", a));
    for (double w : weights)
      if (!(w > 0.0) || !std::isfinite(w)) bad("--weights", fmt::format("weights must be finite and > 0, got {}", w));
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (std::abs(total - 1.0) > 1e-9) bad("--weights", fmt::format("must sum to 1, sum to {}", total));
    double zero_mass = 0.0;
    for (std::size_t j = 0; j < atoms.size(); ++j)
      if (atoms[j] == 0.0) zero_mass += weights[j];
    if (c > 1.0 && zero_mass < 1.0 - 1.0 / c - 1e-12)
      bad("--weights", fmt::format("with c = {} > 1, B B' (M x M, rank <= N) has mass >= 1 - 1/c = {} at 0; the atoms give {}", c,
                                   1.0 - 1.0 / c, zero_mass));
    const spectra::DozierSilverstein law(atoms, weights, c, sigma2);
    const auto support = law.support();
    CsvTable t;
    t.add_metadata("law", fmt::format("Dozier-Silverstein c = {}, sigma2 = {}", c, sigma2));
    std::string sup;
    for (const auto& iv : support) sup += fmt::format("[{}, {}] ", iv.lower, iv.upper);
    t.add_metadata("support", sup);
    t.add_metadata("atom_at_0", fmt::format("{}", law.atom_at_zero()));
    t.columns = {"x", "density", "converged", "residual"};
    const double lo = support.front().lower, hi = support.back().upper, pad = 0.02 * (hi - lo);
    int failed = 0;
    for (const auto& pt : law.density_grid(std::max(0.0, lo - pad), hi + pad, o.points)) {
      failed += !pt.converged;
      t.add_row({pt.x, pt.density, std::int64_t{pt.converged ? 1 : 0}, pt.residual});
    }
    emit(t, o);
    if (failed > 0) fmt::print(stderr, "moelab: warning: the fixed-point solver did not converge at {} of {} points (column converged)\n",
                               failed, o.points);
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
