// Scenario studies of the `noisy` paper, in the declarative form (scenario/study.hpp): each declares
// its parameters and columns once; the runner owns the sweep, the parallel trials and the keys.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/stats.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/excess_engine.hpp"
#include "moelab/noisy/excess_fit.hpp"
#include "moelab/noisy/model_params.hpp"
#include "moelab/noisy/risk.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::noisy {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- cost models (hardening; docs/hardening.md, "Cost model") ----
// Sizes in doubles so that absurd parameters give large numbers, not wrapped integers.

/// d = sum d_i and sum d_i^2 of the model (its dense blocks).
struct ModelSize {
  double d = 0.0, blocks2 = 0.0;
};
ModelSize model_size(const Model& m) {
  ModelSize s;
  for (int i = 0; i < m.k(); ++i) {
    const double b = m.block_size(i);
    s.d += b, s.blocks2 += b * b;
  }
  return s;
}

/// Trials that run at once under define_trial_study (parallel_map over the trials).
double concurrent(std::int64_t trials) { return std::min(static_cast<double>(num_threads()), static_cast<double>(trials)); }

/// One training set of n samples (simulate.cpp: draw_training_set): the row-major noise and xbar
/// (n x d each) while it is drawn, then xbar and its column-major copy for min_norm_solve, the Gram
/// matrix min(n, d)^2 and, on the orthogonal fallback, the decomposition's copy of X (n x d).
double training_set_bytes(double n, const ModelSize& s) {
  return 8.0 * (3.0 * n * s.d + std::pow(std::min(n, s.d), 2) + n) + 8.0 * s.blocks2;
}

ParamDecl model_param() {
  return table("model", "the block model (noisy, Sec. 3.2): k, block_size(s), p, sigma2, [model.covariance], "
                        "[model.beta]; see docs/scenarios.md, \"[model]\"");
}

// ---- noisy.risk: sampled risk of the Bayes estimators vs Thms 2-4 ----

struct RiskPoint {
  Model model;
  double sigma_o2 = 0.0;
  std::optional<Misroute> misroute;
};

RiskPoint prepare_risk(const PointParams& p) {
  RiskPoint pt{parse_model(p.view()), 0.0, std::nullopt};
  pt.sigma_o2 = p.has("params.sigma_o2") ? p.real("params.sigma_o2") : pt.model.sigma2;
  const int k = pt.model.k();
  if (!p.has("params.eta")) {
    for (const char* key : {"params.misroute_from", "params.misroute_to"})
      if (p.has(key)) p.fail(key, "is used only with params.eta (the Thm 4 mis-routed input)");
    return pt;
  }
  Misroute r;
  r.eta = p.real("params.eta");
  r.i = p.small("params.misroute_from");
  r.j = p.small("params.misroute_to");
  if (r.i >= k) p.fail("params.misroute_from", fmt::format("must be < k = {}, got {}", k, r.i));
  if (r.j >= k) p.fail("params.misroute_to", fmt::format("must be < k = {}, got {}", k, r.j));
  if (r.i == r.j) p.fail("params.misroute_to", "must differ from params.misroute_from");
  pt.misroute = r;
  return pt;
}

