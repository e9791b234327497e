#include "moelab/trained/scaling_gap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/trained/generalization_gap.hpp"

namespace moelab::trained {

void ScalingGapSpec::validate() const {
  model.validate();
  MOELAB_EXPECT(model.train_size >= 2, "ScalingGapSpec: a fixed training set of >= 2 points (train_size)");
  MOELAB_EXPECT(noise >= 0.0 && delta > 0.0 && delta < 1.0, "ScalingGapSpec: noise >= 0, 0 < delta < 1");
}

ScalingGapRun run_scaling_gap_trial(const ScalingGapSpec& spec, const RngKey& key, std::int64_t trial, bool keep_curve) {
  spec.validate();
  const ScalingSpec& m = spec.model;
  Model teacher(m.teacher());
  moe::init_pytorch(teacher, key.with("teacher", trial).seed());
  const std::uint64_t data = key.with("data", trial).seed(), noise = key.with("noise", trial).seed();
  const Mat X = moe::gaussian_inputs<double>(m.d, m.train_size, data, StreamTag::moe_train_data, 0);
  const Mat Xt = moe::gaussian_inputs<double>(m.d, m.test_size, data, StreamTag::moe_test_data, 0);
  Mat Y = predict(teacher, X), Yt = predict(teacher, Xt);
  // The teacher's output standard deviation on the test inputs: signal variance 1 after division.
  const double mu = Yt.mean();
  const double sd = std::sqrt((Yt.array() - mu).square().mean());
  MOELAB_EXPECT(sd > 0.0, "run_scaling_gap_trial: the teacher's output is constant");
  const RandomStream rs(noise, StreamTag::moe_train_data, 0), rt(noise, StreamTag::moe_test_data, 0);
  for (Eigen::Index i = 0; i < Y.cols(); ++i) Y(0, i) = Y(0, i) / sd + spec.noise * rs.normal(static_cast<std::uint64_t>(i));
  for (Eigen::Index i = 0; i < Yt.cols(); ++i) Yt(0, i) = Yt(0, i) / sd + spec.noise * rt.normal(static_cast<std::uint64_t>(i));

  Model student(m.student());
  const std::uint64_t sseed = key.with("student", trial).seed();
  moe::init_pytorch(student, sseed);
  FitConfig cfg;
  cfg.steps = m.steps, cfg.batch = m.batch, cfg.lr = m.lr, cfg.shuffle_seed = sseed;
  ScalingGapRun r;
  auto curve = fit_regression(student, X, Y, cfg);
  if (keep_curve) r.loss_curve = std::move(curve);
  const auto train = evaluate_losses(student, X, Y), test = evaluate_losses(student, Xt, Yt);
  r.train_loss = train.bounded, r.train_mse = train.mse;
  r.test_loss = test.bounded, r.test_mse = test.mse;
  r.param_norm = student.params().norm();
  r.mean_k = mean_active_experts(student, Xt);
  return r;
}

ScalingGapBound scaling_gap_bound(const ScalingSpec& model, double R, double eta) {
  MOELAB_EXPECT(R > 0.0 && eta > 0.0 && eta < 1.0 && model.train_size >= 2, "scaling_gap_bound: R > 0, 0 < eta < 1, D >= 2");
  const moe::MoeShape s = model.student();
  const double D = static_cast<double>(model.train_size);
  scaling::CoveringParams p;
  const moe::ParamLayout layout(s);
  p.P_attn = static_cast<double>(layout.router_size);  // the router: always active
  p.P_exp = static_cast<double>(layout.expert_size);
  p.L = 1.0, p.k = s.k, p.M = s.m, p.ell = 1.0, p.kappa = 1.0, p.R = R, p.M0 = 1.0;
  const double eps = 1.0 / D;
  MOELAB_EXPECT(R / eps > 1.0, "scaling_gap_bound: R D must exceed 1 (the lemma's log must be positive)");
  const auto cov = scaling::covering_number_bound(p, eps);
  ScalingGapBound b;
  b.active_parameters = cov.active_parameters;
  b.log_covering = cov.total;
  b.deviation = std::sqrt((cov.total + std::log(2.0 / eta)) / (2.0 * D));
  b.bound = 2.0 / D + b.deviation;
  const double exact = cov.parameter_entropy + scaling::routing_overhead_exact(p);
  b.bound_exact_routing = 2.0 / D + std::sqrt((exact + std::log(2.0 / eta)) / (2.0 * D));
  b.rate_form = std::sqrt(cov.active_parameters * std::log(D) / D);
  return b;
}

BootstrapInterval bootstrap_power_law(const std::vector<double>& x, const std::vector<std::vector<double>>& samples,
                                      std::int64_t draws, std::uint64_t seed) {
  const std::size_t n = samples.size(), nx = x.size();
  MOELAB_EXPECT(n >= 2 && nx >= 2 && draws >= 10, "bootstrap_power_law: >= 2 seeds, >= 2 values, >= 10 draws");
  for (const auto& s : samples) MOELAB_EXPECT(s.size() == nx, "bootstrap_power_law: every seed needs a value at every x");
  std::vector<double> exps;
  std::int64_t skipped = 0;
  std::vector<double> mean(nx), se(nx);
  for (std::int64_t b = 0; b < draws; ++b) {
    const RandomStream rs(seed, StreamTag::bounds, static_cast<std::uint64_t>(b));
    std::vector<Welford> w(nx);
    for (std::size_t t = 0; t < n; ++t) {
      const auto pick = std::min(n - 1, static_cast<std::size_t>(rs.uniform(t) * static_cast<double>(n)));
      for (std::size_t j = 0; j < nx; ++j) w[j].add(samples[pick][j]);
    }
    bool ok = true;
    for (std::size_t j = 0; j < nx; ++j) {
      mean[j] = w[j].mean();
      se[j] = w[j].standard_error();
      ok = ok && mean[j] > 0.0 && std::isfinite(se[j]);
    }
    if (!ok) {
      ++skipped;
      continue;
    }
    exps.push_back(fit_power_law(x, mean, se).exponent);
  }
  BootstrapInterval out;
  out.skipped = static_cast<double>(skipped) / static_cast<double>(draws);
  if (exps.size() < 10) {
    out.lo = out.hi = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  std::sort(exps.begin(), exps.end());
  const auto at = [&](double q) {  // linear interpolation between order statistics
    const double h = q * static_cast<double>(exps.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(h));
    const std::size_t j = std::min(i + 1, exps.size() - 1);
    return exps[i] + (h - static_cast<double>(i)) * (exps[j] - exps[i]);
  };
  out.lo = at(0.025), out.hi = at(0.975);
  return out;
}

OffsetPowerFit fit_power_law_offset(const std::vector<double>& x, const std::vector<double>& mean, const std::vector<double>& se) {
  const std::size_t n = x.size();
  MOELAB_EXPECT(n >= 3 && mean.size() == n && se.size() == n, "fit_power_law_offset: need at least 3 points");
  double lo_mean = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    MOELAB_EXPECT(x[i] > 0.0 && mean[i] > 0.0 && se[i] >= 0.0, "fit_power_law_offset: x, mean > 0");
    lo_mean = std::min(lo_mean, mean[i]);
  }
  // chi2 of the WLS fit of log(L - c) on log x, weights ((L - c) / se)^2: the se of L is that of L - c.
  const auto fit_at = [&](double c) {
    std::vector<double> m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = mean[i] - c;
    const PowerFit f = fit_power_law(x, m, se);
    return std::pair<PowerFit, double>{f, f.chi2_dof * static_cast<double>(n - 2)};
  };
  const double c_max = (1.0 - 1e-3) * lo_mean;
  constexpr int kGrid = 400;
  int best = 0;
  double best_chi2 = std::numeric_limits<double>::infinity();
  for (int g = 0; g <= kGrid; ++g) {
    const double chi2 = fit_at(c_max * g / kGrid).second;
    if (chi2 < best_chi2) best_chi2 = chi2, best = g;
  }
  double a = c_max * std::max(0, best - 1) / kGrid, b = c_max * std::min(kGrid, best + 1) / kGrid;
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double c1 = b - phi * (b - a), c2 = a + phi * (b - a);
  double f1 = fit_at(c1).second, f2 = fit_at(c2).second;
  for (int it = 0; it < 60; ++it) {
    if (f1 < f2) {
      b = c2, c2 = c1, f2 = f1, c1 = b - phi * (b - a), f1 = fit_at(c1).second;
    } else {
      a = c1, c1 = c2, f1 = f2, c2 = a + phi * (b - a), f2 = fit_at(c2).second;
    }
  }
  double c = 0.5 * (a + b);
  auto refined = fit_at(c);
  if (best_chi2 < refined.second) {  // the grid point itself (an end of the range) was better
    c = c_max * best / kGrid;
    refined = fit_at(c);
  }
  const PowerFit& f = refined.first;
  const double chi2 = refined.second;
  OffsetPowerFit out;
  out.exponent = f.exponent;
  out.offset = c;
  out.se = f.se;
  out.chi2_dof = n > 3 ? chi2 / static_cast<double>(n - 3) : std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace moelab::trained
