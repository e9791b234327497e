// Study trained.scaling_gap: the generalization gap of trained MoE students on a FIXED training set of
// D points, across active parameters (expert width), D, or experts (k fixed), beside the scaling
// paper's uniform bound (Lemma 3.7 through the ERM step; scaling_gap.hpp states the derivation and the
// convention), with power-law fits of the gap, the MSE gap and the excess test risk, each with a seed
// bootstrap interval, and an irreducible-floor fit L = a x^(-alpha) + c of the excess risk.
// One row per axis value; the fits are the same on every row of a point.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/trained/detail/scaling_gap_study.hpp"
#include "moelab/trained/detail/study_support.hpp"
#include "moelab/trained/scaling_gap.hpp"

namespace moelab::trained {

namespace {

struct ScalingGapPoint {
  ScalingGapSpec base;
  ScalingAxis axis = ScalingAxis::active;
  std::vector<std::int64_t> values;
  double beta = 1.0;
  std::int64_t bootstrap = 1000;
};

ScalingGapSpec gap_at(ScalingGapSpec s, ScalingAxis axis, std::int64_t v) {
  s.model = at_axis(s.model, axis, v);
  return s;
}

/// Mean over runs of the training-batch MSE over the steps [a, b) x steps.
double curve_mean(const std::vector<double>& c, double a, double b) {
  const auto n = static_cast<double>(c.size());
  const auto i0 = static_cast<std::size_t>(a * n), i1 = std::max(i0 + 1, static_cast<std::size_t>(b * n));
  double s = 0.0;
  for (std::size_t i = i0; i < i1 && i < c.size(); ++i) s += c[i];
  return s / static_cast<double>(std::min(i1, c.size()) - i0);
}

struct SlopeFit {
  double slope = std::numeric_limits<double>::quiet_NaN(), se = slope, lo = slope, hi = slope, chi2_dof = slope;
};

/// d log y / d log x of the seed means (WLS, se scaled by sqrt(chi2/dof) when > 1), and a seed bootstrap
/// interval; NaN when a mean is <= 0 (no power law through it).
SlopeFit slope_fit(const std::vector<double>& x, const std::vector<std::vector<double>>& samples, std::int64_t draws,
                   std::uint64_t seed) {
  const std::size_t nx = x.size();
  std::vector<double> mean(nx), se(nx);
  for (std::size_t j = 0; j < nx; ++j) {
    Welford w;
    for (const auto& s : samples) w.add(s[j]);
    mean[j] = w.mean();
    se[j] = w.count() > 1 ? w.standard_error() : 0.0;
    if (!(mean[j] > 0.0)) return {};
  }
  SlopeFit out;
  const PowerFit f = fit_power_law(x, mean, se);
  out.slope = -f.exponent, out.se = f.se_scaled, out.chi2_dof = f.chi2_dof;
  if (samples.size() >= 2) {
    const auto ci = bootstrap_power_law(x, samples, draws, seed);
    out.lo = -ci.hi, out.hi = -ci.lo;
  }
  return out;
}

}  // namespace

StudyDef scaling_gap_study() {
  StudyDef d;
  d.name = "trained.scaling_gap";
  d.summary = "generalization gap (bounded loss and MSE) of trained MoE students on a fixed training set vs active "
              "parameters, D or experts, beside the scaling paper's uniform bound (Lemma 3.7 + the ERM step), with "
              "seed-bootstrap intervals on the fitted exponents and a floor-plus-power-law fit of the excess risk";
  d.figure = "scaling paper, Lemma 3.7 and the generalization bound (ERM for squared loss), Theorem 4.3, Sec. 5";
  d.trial_unit = "training runs (seeds) per value";
  d.min_trials = 2;
  d.params = detail::scaling_axis_params(3);
  // trained.scaling's model and training keys (detail::scaling_model_params), with this study's
  // wording and defaults where they differ: a fixed training set (D >= 2), k = 1, a larger test set.
  auto model = detail::scaling_model_params(), training = detail::scaling_training_params();
  detail::declared(model, "params.d").doc = "input dimension";
  detail::declared(model, "params.teacher_E").doc = "teacher experts (1: a single ReLU MLP, Lipschitz)";
  detail::declared(model, "params.k").or_default(1);
  detail::declared(training, "params.train_size").in(2, 1 << 24).or_default(2048).doc = "the fixed training set's size D (base; the data axis sets it)";
  detail::declared(training, "params.test_size").or_default(16384).doc = "test points";
  d.params.insert(d.params.end(), model.begin(), model.end());
  d.params.insert(d.params.end(), training.begin(), training.end());
  d.params.insert(d.params.end(), {
      real("params.noise", "label noise standard deviation (the teacher's output has variance 1)").in(0.0, 100.0).or_default(0.5),
      real("params.delta", "the bound's failure probability").positive().below(1.0).or_default(0.05),
      real("params.beta", "smoothness beta of the target for the predicted approximation rate 2 beta / d").positive().or_default(1.0),
      integer("params.bootstrap", "seed-bootstrap resamplings per fitted exponent").in(10, 100000).or_default(1000),
      choice("params.gate", {"softmax_selected", "softmax_all", "sigmoid"},
             "the student's gate: softmax over all logits then the top-k probabilities (Switch, the default: k = 1 trains "
             "its router), the softmax over the k selected logits, or a sigmoid per selected logit")
          .or_default("softmax_all"),
  });
  d.columns = {
      {"axis", "active, data or experts"},
      {"value", "the axis value (w, D or E)"},
      {"x", "the regressor of the fits: N_active, D or E"},
      {"d", "input dimension"},
      {"E", "student experts"},
      {"k", "student active experts"},
      {"w", "student expert width"},
      {"N_active", "student parameters used per input (router + k experts)"},
      {"D", "training-set size"},
      {"steps", "AdamW steps"},
      {"noise", "label noise standard deviation"},
      {"train_loss_mean", "bounded loss min(1, |f - y|) on the training set, mean over seeds"},
      {"test_loss_mean", "bounded loss on the test set"},
      {"gap_mean", "test - train bounded loss (the generalization gap the bound is for), mean over seeds"},
      {"gap_std_error", "its standard error over seeds"},
      {"train_mse_mean", "training MSE"},
      {"test_mse_mean", "test MSE (includes noise^2)"},
      {"mse_gap_mean", "test - train MSE"},
      {"mse_gap_std_error", "its standard error"},
      {"excess_mean", "test MSE - noise^2: the excess risk (signal variance 1, so also normalized)"},
      {"excess_std_error", "its standard error"},
      {"param_norm_mean", "||theta||_2 of the trained student (the bound's R, per seed)"},
      {"log_covering", "Lemma 3.7 at eps = 1/D, constant 1 (mean over seeds: R differs)"},
      {"bound", "2/D + sqrt((log N + log(2/delta)) / (2D)), routing term k log(eE/k) as printed (mean over seeds)"},
      {"bound_exact_routing", "the same with log C(E, k)"},
      {"rate_form", "sqrt(N_act log D / D): the bound's rate, constants dropped"},
      {"optimism_linear", "2 noise^2 N_act / D: the exact expected MSE gap of least squares with N_act free parameters"},
      {"gap_below_bound_seeds", "fraction of seeds whose gap is below their bound"},
      {"final_drop", "training-batch MSE over the last 5% of steps relative to the 5% ending at 90% minus 1 (convergence; "
                     "mean over seeds; near 0: flat, negative: still falling)"},
      {"mean_k", "mean active experts per test input"},
      {"gap_slope", "d log gap / d log x: WLS over the values"},
      {"gap_slope_se", "its standard error, scaled by max(1, sqrt(chi2/dof))"},
      {"gap_slope_lo", "2.5% seed-bootstrap percentile"},
      {"gap_slope_hi", "97.5% seed-bootstrap percentile"},
      {"gap_chi2_dof", "chi2/dof of the gap fit"},
      {"bound_slope", "d log bound / d log x (the same fit on the bound's means)"},
      {"mse_gap_slope", "d log (MSE gap) / d log x"},
      {"mse_gap_slope_se", "scaled standard error"},
      {"mse_gap_slope_lo", "2.5% bootstrap"},
      {"mse_gap_slope_hi", "97.5% bootstrap"},
      {"mse_gap_chi2_dof", "chi2/dof"},
      {"excess_slope", "d log (excess risk) / d log x"},
      {"excess_slope_se", "scaled standard error"},
      {"excess_slope_lo", "2.5% bootstrap"},
      {"excess_slope_hi", "97.5% bootstrap"},
      {"excess_chi2_dof", "chi2/dof"},
      {"excess_floor_slope", "the slope -alpha of excess = a x^(-alpha) + c (profile fit over c)"},
      {"excess_floor", "c"},
      {"excess_floor_chi2_dof", "chi2/dof of that fit (dof = values - 3)"},
      {"predicted_excess_slope", "active / experts: -2 beta / d (Theorem 4.3, squared); data: -1 (ERM fast rate)"},
      {"trials", "training runs per value"},
  };
  auto def = define_study<ScalingGapPoint>(
      std::move(d),
      [](const PointParams& p) {
        ScalingGapPoint pt;
        auto& s = pt.base.model;
        const std::string axis = p.text("params.axis");
        pt.axis = axis == "active" ? ScalingAxis::active : axis == "data" ? ScalingAxis::data : ScalingAxis::experts;
        detail::read_scaling_model(p, s);
        pt.base.noise = p.real("params.noise");
        pt.base.delta = p.real("params.delta");
        pt.beta = p.real("params.beta");
        pt.bootstrap = p.integer("params.bootstrap");
        const std::string gate = p.text("params.gate");
        if (!moe::parse_gate(gate, s.gating.gate)) p.fail("params.gate", fmt::format("unknown gate '{}'", gate));
        if (s.teacher_k > s.teacher_E) p.fail("params.teacher_k", "teacher_k exceeds teacher_E");
        if (s.k > s.E && pt.axis != ScalingAxis::experts) p.fail("params.k", "k exceeds E");
        pt.values = detail::read_scaling_axis(p, pt.axis, axis, s.k, 3, "give at least 3 values (the floor fit has 3 coefficients)", 2);
        return pt;
      },
      [](const ScalingGapPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t nv = pt.values.size(), seeds = static_cast<std::size_t>(ctx.trials);
        const auto runs = parallel_map<ScalingGapRun>(nv * seeds, [&](std::size_t i) {
          // Seed t has the same teacher, data and noise at every value (paired values).
          auto r = run_scaling_gap_trial(gap_at(pt.base, pt.axis, pt.values[i / seeds]), ctx.key,
                                         static_cast<std::int64_t>(i % seeds), true);
          ctx.advance();
          return r;
        });
        const double noise2 = pt.base.noise * pt.base.noise;
        std::vector<double> x(nv);
        // samples[t][j]: seed t at value j, for the bootstrap.
        std::vector<std::vector<double>> gap(seeds, std::vector<double>(nv)), mgap = gap, excess = gap, bnd = gap;
        std::vector<Welford> trl(nv), tel(nv), trm(nv), tem(nv), pn(nv), lc(nv), bd(nv), bx(nv), below(nv), drop(nv), mk(nv);
        std::vector<ScalingGapBound> shape_bound(nv);
        for (std::size_t j = 0; j < nv; ++j) {
          const auto s = gap_at(pt.base, pt.axis, pt.values[j]);
          x[j] = pt.axis == ScalingAxis::active ? static_cast<double>(moe::active_parameter_count(s.model.student()))
                 : pt.axis == ScalingAxis::data ? static_cast<double>(s.model.train_size)
                                                : static_cast<double>(s.model.E);
          for (std::size_t t = 0; t < seeds; ++t) {
            const auto& r = runs[j * seeds + t];
            const auto b = scaling_gap_bound(s.model, std::max(1.0, r.param_norm), s.delta);
            shape_bound[j] = b;
            gap[t][j] = r.gap(), mgap[t][j] = r.mse_gap(), excess[t][j] = r.test_mse - noise2, bnd[t][j] = b.bound;
            trl[j].add(r.train_loss), tel[j].add(r.test_loss), trm[j].add(r.train_mse), tem[j].add(r.test_mse);
            pn[j].add(r.param_norm), lc[j].add(b.log_covering), bd[j].add(b.bound), bx[j].add(b.bound_exact_routing);
            below[j].add(r.gap() < b.bound ? 1.0 : 0.0), mk[j].add(r.mean_k);
            drop[j].add(curve_mean(r.loss_curve, 0.95, 1.0) / curve_mean(r.loss_curve, 0.85, 0.90) - 1.0);
          }
        }
        const auto draws = pt.bootstrap;
        const auto gfit = slope_fit(x, gap, draws, ctx.key.with("bootstrap", 0).seed());
        const auto mfit = slope_fit(x, mgap, draws, ctx.key.with("bootstrap", 1).seed());
        const auto efit = slope_fit(x, excess, draws, ctx.key.with("bootstrap", 2).seed());
        const auto bfit = slope_fit(x, bnd, 10, ctx.key.with("bootstrap", 3).seed());
        std::vector<double> em(nv), es(nv);
        bool excess_positive = true;
        for (std::size_t j = 0; j < nv; ++j) {
          Welford w;
          for (std::size_t t = 0; t < seeds; ++t) w.add(excess[t][j]);
          em[j] = w.mean(), es[j] = w.count() > 1 ? w.standard_error() : 0.0;
          excess_positive = excess_positive && em[j] > 0.0;
        }
        OffsetPowerFit ofit;
        ofit.exponent = ofit.offset = ofit.chi2_dof = std::numeric_limits<double>::quiet_NaN();
        if (excess_positive) ofit = fit_power_law_offset(x, em, es);
        const double predicted = pt.axis == ScalingAxis::data ? -1.0 : -2.0 * pt.beta / pt.base.model.d;
        for (std::size_t j = 0; j < nv; ++j) {
          const auto s = gap_at(pt.base, pt.axis, pt.values[j]);
          Welford g, m;
          for (std::size_t t = 0; t < seeds; ++t) g.add(gap[t][j]), m.add(mgap[t][j]);
          const double se_of = [](const Welford& w) { return w.count() > 1 ? w.standard_error() : 0.0; }(g);
          rows.row()
              .set("axis", to_string(pt.axis))
              .set("value", pt.values[j])
              .set("x", x[j])
              .set("d", s.model.d)
              .set("E", s.model.E)
              .set("k", s.model.k)
              .set("w", s.model.w)
              .set("N_active", moe::active_parameter_count(s.model.student()))
              .set("D", s.model.train_size)
              .set("steps", s.model.steps)
              .set("noise", s.noise)
              .set("train_loss_mean", trl[j].mean())
              .set("test_loss_mean", tel[j].mean())
              .set("gap_mean", g.mean())
              .set("gap_std_error", se_of)
              .set("train_mse_mean", trm[j].mean())
              .set("test_mse_mean", tem[j].mean())
              .set("mse_gap_mean", m.mean())
              .set("mse_gap_std_error", m.count() > 1 ? m.standard_error() : 0.0)
              .set("excess_mean", em[j])
              .set("excess_std_error", es[j])
              .set("param_norm_mean", pn[j].mean())
              .set("log_covering", lc[j].mean())
              .set("bound", bd[j].mean())
              .set("bound_exact_routing", bx[j].mean())
              .set("rate_form", shape_bound[j].rate_form)
              .set("optimism_linear", 2.0 * noise2 * static_cast<double>(moe::active_parameter_count(s.model.student())) /
                                          static_cast<double>(s.model.train_size))
              .set("gap_below_bound_seeds", below[j].mean())
              .set("final_drop", drop[j].mean())
              .set("mean_k", mk[j].mean())
              .set("gap_slope", gfit.slope)
              .set("gap_slope_se", gfit.se)
              .set("gap_slope_lo", gfit.lo)
              .set("gap_slope_hi", gfit.hi)
              .set("gap_chi2_dof", gfit.chi2_dof)
              .set("bound_slope", bfit.slope)
              .set("mse_gap_slope", mfit.slope)
              .set("mse_gap_slope_se", mfit.se)
              .set("mse_gap_slope_lo", mfit.lo)
              .set("mse_gap_slope_hi", mfit.hi)
              .set("mse_gap_chi2_dof", mfit.chi2_dof)
              .set("excess_slope", efit.slope)
              .set("excess_slope_se", efit.se)
              .set("excess_slope_lo", efit.lo)
              .set("excess_slope_hi", efit.hi)
              .set("excess_chi2_dof", efit.chi2_dof)
              .set("excess_floor_slope", -ofit.exponent)
              .set("excess_floor", ofit.offset)
              .set("excess_floor_chi2_dof", ofit.chi2_dof)
              .set("predicted_excess_slope", predicted)
              .set("trials", ctx.trials);
        }
      },
      [](const ScalingGapPoint& pt, std::int64_t trials) { return pt.values.size() * static_cast<std::size_t>(trials); });
  set_cost<ScalingGapPoint>(def, [](const ScalingGapPoint& pt, std::int64_t trials) {
    double bytes = 0.0, work = 0.0;
    for (auto v : pt.values) {
      const auto s = at_axis(pt.base.model, pt.axis, v);
      const double d = s.d, data = static_cast<double>(s.train_size + s.test_size);
      bytes = std::max(bytes, num_threads() * 8.0 * (3.0 * data * (d + 2) + 4.0 * (s.E * (2.0 * s.w * d + d) + s.teacher_E * 2.0 * s.teacher_w * d) +
                                                     static_cast<double>(s.steps)));
      work += 6.0 * static_cast<double>(s.steps) * std::min(s.batch, s.train_size) * (s.k * 2.0 * s.w * d + s.E * d) +
              2.0 * data * (s.k * 2.0 * s.w * d + s.E * d + s.teacher_k * 2.0 * s.teacher_w * d + s.teacher_E * d);
    }
    return StudyCost{bytes, work * static_cast<double>(trials)};
  });
  return def;
}

}  // namespace moelab::trained
