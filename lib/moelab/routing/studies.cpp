// Scenario studies of the granularity paper (routing/), in the declarative form (scenario/study.hpp):
// each declares its parameters and columns once; the runner validates, loops, seeds and reduces.
//   routing.mass_histogram   C(m,k) mu(U_S) over all regions of Gaussian routers      (Lemma 3.2)
//   routing.balance          moments of the region masses, balanced fraction     (Lemmas A.5, A.6)
//   routing.packing          random constant experts: boundedness and separation (Lemma 3.3 / A.8)
//   routing.separation       best piecewise-constant students vs the floor       (Theorem 3.1)
//   routing.configurations   Table 1: configuration counts of frontier MoEs
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
#include "moelab/routing/expert_packing.hpp"
#include "moelab/routing/order_statistics.hpp"
#include "moelab/routing/region_mass_sampler.hpp"
#include "moelab/routing/separation.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::routing {

namespace {

// ---- shared declarations and readers ----

std::vector<ParamDecl> shape_params() {
  return {integer("params.m", "experts m (routing vectors r_1..r_m)").at_least(2).unit("experts"),
          integer("params.k", "active experts k per input (top-k); 1 <= k < m and C(m, k) < 2^64").at_least(1).unit("experts"),
          integer("params.d", "input dimension d").at_least(1)};
}

/// (m, k, d) with the cross-key checks the declarations cannot state.
struct Shape {
  int m = 0, k = 0, d = 0;
};
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
  def.cuda = CudaPath::experimental;
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
  return define_study<HistogramPoint>(
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
  def.cuda = CudaPath::experimental;
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
  return define_study<RegionMassExperiment>(
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
}

// ---- routing.packing ----

StudyDef packing_study() {
  StudyDef def;
  def.name = "routing.packing";
  def.summary =
      "random constant experts u_j ~ N(0, I/(2dk)): boundedness, separation and their union bounds (granularity Lemma 3.3 / A.8)";
  def.trial_unit = "expert draws (random constant-expert matrices U, checked over every pair)";
  def.figure = "granularity paper, Lemma 3.3 = Lemma A.8 against d";
  def.params = shape_params();
  def.columns = {{"m", "experts"},
                 {"k", "active experts"},
                 {"d", "dimension"},
                 {"d_over_k_log_m", "d / (k log m), the lemma's scale"},
                 {"p_both", "fraction of draws where boundedness and separation both hold"},
                 {"p_bounded", "fraction with max_S ||u_S||^2 <= 1"},
                 {"p_separated", "fraction with every pair separated"},
                 {"max_norm2_mean", "mean of max_S ||u_S||^2"},
                 {"min_separation_mean", "mean of min over pairs of ||u_S - u_S'||^2 4k / |S delta S'|"},
                 {"min_separation_std_error", "its standard error"},
                 {"min_separation_q10", "10% quantile of the minimum separation"},
                 {"min_separation_q90", "90% quantile of the minimum separation"},
                 {"fail_bound_printed", "union bound on P[fail], Laurent-Massart tails and C^2 pairs as printed"},
                 {"fail_bound_exact", "union bound with exact chi-square tails and C(C-1)/2 pairs"},
                 {"trials", "expert draws"}};
  return define_trial_study<Shape, PackingCheck>(
      std::move(def),
      [](const PointParams& p) {
        const Shape s = read_shape(p);
        const std::uint64_t C = binomial(s.m, s.k);
        if (C > 20000)
          p.fail("params.k", fmt::format("C({}, {}) = {}: the exhaustive pair check allows at most 20000 configurations", s.m, s.k, C));
        return s;
      },
      [](const Shape& s, const RunContext& ctx, std::int64_t t) {
        return packing_trial(s.m, s.d, s.k, ctx.key.seed(), static_cast<std::uint64_t>(t));
      },
      [](const Shape& s, std::span<const PackingCheck> res, const RunContext& ctx, RowSink& rows) {
        Welford both, bounded, separated, norm, sep;
        std::vector<double> seps;
        for (const auto& p : res) {
          both.add(p.bounded() && p.separated()), bounded.add(p.bounded()), separated.add(p.separated());
          norm.add(p.max_norm2), sep.add(p.min_separation), seps.push_back(p.min_separation);
        }
        std::sort(seps.begin(), seps.end());
        const auto q = [&](double a) { return seps[static_cast<std::size_t>(a * static_cast<double>(seps.size() - 1))]; };
        rows.row()
            .set("m", s.m)
            .set("k", s.k)
            .set("d", s.d)
            .set("d_over_k_log_m", s.d / (s.k * std::log(static_cast<double>(s.m))))
            .set("p_both", both.mean())
            .set("p_bounded", bounded.mean())
            .set("p_separated", separated.mean())
            .set("max_norm2_mean", norm.mean())
            .set("min_separation_mean", sep.mean())
            .set("min_separation_std_error", sep.standard_error())
            .set("min_separation_q10", q(0.1))
            .set("min_separation_q90", q(0.9))
            .set("fail_bound_printed", packing_failure_union_bound(s.m, s.k, s.d, true))
            .set("fail_bound_exact", packing_failure_union_bound(s.m, s.k, s.d, false))
            .set("trials", ctx.trials);
      });
}

// ---- routing.separation ----

struct SeparationPoint {
  Shape s;
  std::vector<double> fractions;
  std::vector<std::pair<int, int>> gaussian;
  std::uint64_t points = 0;
  InputLaw law = InputLaw::gaussian;
};

StudyDef separation_study() {
  StudyDef def;
  def.name = "routing.separation";
  def.summary =
      "best L2 approximation of an (m, k) constant-expert MoE by (m', k') students with given regions vs the Theorem 3.1 floor";
  def.trial_unit = "point batches per student (n points each, the same batches for every student)";
  def.figure = "granularity paper, Theorem 3.1 (proof, Eqs. 3.5-3.6), in miniature";
  def.params = shape_params();
  def.params.push_back(real_list("params.ksum_fractions",
                                 "k-sum students: fractions p/C(m, k) of the teacher's configuration sums used as routing vectors "
                                 "of a (p, 1)-MoE (1 reproduces the teacher)")
                           .positive()
                           .at_most(1.0)
                           .optional());
  def.params.push_back(real_matrix("params.gaussian_students", "Gaussian students: rows [m', k'], integers 1 <= k' <= m'").optional());
  def.params.push_back(integer("params.points", "points per batch").at_least(1000).or_default(50000).unit("points"));
  def.params.push_back(law_param());
  def.columns = {{"m", "teacher experts"},
                 {"k", "teacher active experts"},
                 {"d", "dimension"},
                 {"family", "student family: ksum or gaussian"},
                 {"m_student", "student experts m' (p for a k-sum student)"},
                 {"k_student", "student active experts k'"},
                 {"student_regions", "p = C(m', k')"},
                 {"ratio", "p / C(m, k)"},
                 {"relative_error_mean", "E||f - f'||^2 / E||f||^2 of the best student on its regions"},
                 {"relative_error_std_error", "its standard error over the batches"},
                 {"floor_relative", "(delta/4)(1 - sum_i max_S mu(U_S cap V_i)) / E||f||^2 (Theorem 3.1's floor)"},
                 {"coverage", "sum_i max_S mu(U_S cap V_i)"},
                 {"teacher_norm2", "E||f||^2"},
                 {"delta", "min over S != S' of ||u_S - u_S'||^2"},
                 {"max_norm2", "max_S ||u_S||^2 (Lemma 3.3: <= 1)"},
                 {"min_separation", "min ||u_S - u_S'||^2 4k / |S delta S'| (Lemma 3.3: >= 1)"},
                 {"points", "points per batch"},
                 {"trials", "batches"}};
  return define_study<SeparationPoint>(
      std::move(def),
      [](const PointParams& p) {
        SeparationPoint pt;
        pt.s = read_shape(p);
        const std::uint64_t C = binomial(pt.s.m, pt.s.k);
        if (C > 5000)
          p.fail("params.k", fmt::format("C({}, {}) = {}: the miniature allows at most 5000 teacher regions", pt.s.m, pt.s.k, C));
        pt.fractions = p.real_list("params.ksum_fractions");
        const auto mat = p.real_matrix("params.gaussian_students");
        for (std::size_t i = 0; i < mat.size(); ++i) {
          if (mat[i].size() != 2 || mat[i][0] < 1 || mat[i][1] < 1 || mat[i][1] > mat[i][0] || mat[i][0] > 1e6 ||
              mat[i][0] != std::floor(mat[i][0]) || mat[i][1] != std::floor(mat[i][1]))
            p.view().fail_entry("params.gaussian_students", i, "each entry is [m', k'] with integers 1 <= k' <= m' <= 1e6");
          const int ms = static_cast<int>(mat[i][0]), ks = static_cast<int>(mat[i][1]);
          if (!binomial_fits(ms, ks) || static_cast<double>(binomial(ms, ks)) * static_cast<double>(C) > 1.8e19)
            p.view().fail_entry("params.gaussian_students", i, "C(m', k') C(m, k) must fit in 64 bits");
          pt.gaussian.emplace_back(ms, ks);
        }
        if (pt.fractions.empty() && pt.gaussian.empty())
          p.fail("params.ksum_fractions", "give params.ksum_fractions and/or params.gaussian_students");
        pt.points = static_cast<std::uint64_t>(p.integer("params.points"));
        pt.law = input_law_from_name(p.text("params.law"));
        return pt;
      },
      [](const SeparationPoint& pt, const RunContext& ctx, RowSink& rows) {
        const auto& s = pt.s;
        const ConstantExpertTeacher teacher = constant_expert_teacher(s.m, s.k, s.d, ctx.key, 2'000'000'000);
        const double C = static_cast<double>(teacher.regions);
        std::vector<Student> students;
        for (double f : pt.fractions)
          students.push_back(ksum_student(teacher, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(f * C))), ctx.key));
        for (auto [ms, ks] : pt.gaussian) students.push_back(gaussian_student(ms, ks, s.d, ctx.key));
        const auto errs = separation_experiment(teacher, students, pt.law, pt.points, ctx.trials, ctx.key, [&] { ctx.advance(); });
        for (std::size_t i = 0; i < students.size(); ++i) {
          const auto& st = students[i];
          const auto& r = errs[i];
          rows.row()
              .set("m", s.m)
              .set("k", s.k)
              .set("d", s.d)
              .set("family", st.family)
              .set("m_student", st.m_student)
              .set("k_student", st.k_student)
              .set("student_regions", static_cast<std::int64_t>(st.regions))
              .set("ratio", static_cast<double>(st.regions) / C)
              .set("relative_error_mean", r.relative_error.mean())
              .set("relative_error_std_error", r.relative_error.standard_error())
              .set("floor_relative", r.floor_relative.mean())
              .set("coverage", r.coverage.mean())
              .set("teacher_norm2", r.teacher_norm2.mean())
              .set("delta", teacher.packing.min_distance2)
              .set("max_norm2", teacher.packing.max_norm2)
              .set("min_separation", teacher.packing.min_separation)
              .set("points", static_cast<std::int64_t>(pt.points))
              .set("trials", ctx.trials);
        }
      },
      [](const SeparationPoint& pt, std::int64_t trials) {
        return (pt.fractions.size() + pt.gaussian.size()) * static_cast<std::size_t>(trials);
      });
}

// ---- routing.configurations ----

struct Reference {
  int m = 0, k = 0;
};

StudyDef configurations_study() {
  StudyDef def;
  def.name = "routing.configurations";
  def.summary =
      "Table 1 of the granularity paper: granularity, sparsity and C(m, k) of frontier MoEs, and the c each needs in Theorem 3.1 "
      "against a reference (m, k)";
  def.trial_unit = "";
  def.figure = "granularity paper, Table 1, and the counting condition of Theorem 3.1";
  def.params = {integer("params.reference_m", "experts of the reference model (Theorem 3.1's teacher)").at_least(2).or_default(256),
                integer("params.reference_k", "active experts of the reference model (below reference_m)").at_least(1).or_default(8)};
  def.columns = {{"model", "model name"},
                 {"experts", "m"},
                 {"active", "k (granularity)"},
                 {"sparsity_percent", "100 k / m"},
                 {"printed_sparsity_percent", "the sparsity as Table 1 prints it"},
                 {"configurations", "C(m, k)"},
                 {"log10_configurations", "log10 C(m, k)"},
                 {"required_c_vs_reference", "c with C(m, k) = c C(m_ref, k_ref)^0.99 (Theorem 3.1's condition)"}};
  return define_study<Reference>(
      std::move(def),
      [](const PointParams& p) {
        const Reference r{p.small("params.reference_m"), p.small("params.reference_k")};
        if (r.k >= r.m) p.fail("params.reference_k", fmt::format("must be below reference_m = {}", r.m));
        return r;
      },
      [](const Reference& ref, const RunContext& ctx, RowSink& rows) {
        for (const auto& r : table1_models())
          rows.row()
              .set("model", r.name)
              .set("experts", r.experts)
              .set("active", r.active)
              .set("sparsity_percent", 100.0 * r.active / r.experts)
              .set("printed_sparsity_percent", r.printed_sparsity)
              .set("configurations", static_cast<std::int64_t>(binomial(r.experts, r.active)))
              .set("log10_configurations", log10_configurations(r.experts, r.active))
              .set("required_c_vs_reference", theorem31_required_c(ref.m, ref.k, r.experts, r.active));
        ctx.advance();
      });
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(mass_histogram_study());
  out.push_back(balance_study());
  out.push_back(packing_study());
  out.push_back(separation_study());
  out.push_back(configurations_study());
}

}  // namespace moelab::routing