void evaluate_risk(const RiskPoint& pt, const RunContext& ctx, RowSink& rows) {
  const Model& m = pt.model;
  RiskOptions opt;
  opt.test_noise = pt.sigma_o2;
  opt.misroute = pt.misroute;
  const auto bd = bayes_dense_estimator(m);
  const auto bs = bayes_sparse_estimator(m);
  // Test points are sampled in chunks in parallel inside sample_risk (the trials are test points).
  const auto r = sample_risk(m, bd, bs, opt, ctx.trials, ctx.key.seed());
  // Printed: Thm 4 with a misroute, Thm 3 (= Thm 2 at sigma_o2 = sigma2) without. Exact: the risk
  // functional (Eq. 4 and the paper's first line of A.4) at test noise sigma_o2.
  const double pd = pt.misroute ? thm4_dense_risk_printed(m, *pt.misroute) : thm3_dense_risk(m, pt.sigma_o2);
  const double ps = pt.misroute ? thm4_sparse_risk_printed(m, *pt.misroute) : thm3_sparse_risk(m, pt.sigma_o2);
  const double ed = dense_risk(m, bd, opt), es = sparse_risk(m, bs, opt);
  const double eta = pt.misroute ? pt.misroute->eta : kNaN;
  rows.row()
      .set("sigma_o2", pt.sigma_o2).set("eta", eta).set("estimator", "dense")
      .set("mc_mean", r.dense.mean()).set("mc_std_error", r.dense.standard_error())
      .set("printed", pd).set("exact", ed).set("samples", ctx.trials);
  rows.row()
      .set("sigma_o2", pt.sigma_o2).set("eta", eta).set("estimator", "sparse")
      .set("mc_mean", r.sparse.mean()).set("mc_std_error", r.sparse.standard_error())
      .set("printed", ps).set("exact", es).set("samples", ctx.trials);
  ctx.advance();
}

StudyDef risk_study() {
  StudyDef s;
  s.name = "noisy.risk";
  s.summary = "sampled risk of the Bayes estimators vs Thm 2/3 (params.sigma_o2) and Thm 4 (params.eta)";
  s.trial_unit = "test points";
  s.min_trials = 2;  // sample_risk reports a standard error
  s.figure = "noisy Thms 2-4 (risk of the Bayes estimators; robustness to test noise and mis-routing)";
  s.params = {
      model_param(),
      real("params.sigma_o2", "test-time feature-noise variance sigma_o^2 (Thm 3); absent: the model's sigma2 (Thm 2)")
          .positive().optional().unit("variance"),
      real("params.eta", "Thm 4: the input of expert misroute_from also carries eta x_j of expert misroute_to; "
                         "absent: correctly routed mixture")
          .positive().optional(),
      integer("params.misroute_from", "Thm 4: the expert i whose sample is mis-routed (< k; only with params.eta)")
          .nonnegative().or_default(0).unit("expert"),
      integer("params.misroute_to", "Thm 4: the expert j the router selects (< k, != misroute_from; only with params.eta)")
          .nonnegative().or_default(1).unit("expert"),
  };
  s.columns = {
      {"sigma_o2", "test-time feature-noise variance"},
      {"eta", "mis-routing scale eta (nan: correct routing)"},
      {"estimator", "dense or sparse (per-expert) Bayes estimator (Eq. 3)"},
      {"mc_mean", "Monte-Carlo mean of the squared test error"},
      {"mc_std_error", "its standard error"},
      {"printed", "the closed form as printed (Thm 3, = Thm 2 at sigma_o2 = sigma2; Thm 4 with eta)"},
      {"exact", "the exact risk functional (Eq. 4 / first line of A.4) at these test conditions"},
      {"samples", "test points behind mc_mean"},
  };
  StudyDef def = define_study<RiskPoint>(std::move(s), prepare_risk, evaluate_risk);
  // The model and the sampler's Cholesky factors (sum d_i^2 each), the Bayes estimators' solves
  // (a d_i x d_i factor at a time), one test point (d) per thread, and one block of 3 Welford
  // accumulators per chunk of 2048 test points (simulate.cpp: chunked). A test point costs the
  // Cholesky product of its expert (d_i^2), 2 d normals and two dot products.
  set_cost<RiskPoint>(def, [](const RiskPoint& pt, std::int64_t trials) {
    const ModelSize s = model_size(pt.model);
    const double chunks = std::ceil(static_cast<double>(trials) / 2048.0);
    const double bytes = 8.0 * 4.0 * s.blocks2 + 16.0 * s.d * num_threads() + chunks * (24.0 + 3.0 * sizeof(Welford));
    const double per_point = s.blocks2 / std::max(1, pt.model.k()) + 30.0 * s.d;
    return StudyCost{bytes, static_cast<double>(trials) * per_point + 2.0 * s.blocks2 * s.d};
  });
  return def;
}

// ---- noisy.excess_risk: min-norm dense vs sparse excess risk against n (Fig. 3, Fig. 6) ----

