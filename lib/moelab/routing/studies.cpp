// Scenario studies of the granularity paper (routing/), in the declarative form (scenario/study.hpp):
// each declares its parameters and columns once; the runner validates, loops, seeds and reduces.
//   routing.mass_histogram   C(m,k) mu(U_S) over all regions of Gaussian routers      (Lemma 3.2)
//   routing.balance          moments of the region masses, balanced fraction     (Lemmas A.5, A.6)
//   routing.packing, routing.separation, routing.configurations: studies_geometry.cpp
// The region-mass studies run on the backend the runner resolved (ctx.backend) through one
// RegionMassSampler per point (region_mass_sampler.hpp): the CPU reference, or the CUDA sibling
// (experimental) whose device context is kept across the point's draws.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/counting.hpp"
#include "moelab/routing/detail/study_params.hpp"
#include "moelab/routing/order_statistics.hpp"
#include "moelab/routing/region_mass_sampler.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::routing {

namespace detail {

// ---- shared declarations and readers ----

std::vector<ParamDecl> shape_params() {
  return {integer("params.m", "experts m (routing vectors r_1..r_m)").at_least(2).unit("experts"),
          integer("params.k", "active experts k per input (top-k); 1 <= k < m and C(m, k) < 2^64").at_least(1).unit("experts"),
          integer("params.d", "input dimension d (at most 131070: the point addressing's 32-bit Philox block counter)")
              .at_least(1)
              .at_most(kMaxPointDim)};
}

Shape read_shape(const PointParams& p) {
  const Shape s{p.small("params.m"), p.small("params.k"), p.small("params.d")};
  if (s.k >= s.m) p.fail("params.k", fmt::format("must be below m = {}, got {}", s.m, s.k));
  if (!binomial_fits(s.m, s.k)) p.fail("params.k", fmt::format("C({}, {}) does not fit in 64 bits", s.m, s.k));
  // Checked in the validation pass, before any point runs (the runner resolves the backend first).
  if (!sampler_supports(p.backend(), s.k))
    p.fail("params.k", fmt::format("k = {}: the CUDA routing path supports k <= {}; run with --backend cpu", s.k, kMaxDeviceTopK));
  return s;
}

ParamDecl law_param() {
  return choice("params.law", input_law_names(), "input law: N(0, I_d/d) or uniform on the unit ball (Thms 3.4, 3.6)")
      .or_default("gaussian");
}

}  // namespace detail

