#include "moelab/moe/noisy_robustness.hpp"

#include <cmath>

#include "moelab/core/error.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/noisy/model.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::moe {

int iso_parameter_dense_width(const ModularTask& t, int w) {
  const std::int64_t C = t.classes, b = t.block_dim, k = t.blocks, d = t.d();
  const std::int64_t moe = k * (w * (b + 1 + C) + C);
  return static_cast<int>(std::max<std::int64_t>(1, (moe - C) / (d + 1 + C)));
}

double cross_entropy_loss(const Eigen::MatrixXd& Y, const std::vector<int>& label, Eigen::MatrixXd* dY) {
  const Eigen::Index n = Y.cols();
  double sum = 0.0;
  if (dY) dY->resize(Y.rows(), n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double mx = Y.col(i).maxCoeff();
    const Eigen::VectorXd e = (Y.col(i).array() - mx).exp().matrix();
    const double z = e.sum();
    const int c = label[static_cast<std::size_t>(i)];
    sum += std::log(z) - (Y(c, i) - mx);
    if (dY) {
      dY->col(i) = e / (z * static_cast<double>(n));
      (*dY)(c, i) -= 1.0 / static_cast<double>(n);
    }
  }
  return sum / static_cast<double>(n);
}

double accuracy(const Eigen::MatrixXd& Y, const std::vector<int>& label) {
  std::int64_t hit = 0;
  for (Eigen::Index i = 0; i < Y.cols(); ++i) {
    Eigen::Index c;
    Y.col(i).maxCoeff(&c);
    hit += c == label[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(hit) / static_cast<double>(Y.cols());
}

namespace {

struct Trained {
  MoeModel<double> model;
  AdamWState<double> opt;
  bool routed;
};

double score(const ModularTask& task, const MoeModel<double>& m, bool routed, const Eigen::MatrixXd& x, const ModularSample& s) {
  const Eigen::MatrixXd in = routed ? block_masked(x, s.block, task.block_dim) : x;
  const Eigen::MatrixXd Y = evaluate(m, in, routed ? &s.block : nullptr);
  if (task.classes >= 2) return accuracy(Y, s.label);
  return mse_loss<double>(Y, s.y, nullptr);
}

}  // namespace

RobustnessRun run_robustness_trial(const RobustnessSpec& spec, const RngKey& key, std::int64_t trial) {
  const ModularTask& task = spec.task;
  task.validate();
  MOELAB_EXPECT(spec.steps >= 1 && spec.batch >= 1 && spec.test_size >= 1 && spec.sigma >= 0.0, "run_robustness_trial: sizes");
  const bool cls = task.classes >= 2;
  const int k = task.blocks, d = task.d();
  const ModularTeacher teacher(task, key.with("teacher", trial).seed());
  const std::uint64_t data_seed = key.with("data", trial).seed();

  // Dense: one linear map R^d -> R (Table 2) or a two-layer ReLU MLP of the iso-parameter width
  // (Table 3). MoE: k experts, oracle routing (expert z for a sample of block z), reading block z only.
  MoeShape ds, ms;
  ds.m = ds.k = 1, ds.d = d, ds.d_out = cls ? task.classes : 1;
  ms.m = k, ms.k = 1, ms.d = d, ms.d_out = ds.d_out, ms.weighting = Weighting::oracle;
  RobustnessRun out;
  if (cls) {
    ds.expert = ms.expert = ExpertKind::mlp;
    ds.expert_bias = ms.expert_bias = true;
    ms.w = spec.expert_width;
    ds.w = out.dense_width = iso_parameter_dense_width(task, spec.expert_width);
    out.dense_parameters = static_cast<std::int64_t>(ds.w) * (d + 1 + task.classes) + task.classes;
    out.moe_parameters = static_cast<std::int64_t>(k) * (spec.expert_width * (task.block_dim + 1 + task.classes) + task.classes);
  } else {
    // Single-layer linear regression without bias: the dense estimator and the k sparse ones of Eq. 3
    // (both d parameters in effect).
    ds.expert = ms.expert = ExpertKind::linear;
    ds.expert_bias = ms.expert_bias = false;
    out.dense_parameters = d;
    out.moe_parameters = d;
  }
  Trained dense{MoeModel<double>(ds), {}, false}, moe{MoeModel<double>(ms), {}, true};
  init_pytorch(dense.model, key.with("dense", trial).seed());
  init_pytorch(moe.model, key.with("moe", trial).seed());
  AdamWConfig opt;
  opt.lr = spec.lr;
  opt.total_steps = spec.steps;
  dense.opt.reset(dense.model.params().size());
  moe.opt.reset(moe.model.params().size());

  ForwardCache<double> cache;
  Eigen::MatrixXd Y, dY;
  Eigen::VectorXd grad;
  for (std::int64_t t = 0; t < spec.steps; ++t) {
    const ModularSample s = teacher.draw(spec.batch, spec.sigma, data_seed, StreamTag::moe_train_data, static_cast<std::uint64_t>(t));
    for (Trained* tr : {&dense, &moe}) {
      const Eigen::MatrixXd in = tr->routed ? block_masked(s.noisy, s.block, task.block_dim) : s.noisy;
      forward(tr->model, in, tr->routed ? &s.block : nullptr, cache, Y);
      if (cls) {
        cross_entropy_loss(Y, s.label, &dY);
      } else {
        mse_loss<double>(Y, s.y, &dY);
      }
      backward(tr->model, cache, dY, grad);
      adamw_update(tr->model.params(), grad, tr->opt, opt);
    }
  }
  const ModularSample test = teacher.draw(spec.test_size, spec.sigma, data_seed, StreamTag::moe_test_data, 0);
  out.dense_noisy = score(task, dense.model, false, test.noisy, test);
  out.dense_clean = score(task, dense.model, false, test.clean, test);
  out.moe_noisy = score(task, moe.model, true, test.noisy, test);
  out.moe_clean = score(task, moe.model, true, test.clean, test);

  if (!cls) {
    // noisy paper, Thm 3 (Thm 2 at sigma_o^2 = sigma^2) for Sigma_i = lambda I, p_i = 1/k, this beta*.
    noisy::Model nm;
    const int b = task.block_dim;
    for (int z = 0; z < k; ++z) {
      nm.sigma.push_back(task.lambda * Eigen::MatrixXd::Identity(b, b));
      nm.p.push_back(1.0 / k);
      nm.beta_star.push_back(teacher.beta().segment(z * b, b));
    }
    const double s2 = spec.sigma * spec.sigma;
    nm.sigma2 = s2 > 0.0 ? s2 : 1e-300;
    out.dense_bayes_noisy = noisy::thm3_dense_risk(nm, s2);
    out.dense_bayes_clean = noisy::thm3_dense_risk(nm, 0.0);
    out.moe_bayes_noisy = noisy::thm3_sparse_risk(nm, s2);
    out.moe_bayes_clean = noisy::thm3_sparse_risk(nm, 0.0);
    out.signal = task.lambda * teacher.beta().squaredNorm() / k;
  }
  return out;
}

}  // namespace moelab::moe