struct ExcessPoint {
  Model model;
  int n = 0;
  Allocation allocation = Allocation::balanced;
};

ExcessPoint prepare_excess(const PointParams& p) {
  ExcessPoint pt{parse_model(p.view()), p.small("params.n"),
                 p.text("params.allocation") == "balanced" ? Allocation::balanced : Allocation::multinomial};
  // The device path draws a trial's n d normals from one Philox stream with a 32-bit block counter.
  if (p.backend() == Backend::cuda && static_cast<double>(pt.n) * pt.model.d() >= 8589934592.0)
    p.fail("params.n", fmt::format("n d = {} >= 2^33: too many normals per trial for the CUDA path; run with --backend cpu",
                                   static_cast<double>(pt.n) * pt.model.d()));
  return pt;
}

void reduce_excess(const ExcessPoint& pt, std::span<const ExcessTrial> trials, const RunContext& ctx, RowSink& rows) {
  const Model& m = pt.model;
  const ExcessSummary s = summarize_excess(trials);
  double exact = kNaN;  // the Wishart formula needs a fixed allocation
  if (pt.allocation == Allocation::balanced) {
    const double e = sparse_excess_exact(m, allocate_samples(m, pt.n, pt.allocation, 0, 0));
    if (std::isfinite(e)) exact = e;
  }
  const std::int64_t d = m.d();
  // Balanced allocation samples the experts stratified: the dense sandwich drops the per-expert means.
  const double dense_lead = pt.allocation == Allocation::balanced ? dense_excess_leading_coefficient_stratified(m)
                                                                  : dense_excess_leading_coefficient(m);
  rows.row()
      .set("n", pt.n).set("estimator", "dense").set("trials", ctx.trials)
      .set("excess_mean", s.dense.mean()).set("excess_std_error", s.dense.standard_error())
      .set("excess_exact", kNaN).set("excess_leading", dense_lead / pt.n)
      .set("fallbacks", s.dense_fallbacks).set("d", d);
  rows.row()
      .set("n", pt.n).set("estimator", "sparse").set("trials", ctx.trials)
      .set("excess_mean", s.sparse.mean()).set("excess_std_error", s.sparse.standard_error())
      .set("excess_exact", exact).set("excess_leading", sparse_excess_leading_coefficient(m) / pt.n)
      .set("fallbacks", s.sparse_fallbacks).set("d", d);
}

// Fits a/n^2 + b/n (weights 1/SE^2) per estimator over the over-determined points n > d, as in the
// paper's Fig. 2 / Table 1, with standard errors.
Metadata summarize_excess_fits(const TableView& t) {
  Metadata out;
  for (const std::string est : {"dense", "sparse"}) {
    std::vector<double> n, mean, se;
    std::int64_t d = 0;
    for (std::size_t r = 0; r < t.size(); ++r) {
      if (t.text(r, "estimator") != est) continue;
      d = t.integer(r, "d");
      if (t.integer(r, "n") <= d) continue;
      n.push_back(static_cast<double>(t.integer(r, "n")));
      mean.push_back(t.real(r, "excess_mean")), se.push_back(t.real(r, "excess_std_error"));
    }
    const auto f = fit_excess_order(n, mean, se);
    if (!f) continue;
    out.emplace_back(fmt::format("fit_{}", est),
                     fmt::format("excess = a/n^2 + b/n over {} points with n > d = {}: a = {:.6g} +- {:.3g}, b = {:.6g} "
                                 "+- {:.3g}, chi2/dof = {:.3g}",
                                 f->points, d, f->a(), f->fit.se[0], f->b(), f->fit.se[1], f->fit.chi2 / f->fit.dof));
  }
  return out;
}

