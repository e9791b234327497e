#include "moelab/trained/scaling_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "moelab/core/error.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/trained/fit_moe.hpp"

namespace moelab::trained {

const char* to_string(ScalingAxis a) {
  switch (a) {
    case ScalingAxis::active: return "active";
    case ScalingAxis::data: return "data";
    case ScalingAxis::experts: return "experts";
  }
  return "?";
}

void ScalingSpec::validate() const {
  MOELAB_EXPECT(d >= 1 && teacher_k >= 1 && teacher_k <= teacher_E && teacher_w >= 1 && k >= 1 && k <= E && E <= 64 && w >= 1,
                "ScalingSpec: sizes");
  MOELAB_EXPECT(steps >= 1 && batch >= 1 && train_size >= 0 && test_size >= 1 && lr > 0.0, "ScalingSpec: budget");
}

namespace {
moe::MoeShape mlp_shape(int E, int k, int w, int d) {
  moe::MoeShape s;
  s.m = E, s.k = k, s.w = w, s.d = d, s.d_out = 1;
  s.expert = moe::ExpertKind::mlp;
  s.expert_bias = false;
  s.router_bias = false;
  s.weighting = moe::Weighting::softmax;
  return s;
}
}  // namespace

moe::MoeShape ScalingSpec::teacher() const { return mlp_shape(teacher_E, teacher_k, teacher_w, d); }
moe::MoeShape ScalingSpec::student() const {
  moe::MoeShape s = mlp_shape(E, k, w, d);
  gating.apply(s);
  return s;
}

ScalingSpec at_axis(ScalingSpec s, ScalingAxis axis, std::int64_t v) {
  switch (axis) {
    case ScalingAxis::active: s.w = static_cast<int>(v); break;
    case ScalingAxis::data: s.train_size = v; break;
    case ScalingAxis::experts: s.E = static_cast<int>(v); break;
  }
  return s;
}

RoutingUsage routing_usage(const std::vector<std::uint64_t>& masks) {
  std::map<std::uint64_t, std::int64_t> count;
  for (auto m : masks) ++count[m];
  double h = 0.0;
  const double n = static_cast<double>(masks.size());
  for (const auto& [m, c] : count) {
    const double p = static_cast<double>(c) / n;
    h -= p * std::log(p);
  }
  return {static_cast<int>(count.size()), std::exp(h)};
}

ScalingRun run_scaling_trial(const ScalingSpec& spec, const RngKey& key, std::int64_t trial) {
  spec.validate();
  moe::TrainConfig cfg;
  cfg.teacher = spec.teacher();
  cfg.student = spec.student();
  cfg.teacher_seed = key.with("teacher", trial).seed();
  cfg.student_seed = key.with("student", trial).seed();
  cfg.data_seed = key.with("data", trial).seed();
  cfg.steps = spec.steps;
  cfg.batch = spec.batch;
  cfg.train_size = spec.train_size;
  cfg.test_size = spec.test_size;
  cfg.opt.lr = spec.lr;
  moe::TeacherStudent<double> ts(cfg);
  ScalingRun r;
  r.init_nmse = ts.test_nmse();
  const Mat X = moe::gaussian_inputs<double>(spec.d, spec.test_size, cfg.data_seed, StreamTag::moe_test_data, 0);
  r.initial = routing_usage(router_masks(ts.student(), X));
  // In chunks of kPollSteps, polling for SIGINT/SIGTERM between them: a paper-size training run
  // takes hours, and the signal must stop it within a second (the same steps, so the same bytes).
  for (std::int64_t s = ts.step(); s < cfg.steps;) {
    s = std::min(cfg.steps, s + kPollSteps);
    ts.train_until(s);
    check_interrupted();
  }
  r.nmse = ts.test_nmse();
  r.trained = routing_usage(router_masks(ts.student(), X));
  r.mean_k = mean_active_experts(ts.student(), X);
  return r;
}

PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& mean, const std::vector<double>& se) {
  const std::size_t n = x.size();
  MOELAB_EXPECT(n >= 2 && mean.size() == n && se.size() == n, "fit_power_law: need at least 2 points");
  double min_rel = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    MOELAB_EXPECT(x[i] > 0.0 && mean[i] > 0.0 && se[i] >= 0.0, "fit_power_law: x, mean > 0");
    if (se[i] > 0.0) min_rel = std::min(min_rel, se[i] / mean[i]);
  }
  if (!std::isfinite(min_rel)) min_rel = 1.0;  // no spread anywhere: unweighted
  std::vector<double> one(n, 1.0), lx(n), ly(n), wt(n);
  for (std::size_t i = 0; i < n; ++i) {
    lx[i] = std::log(x[i]);
    ly[i] = std::log(mean[i]);
    const double rel = se[i] > 0.0 ? se[i] / mean[i] : min_rel;  // Var(log mean) ~ (se/mean)^2 (delta method)
    wt[i] = 1.0 / (rel * rel);
  }
  PowerFit p;
  if (n == 2) {
    // Two values (the documented minimum): the line through both points is the fit, exactly; the
    // weighted least squares needs more points than coefficients. Its standard error by the delta
    // method, Var(slope) = (Var log m_0 + Var log m_1) / (log x_1 - log x_0)^2; no residual, so no chi2.
    const double dx = lx[1] - lx[0];
    MOELAB_EXPECT(dx != 0.0, "fit_power_law: the two x values are equal");
    const double slope = (ly[1] - ly[0]) / dx;
    p.exponent = -slope;
    p.intercept = ly[0] - slope * lx[0];
    p.se = std::sqrt(1.0 / wt[0] + 1.0 / wt[1]) / std::abs(dx);
    p.chi2_dof = std::numeric_limits<double>::quiet_NaN();
    p.se_scaled = p.se;
    return p;
  }
  const WlsFit f = weighted_least_squares({one, lx}, ly, wt);
  p.intercept = f.coef[0];
  p.exponent = -f.coef[1];
  p.se = f.se[1];
  p.chi2_dof = f.dof > 0 ? f.chi2 / static_cast<double>(f.dof) : std::numeric_limits<double>::quiet_NaN();
  p.se_scaled = p.se * (f.dof > 0 ? std::max(1.0, std::sqrt(p.chi2_dof)) : 1.0);
  return p;
}

}  // namespace moelab::trained