namespace {

using namespace detail;

std::vector<ParamDecl> region_mass_params(std::int64_t per_region_default) {
  auto out = shape_params();
  out.push_back(integer("params.points", "points per routing draw (instead of points_per_region)")
                    .in(2, 4294967295.0)
                    .unit("points")
                    .optional());
  out.push_back(integer("params.points_per_region", "points per routing draw, as a multiple of C(m, k) (n = this x C(m, k) <= 4e9)")
                    .at_least(1)
                    .or_default(per_region_default)
                    .unit("points per region"));
  out.push_back(law_param());
  out.push_back(choice("params.path", {"automatic", "full", "projected"},
                       "how the scores R x are drawn: full GEMM in R^d, projected through chol(R R') (exact in law, needs "
                       "m <= d), automatic = projected when m < d")
                    .or_default("automatic"));
  return out;
}

/// The region-mass experiment of a point: shape, law, score path and points per draw.
RegionMassExperiment read_region_mass_experiment(const PointParams& p, const Shape& s) {
  RegionMassExperiment e;
  e.m = s.m, e.k = s.k, e.d = s.d;
  e.law = input_law_from_name(p.text("params.law"));
  const auto path = p.text("params.path");
  e.path = path == "full" ? ScorePath::full : path == "projected" ? ScorePath::projected : ScorePath::automatic;
  const double regions = static_cast<double>(binomial(s.m, s.k));
  if (p.has("params.points")) {
    if (p.has("params.points_per_region"))
      p.fail("params.points", "give params.points or params.points_per_region, not both");
    e.points = static_cast<std::uint64_t>(p.integer("params.points"));
  } else {
    const auto per = p.integer("params.points_per_region");
    const double n = static_cast<double>(per) * regions;
    if (n > 4.0e9)
      p.fail("params.points_per_region", fmt::format("{} x C(m, k) = {:.3g} points exceeds 4e9 per draw", per, n));
    e.points = static_cast<std::uint64_t>(n);
  }
  return e;
}

// ---- cost models (hardening; docs/hardening.md, "Cost model") ----

/// Routing draws that run at once: the CPU sampler draws concurrently (parallel_map over the draws).
double concurrent_draws(std::int64_t draws) {
  return std::min(static_cast<double>(num_threads()), static_cast<double>(draws));
}

/// One routing draw of the region-mass experiment (region_masses.cpp, region_mass_draws): the routing
/// vectors R (m x d) and their transpose, the Router's copy (R, or chol(R R') with R R' on the
/// projected path), the ranking table (k (m + 1) words), a batch of 256 points and scores, and the
/// histogram of the C(m, k) regions: 32-bit counters up to 2^22 regions, else an open-addressing table
/// of 16-byte slots at load <= 1/2 (old and new table while it grows) over the occupied regions
/// (<= min(C, n)), plus sorted_entries (16 bytes each, grown by doubling) in summarize_regions.
double region_draw_bytes(const RegionMassExperiment& e) {
  const double m = e.m, d = e.d, k = e.k, n = static_cast<double>(e.points);
  const double C = static_cast<double>(binomial(e.m, e.k));
  const bool projected = e.path == ScorePath::projected || (e.path == ScorePath::automatic && e.m < e.d);
  const double router = projected ? 2.0 * m * m : m * d;
  const double occupied = std::min(C, n);
  const double histogram = C <= static_cast<double>(RegionHistogram::kDenseLimit) ? 4.0 * C : 3.0 * 2.0 * 16.0 * occupied;
  return 8.0 * (2.0 * m * d + router + k * (m + 1.0) + 256.0 * ((projected ? m : d) + m) + 2.0 * k) + histogram +
         32.0 * occupied;
}

/// Work of one draw: n points, each d normals (~20 operations), its scores (2 dim m) and a top-k.
double region_draw_work(const RegionMassExperiment& e) {
  const double m = e.m, d = e.d, n = static_cast<double>(e.points);
  const bool projected = e.path == ScorePath::projected || (e.path == ScorePath::automatic && e.m < e.d);
  return n * (20.0 * (projected ? m : d) + 2.0 * (projected ? m : d) * m + 4.0 * m) + 2.0 * m * m * d;
}

/// The sampler of a point's backend (its limits were checked when the point was prepared).
std::unique_ptr<RegionMassSampler> sampler_for(const RunContext& ctx, const RegionMassExperiment& e) {
  MOELAB_EXPECT(sampler_supports(ctx.backend, e.k), "backend limits are checked in prepare");
  return make_region_mass_sampler(ctx.backend);
}

// ---- routing.mass_histogram ----

struct HistogramPoint {
  RegionMassExperiment e;
  int bins = 0;
  double max_mass = 0.0;
};

StudyDef mass_histogram_study() {
  StudyDef def;
  def.name = "routing.mass_histogram";
  def.summary =
      "histogram of C(m,k) mu(U_S) over all regions of Gaussian top-k routers (uniform masses: all at 1), granularity Lemma 3.2";
  def.trial_unit = "routing draws (Gaussian routers R, n points each)";
  def.figure = "granularity paper, Lemma 3.2 (Eqs. 3.1-3.3): the spread of the region masses";
  def.cuda = CudaPath::validated;
  def.params = region_mass_params(400);
  def.params.push_back(integer("params.bins", "histogram bins on [0, max_mass)").at_least(5).or_default(60));
  def.params.push_back(real("params.max_mass", "right end of the histogram, in units of 1/C(m, k)").positive().or_default(3.0));
  def.columns = {{"m", "experts"},
                 {"k", "active experts"},
                 {"d", "input dimension"},
                 {"law", "input law"},
                 {"x", "bin centre of C(m,k) mu(U_S)"},
                 {"empirical_density", "fraction of (region, draw) pairs in the bin / bin width"},
                 {"lognormal_reference_density", "lognormal, mean 1, variance c2/d + C/n (a heuristic shape, not a theorem)"},
                 {"c2", "first-order coefficient of C^2 E mu^2 = 1 + c2/d (Mehler, docs/routing.md)"},
                 {"second_moment_mean", "C^2 E mu(U_S)^2 over the draws (Lemma A.5)"},
                 {"balanced_fraction_mean", "fraction of regions with mu >= 1/(2C) (Lemma A.6)"},
                 {"points", "points per routing draw n"},
                 {"trials", "routing draws"}};
  StudyDef out = define_study<HistogramPoint>(
      std::move(def),
      [](const PointParams& p) {
        const Shape s = read_shape(p);
        const std::uint64_t C = binomial(s.m, s.k);
        if (C > (std::uint64_t{1} << 22))
          p.fail("params.k", fmt::format("C({}, {}) = {} regions: too many for a histogram of masses", s.m, s.k, C));
        return HistogramPoint{read_region_mass_experiment(p, s), p.small("params.bins"), p.real("params.max_mass")};
      },
      [](const HistogramPoint& pt, const RunContext& ctx, RowSink& rows) {
        const auto& e = pt.e;
        std::vector<std::vector<double>> masses;
        const auto sampler = sampler_for(ctx, e);
        const auto sums = region_mass_draws(*sampler, e, ctx.trials, ctx.key.seed(), [&] { ctx.advance(); }, &masses);
        const double C = static_cast<double>(binomial(e.m, e.k));
        std::vector<double> h(static_cast<std::size_t>(pt.bins), 0.0);
        const double width = pt.max_mass / pt.bins;
        double total = 0.0;
        for (const auto& draw : masses)
          for (double x : draw) {
            total += 1.0;
            if (x < pt.max_mass) h[static_cast<std::size_t>(std::min(pt.bins - 1, static_cast<int>(x / width)))] += 1.0;
          }
        Welford second, balanced;
        for (const auto& x : sums) second.add(x.normalized_second_moment), balanced.add(x.balanced_fraction);
        // Reference (a heuristic shape, not a theorem): the lognormal law with mean 1 and the variance
        // the masses have to first order, c2/d (Mehler, docs/routing.md), plus the multinomial noise
        // C/n of n points per draw.
        const double c2 = second_moment_expansion(e.m, e.k).c2;
        const double var = c2 / e.d + C / static_cast<double>(e.points);
        const double s2 = std::log1p(var), mu = -0.5 * s2;
        for (int i = 0; i < pt.bins; ++i) {
          const double x = (i + 0.5) * width;
          const double lx = std::log(x) - mu;
          rows.row()
              .set("m", e.m)
              .set("k", e.k)
              .set("d", e.d)
              .set("law", input_law_name(e.law))
              .set("x", x)
              .set("empirical_density", h[static_cast<std::size_t>(i)] / (total * width))
              .set("lognormal_reference_density", std::exp(-0.5 * lx * lx / s2) / (x * std::sqrt(2.0 * M_PI * s2)))
              .set("c2", c2)
              .set("second_moment_mean", second.mean())
              .set("balanced_fraction_mean", balanced.mean())
              .set("points", static_cast<std::int64_t>(e.points))
              .set("trials", ctx.trials);
        }
      },
      [](const HistogramPoint&, std::int64_t trials) { return static_cast<std::size_t>(trials); });
  // The draws running at once (region_draw_bytes) and every draw's C(m, k) normalised masses, kept
  // until the histogram is built (8 C bytes per draw).
  set_cost<HistogramPoint>(out, [](const HistogramPoint& pt, std::int64_t trials) {
    const double C = static_cast<double>(binomial(pt.e.m, pt.e.k)), t = static_cast<double>(trials);
    return StudyCost{concurrent_draws(trials) * region_draw_bytes(pt.e) + t * (8.0 * C + 32.0) + 8.0 * pt.bins,
                     t * (region_draw_work(pt.e) + 4.0 * C)};
  });
  return out;
}

// ---- routing.balance ----

StudyDef balance_study() {
  StudyDef def;
  def.name = "routing.balance";
  def.summary =
      "region masses of Gaussian top-k routers: C E mu(U_S0), C^2 E mu^2 vs 1 + c2/d (Lemma A.5), fraction of regions with mass >= "
      "1/(2C) (Lemma A.6)";
  def.trial_unit = "routing draws (Gaussian routers R, n points each)";
  def.figure = "granularity paper, Lemma 3.2 and Lemmas A.5-A.6 against d";
  def.cuda = CudaPath::validated;
  def.params = region_mass_params(200);
  def.columns = {{"m", "experts"},
                 {"k", "active experts"},
                 {"d", "input dimension"},
                 {"law", "input law"},
                 {"d_over_k_log2m", "d / (k (log m)^2), the lemmas' scale"},
                 {"regions", "C(m, k)"},
                 {"first_mass_mean", "C mu_hat(U_S0), S0 = {0..k-1}: 1 by symmetry (Eq. 3.2)"},
                 {"first_mass_std_error", "its standard error over the draws"},
                 {"second_moment_mean", "C^2 E mu(U_S)^2 (Lemma A.5: <= 3)"},
                 {"second_moment_std_error", "its standard error over the draws"},
                 {"second_moment_asymptotic", "1 + c2/d (first order in 1/d; a rigorous lower bound)"},
                 {"c2", "the Mehler coefficient c2(m, k)"},
                 {"balanced_fraction_mean", "fraction of regions with mu_hat >= 1/(2C) (Lemma A.6: >= 1/9)"},
                 {"balanced_fraction_std_error", "its standard error over the draws"},
                 {"points", "points per routing draw n"},
                 {"trials", "routing draws"}};
  StudyDef out = define_study<RegionMassExperiment>(
      std::move(def), [](const PointParams& p) { return read_region_mass_experiment(p, read_shape(p)); },
      [](const RegionMassExperiment& e, const RunContext& ctx, RowSink& rows) {
        const auto sampler = sampler_for(ctx, e);
        const auto sums = region_mass_draws(*sampler, e, ctx.trials, ctx.key.seed(), [&] { ctx.advance(); });
        Welford first, second, balanced;
        for (const auto& x : sums)
          first.add(static_cast<double>(x.regions) * x.first_region_mass), second.add(x.normalized_second_moment),
              balanced.add(x.balanced_fraction);
        const SecondMomentExpansion ex = second_moment_expansion(e.m, e.k);
        const double klog2m = e.k * std::pow(std::log(static_cast<double>(e.m)), 2);
        rows.row()
            .set("m", e.m)
            .set("k", e.k)
            .set("d", e.d)
            .set("law", input_law_name(e.law))
            .set("d_over_k_log2m", e.d / klog2m)
            .set("regions", static_cast<std::int64_t>(binomial(e.m, e.k)))
            .set("first_mass_mean", first.mean())
            .set("first_mass_std_error", first.standard_error())
            .set("second_moment_mean", second.mean())
            .set("second_moment_std_error", second.standard_error())
            .set("second_moment_asymptotic", 1.0 + ex.c2 / e.d)
            .set("c2", ex.c2)
            .set("balanced_fraction_mean", balanced.mean())
            .set("balanced_fraction_std_error", balanced.standard_error())
            .set("points", static_cast<std::int64_t>(e.points))
            .set("trials", ctx.trials);
      },
      [](const RegionMassExperiment&, std::int64_t trials) { return static_cast<std::size_t>(trials); });
  // The draws running at once (region_draw_bytes); one small summary per draw.
  set_cost<RegionMassExperiment>(out, [](const RegionMassExperiment& e, std::int64_t trials) {
    const double t = static_cast<double>(trials);
    return StudyCost{concurrent_draws(trials) * region_draw_bytes(e) + 64.0 * t, t * region_draw_work(e)};
  });
  return out;
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  using namespace detail;
  out.push_back(mass_histogram_study());
  out.push_back(balance_study());
  out.push_back(packing_study());
  out.push_back(separation_study());
  out.push_back(configurations_study());
}

}  // namespace moelab::routing