StudyDef excess_study() {
  StudyDef s;
  s.name = "noisy.excess_risk";
  s.summary = "excess risk of min-norm dense and per-expert estimators fitted on n noisy samples (Fig. 3, Fig. 6)";
  s.trial_unit = "training sets";
  s.figure = "noisy Fig. 3, Fig. 6 / Table 1 (Sec. 4.5, A.6)";
  s.params = {
      model_param(),
      integer("params.n", "training samples (all experts together)").at_least(1).unit("samples"),
      choice("params.allocation", {"balanced", "multinomial"},
             "samples per expert: balanced = p_i n rounded (largest remainders), multinomial = drawn per sample")
          .or_default("balanced"),
  };
  s.columns = {
      {"n", "training samples"},
      {"estimator", "dense (one min-norm fit on all features) or sparse (one min-norm fit per expert block)"},
      {"trials", "training sets fitted"},
      {"excess_mean", "Monte-Carlo mean of the excess risk R(b_hat) - R(Bayes) (exact quadratic form)"},
      {"excess_std_error", "its standard error"},
      {"excess_exact", "exact expected excess (Wishart formula, sparse, balanced, every n_i > d_i + 1); else nan"},
      {"excess_leading", "leading order: dense, the sandwich trace / n (tr(H^-1 S) for multinomial, stratified form "
                         "for balanced allocation); sparse, sum_i v_i d_i / n"},
      {"fallbacks", "fits (dense) or expert fits (sparse) whose solve needed the orthogonal fallback"},
      {"d", "features d of the model (the summary fits use the points n > d)"},
  };
  s.summarize = summarize_excess_fits;
  StudyDef def = define_trial_study<ExcessPoint, ExcessTrial>(
      std::move(s), prepare_excess,
      [](const ExcessPoint& pt, const RunContext& ctx, std::int64_t t) {
        return excess_trial(pt.model, pt.n, pt.allocation, ctx.key.seed(), static_cast<std::uint64_t>(t));
      },
      reduce_excess);
  // The CUDA path (validated: agreed with the CPU on an H200 at a8b58ee, docs/gpu.md "Validation";
  // `auto` takes it where a usable device exists): the point's trials run in batches on the engine the
  // factory gives for the resolved backend (excess_engine.hpp), from the same addresses (seed, trial),
  // and are reduced by the same reduce_excess. On the CPU the trial runner above calls excess_trial,
  // the CPU engine's per-trial function, over the trials in parallel (its bytes unchanged).
  def.cuda = CudaPath::validated;
  def.run = [cpu = def.run](const std::any& a, const RunContext& ctx, RowSink& rows) {
    if (ctx.backend != Backend::cuda) return cpu(a, ctx, rows);
    const auto& pt = std::any_cast<const ExcessPoint&>(a);
    const auto results = make_excess_risk_engine(ctx.backend)->trials(pt.model, pt.n, pt.allocation, ctx.key.seed(), 0, ctx.trials);
    ctx.advance(results.size());
    reduce_excess(pt, results, ctx, rows);
  };
  def.trial_block = [cpu = def.trial_block](const std::any& a, const RunContext& ctx, std::int64_t begin, std::int64_t end) {
    if (ctx.backend != Backend::cuda) return cpu(a, ctx, begin, end);
    const auto& pt = std::any_cast<const ExcessPoint&>(a);
    const auto results = make_excess_risk_engine(ctx.backend)->trials(pt.model, pt.n, pt.allocation, ctx.key.seed(),
                                                                      static_cast<std::uint64_t>(begin), end - begin);
    ctx.advance(results.size());
    return std::string(reinterpret_cast<const char*>(results.data()), results.size() * sizeof(ExcessTrial));
  };
  // Per running trial a training set and its min-norm solves (training_set_bytes); a trial costs the
  // dense Gram (n d min(n, d)), its Cholesky (min(n, d)^3 / 3) and the per-expert solves (smaller).
  set_cost<ExcessPoint>(def, [](const ExcessPoint& pt, std::int64_t trials) {
    const ModelSize s = model_size(pt.model);
    const double n = pt.n, r = std::min(n, s.d);
    const double bytes = 8.0 * 2.0 * s.blocks2 + concurrent(trials) * training_set_bytes(n, s);
    return StudyCost{bytes, static_cast<double>(trials) * (2.0 * n * s.d * r + r * r * r / 3.0 + 40.0 * n * s.d)};
  });
  return def;
}

// ---- noisy.qda_router: Thm 1 / A.7 ----

