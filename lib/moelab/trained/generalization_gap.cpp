#include "moelab/trained/generalization_gap.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/bounds/rademacher.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/trained/fit_moe.hpp"

namespace moelab::trained {

void GapSpec::validate() const {
  // T up to 4096 (the compositional paper's Open Question 4: 1000+ experts); adaptive routing reads the
  // selection through 64-bit masks (router_masks), so it stays at T <= 64.
  MOELAB_EXPECT(d >= 1 && teacher_T >= 1 && teacher_k >= 1 && teacher_k <= teacher_T && T >= 1 && k >= 1 && k <= T && T <= 4096 &&
                    (T <= 64 || gating.routing == moe::Routing::top_k),
                "GapSpec: sizes");
  MOELAB_EXPECT(m >= 2 && test_size >= 1 && noise >= 0.0 && steps >= 1 && batch >= 1 && lr > 0.0 && rademacher_draws >= 2,
                "GapSpec: budget");
}

namespace {

moe::MoeShape linear_shape(int T, int k, int d) {
  moe::MoeShape s;
  s.m = T, s.k = k, s.d = d, s.d_out = 1, s.w = 1;
  s.expert = moe::ExpertKind::linear;
  s.expert_bias = false;
  s.router_bias = false;
  s.weighting = moe::Weighting::softmax;
  return s;
}

/// Labels teacher(x) + noise * eps, eps from normal draws of (seed, tag, 0).
Mat labels(const Model& teacher, const Mat& X, double noise, std::uint64_t seed, StreamTag tag) {
  Mat Y = predict(teacher, X);
  const RandomStream rs(seed, tag, 0);
  for (Eigen::Index i = 0; i < Y.cols(); ++i) Y(0, i) += noise * rs.normal(static_cast<std::uint64_t>(i));
  return Y;
}

}  // namespace

LossPair evaluate_losses(const Model& f, const Mat& X, const Mat& Y) {
  MOELAB_EXPECT(Y.rows() == 1 && Y.cols() == X.cols() && f.shape().d_out == 1, "evaluate_losses: scalar targets");
  const Mat P = predict(f, X);
  double b = 0.0, s = 0.0;
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    const double r = P(0, i) - Y(0, i);
    b += std::min(1.0, std::abs(r));
    s += r * r;
  }
  return {b / static_cast<double>(X.cols()), s / static_cast<double>(X.cols())};
}

GapRun run_gap_trial(const GapSpec& spec, const RngKey& key, std::int64_t trial) {
  spec.validate();
  Model teacher(linear_shape(spec.teacher_T, spec.teacher_k, spec.d));
  moe::init_pytorch(teacher, key.with("teacher", trial).seed());
  const std::uint64_t data = key.with("data", trial).seed(), noise = key.with("noise", trial).seed();
  const Mat X = moe::gaussian_inputs<double>(spec.d, spec.m, data, StreamTag::moe_train_data, 0);
  const Mat Xt = moe::gaussian_inputs<double>(spec.d, spec.test_size, data, StreamTag::moe_test_data, 0);
  const Mat Y = labels(teacher, X, spec.noise, noise, StreamTag::moe_train_data);
  const Mat Yt = labels(teacher, Xt, spec.noise, noise, StreamTag::moe_test_data);

  moe::MoeShape sshape = linear_shape(spec.T, spec.k, spec.d);
  spec.gating.apply(sshape);
  Model student(sshape);
  const std::uint64_t sseed = key.with("student", trial).seed();
  moe::init_pytorch(student, sseed);
  FitConfig cfg;
  cfg.steps = spec.steps, cfg.batch = spec.batch, cfg.lr = spec.lr, cfg.shuffle_seed = sseed;
  fit_regression(student, X, Y, cfg);

  GapRun r;
  const auto train = evaluate_losses(student, X, Y), test = evaluate_losses(student, Xt, Yt);
  r.train_loss = train.bounded, r.train_mse = train.mse;
  r.test_loss = test.bounded, r.test_mse = test.mse;
  r.mean_k = mean_active_experts(student, Xt);
  for (int j = 0; j < spec.T; ++j) r.expert_norm = std::max(r.expert_norm, student.w1(student.params(), j).norm());
  if (student.shape().has_router()) r.router_norm = student.router_w(student.params()).rowwise().norm().maxCoeff();
  const RandomStream signs(key.with("signs", trial).seed(), StreamTag::bounds, 0);
  // Both classes are norm balls over the same points: R = B E||sum sigma_i x_i|| / m, one estimate of
  // E||.|| serves both (B = 1, then scaled).
  const auto unit = bounds::linear_class_rademacher_mc(X, 1.0, static_cast<std::uint64_t>(spec.rademacher_draws), signs);
  r.expert_rademacher = r.expert_norm * unit.mean;
  r.router_rademacher = r.router_norm * unit.mean;
  return r;
}

bounds::Theorem1Params theorem1_params(const GapSpec& spec, double rademacher) {
  bounds::Theorem1Params p;
  p.C = 1.0;
  p.rademacher = rademacher;
  p.k = spec.k;
  p.N = 1.0;
  p.d_N = static_cast<double>(spec.d) * spec.T;
  p.T = spec.T;
  p.m = static_cast<double>(spec.m);
  p.delta = 0.05;
  p.max_gate_weight = 1.0;
  return p;
}

}  // namespace moelab::trained