struct RouterPoint {
  Model model;
  int n = 0;
  int test_points = 0;
};

RouterPoint prepare_router(const PointParams& p) {
  RouterPoint pt{parse_model(p.view()), p.small("params.n"), p.small("params.test_points")};
  const Model& m = pt.model;
  const auto counts = allocate_samples(m, pt.n, Allocation::balanced, 0, 0);
  for (int i = 0; i < m.k(); ++i)
    if (counts[static_cast<std::size_t>(i)] <= m.block_size(i))
      p.fail("params.n", fmt::format("QDA needs more samples than features for every expert: expert {} gets {} "
                                     "samples for {} features",
                                     i, counts[static_cast<std::size_t>(i)], m.block_size(i)));
  return pt;
}

void reduce_router(const RouterPoint& pt, std::span<const RouterTrial> trials, const RunContext&, RowSink& rows) {
  const RouterSummary s = summarize_router(trials);
  const auto row = [&](const char* rule, const Welford& error, double excess, double excess_se) {
    rows.row()
        .set("n", pt.n).set("rule", rule).set("error_mean", error.mean()).set("error_std_error", error.standard_error())
        .set("excess_mean", excess).set("excess_std_error", excess_se).set("bayes_error", s.bayes.mean());
  };
  row("printed", s.printed, s.printed_excess.mean(), s.printed_excess.standard_error());
  row("corrected", s.corrected, s.corrected_excess.mean(), s.corrected_excess.standard_error());
  row("bayes", s.bayes, 0.0, 0.0);
}

StudyDef router_study() {
  StudyDef s;
  s.name = "noisy.qda_router";
  s.summary = "QDA router of Thm 1 / A.7: routing error and excess risk against n";
  s.trial_unit = "trained routers";
  s.figure = "noisy Thm 1 / A.7 (QDA router)";
  s.params = {
      model_param(),
      integer("params.n", "training samples (balanced allocation; every expert needs more samples than features)")
          .at_least(1).unit("samples"),
      integer("params.test_points", "test points per trained router").at_least(1).or_default(2000).unit("points"),
  };
  s.columns = {
      {"n", "training samples"},
      {"rule", "printed (score of A.7.1), corrected (likelihood ratio, docs/errata.md) or bayes (true covariances)"},
      {"error_mean", "mean misrouting rate over trained routers"},
      {"error_std_error", "its standard error"},
      {"excess_mean", "mean misrouting rate minus the Bayes rule's, paired on the same test points"},
      {"excess_std_error", "its standard error"},
      {"bayes_error", "mean misrouting rate of the Bayes rule"},
  };
  StudyDef def = define_trial_study<RouterPoint, RouterTrial>(
      std::move(s), prepare_router,
      [](const RouterPoint& pt, const RunContext& ctx, std::int64_t t) {
        return router_trial(pt.model, pt.n, pt.test_points, ctx.key.seed(), static_cast<std::uint64_t>(t));
      },
      reduce_router);
  // Per running trial a training set (n x d, drawn as in training_set_bytes, no solve), the copy of
  // one expert's rows, and two Cholesky factors per expert (plug-in and true covariance, 2 sum d_i^2
  // plus the matrices they factor). A trial: the plug-in covariances (n d_i per expert row) and, per
  // test point, 2 k triangular solves of d_i^2.
  set_cost<RouterPoint>(def, [](const RouterPoint& pt, std::int64_t trials) {
    const ModelSize s = model_size(pt.model);
    const double n = pt.n;
    const double per_trial = 8.0 * (3.0 * n * s.d + n + 4.0 * s.blocks2);
    const double work = 2.0 * n * s.blocks2 / std::max(1, pt.model.k()) + 4.0 * pt.test_points * (s.blocks2 + 10.0 * s.d);
    return StudyCost{8.0 * 2.0 * s.blocks2 + concurrent(trials) * per_trial, static_cast<double>(trials) * work};
  });
  return def;
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(risk_study());
  out.push_back(excess_study());
  out.push_back(router_study());
}

}  // namespace moelab::noisy
