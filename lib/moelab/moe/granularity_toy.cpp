// The granularity paper's Fig. 1 toy (granularity_toy.hpp).
#include "moelab/moe/granularity_toy.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/moe/adamw.hpp"

namespace moelab::moe {

namespace {

/// sum_j c_j relu(u_j . z) for every column of Z (p x n), added into out (1 x n).
void add_relu_net(const Eigen::MatrixXd& u, const Eigen::VectorXd& c, const Eigen::MatrixXd& Z, int col,
                  double& out) {
  for (Eigen::Index j = 0; j < u.rows(); ++j) out += c(j) * std::max(0.0, u.row(j).dot(Z.col(col)));
}

// The test set is batch 2^40 of the data stream: no training step reaches it.
constexpr std::uint64_t kTestBatch = std::uint64_t{1} << 40;

}  // namespace

ToyTarget draw_toy_target(const ToyTask& task, std::uint64_t seed) {
  MOELAB_EXPECT(task.topics >= 1 && task.languages >= 1 && task.p >= 1 && task.h >= 1, "draw_toy_target: sizes >= 1");
  ToyTarget t;
  t.task = task;
  const RandomStream s(seed, StreamTag::moe_init, 0);
  std::uint64_t j = 0;
  const double su = 1.0 / std::sqrt(static_cast<double>(task.p)), sc = 1.0 / std::sqrt(static_cast<double>(task.h));
  const auto net = [&](std::vector<Eigen::MatrixXd>& U, std::vector<Eigen::VectorXd>& C, int count) {
    for (int a = 0; a < count; ++a) {
      Eigen::MatrixXd u(task.h, task.p);
      for (int r = 0; r < task.h; ++r)
        for (int q = 0; q < task.p; ++q) u(r, q) = su * s.normal(j++);
      Eigen::VectorXd c(task.h);
      for (int r = 0; r < task.h; ++r) c(r) = sc * s.normal(j++);
      U.push_back(std::move(u));
      C.push_back(std::move(c));
    }
  };
  net(t.u_topic, t.c_topic, task.topics);
  net(t.u_language, t.c_language, task.languages);
  return t;
}

void draw_toy_batch(const ToyTarget& target, int n, std::uint64_t seed, std::uint64_t batch, Eigen::MatrixXd& X,
                    Eigen::MatrixXd& Y, std::vector<int>* cells) {
  const ToyTask& k = target.task;
  const RandomStream s(seed, StreamTag::moe_train_data, batch);
  X.setZero(k.d(), n);
  Y.setZero(1, n);
  if (cells) cells->assign(static_cast<std::size_t>(n), 0);
  // Normals j = 0 .. n p - 1 (content), uniforms from j = n p + (n p mod 2) on (two per input): disjoint
  // Philox blocks.
  const std::uint64_t np = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(k.p);
  const std::uint64_t u0 = np + (np & 1u);
  Eigen::MatrixXd Z(k.p, n);
  s.fill_normal(0, np, Z.data());
  for (int i = 0; i < n; ++i) {
    const int t = std::min(k.topics - 1, static_cast<int>(s.uniform(u0 + 2 * static_cast<std::uint64_t>(i)) * k.topics));
    const int l =
        std::min(k.languages - 1, static_cast<int>(s.uniform(u0 + 2 * static_cast<std::uint64_t>(i) + 1) * k.languages));
    X(t, i) = 1.0;
    X(k.topics + l, i) = 1.0;
    X.block(k.topics + k.languages, i, k.p, 1) = Z.col(i);
    double y = 0.0;
    add_relu_net(target.u_topic[static_cast<std::size_t>(t)], target.c_topic[static_cast<std::size_t>(t)], Z, i, y);
    add_relu_net(target.u_language[static_cast<std::size_t>(l)], target.c_language[static_cast<std::size_t>(l)], Z, i, y);
    Y(0, i) = y;
    if (cells) (*cells)[static_cast<std::size_t>(i)] = t * k.languages + l;
  }
}

MoeShape toy_shape(const ToyTask& task, int m, int k) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m && (2 * task.h) % k == 0, "toy_shape: 1 <= k <= m, k divides 2h");
  MoeShape s;
  s.m = m;
  s.k = k;
  s.w = 2 * task.h / k;  // equal active expert width k w = 2h (granularity paper's iso-active comparison)
  s.d = task.d();
  s.d_out = 1;
  s.expert = ExpertKind::mlp;
  s.weighting = Weighting::softmax;
  s.gate = Gate::softmax_all;
  return s;
}

MoeModel<double> constructive_toy_moe(const ToyTarget& target, int m, int k, double lambda) {
  const ToyTask& t = target.task;
  const bool fine = m == t.topics + t.languages && k == 2, coarse = m == t.topics * t.languages && k == 1;
  MOELAB_EXPECT(fine || coarse, "constructive_toy_moe: (m, k) must be (T + L, 2) or (T L, 1)");
  MoeModel<double> model(toy_shape(t, m, k));
  auto& th = model.params();
  const int c0 = t.topics + t.languages;  // first content column of x
  // Softmax over all m logits; the selected experts' logits are lambda (fine: two of them, the rest 0) or
  // 2 lambda (coarse: the cell's expert; T + L - 2 experts share one coordinate at lambda, the rest 0).
  const double el = std::exp(lambda), e2 = std::exp(2 * lambda);
  const double g = fine ? el / (2 * el + (m - 2))
                        : e2 / (e2 + (t.topics + t.languages - 2) * el + (t.topics - 1) * (t.languages - 1));
  auto R = model.router_w(th);
  if (fine) {
    for (int a = 0; a < m; ++a) R(a, a) = lambda;  // expert a < T: topic a; expert T + l: language l
    for (int a = 0; a < m; ++a) {
      const bool topic = a < t.topics;
      const auto& u = topic ? target.u_topic[static_cast<std::size_t>(a)] : target.u_language[static_cast<std::size_t>(a - t.topics)];
      const auto& c = topic ? target.c_topic[static_cast<std::size_t>(a)] : target.c_language[static_cast<std::size_t>(a - t.topics)];
      model.w1(th, a).block(0, c0, t.h, t.p) = u;
      model.w2(th, a).row(0) = c.transpose() / g;
    }
  } else {
    for (int a = 0; a < t.topics; ++a)
      for (int l = 0; l < t.languages; ++l) {
        const int e = a * t.languages + l;
        R(e, a) = lambda;
        R(e, t.topics + l) = lambda;
        model.w1(th, e).block(0, c0, t.h, t.p) = target.u_topic[static_cast<std::size_t>(a)];
        model.w1(th, e).block(t.h, c0, t.h, t.p) = target.u_language[static_cast<std::size_t>(l)];
        model.w2(th, e).block(0, 0, 1, t.h) = target.c_topic[static_cast<std::size_t>(a)].transpose() / g;
        model.w2(th, e).block(0, t.h, 1, t.h) = target.c_language[static_cast<std::size_t>(l)].transpose() / g;
      }
  }
  return model;
}

ToyResult evaluate_toy(const ToyTarget& target, const MoeModel<double>& model, int test_n, std::uint64_t data_seed) {
  Eigen::MatrixXd X, Y;
  draw_toy_batch(target, test_n, data_seed, kTestBatch, X, Y);
  ForwardCache<double> cache;
  Eigen::MatrixXd P;
  forward(model, X, nullptr, cache, P);
  ToyResult r;
  r.test_mse = (P - Y).squaredNorm() / test_n;
  const double mean = Y.mean();
  r.target_variance = (Y.array() - mean).square().sum() / test_n;
  r.normalized_mse = r.test_mse / r.target_variance;
  std::set<std::uint64_t> masks;
  for (int i = 0; i < cache.n; ++i) {
    std::uint64_t mask = 0;
    for (int s = cache.slot_begin[static_cast<std::size_t>(i)]; s < cache.slot_begin[static_cast<std::size_t>(i) + 1]; ++s)
      mask |= std::uint64_t{1} << cache.slot_expert[static_cast<std::size_t>(s)];
    masks.insert(mask);
  }
  r.distinct_masks = static_cast<int>(masks.size());
  return r;
}

ToyResult train_toy(const ToyTarget& target, int m, int k, const ToyTraining& cfg, std::uint64_t seed,
                    std::uint64_t data_seed) {
  MOELAB_EXPECT(cfg.steps >= 1 && cfg.batch >= 1 && cfg.test_n >= 2 && cfg.lr > 0, "train_toy: positive sizes");
  MoeModel<double> model(toy_shape(target.task, m, k));
  init_pytorch(model, seed);
  AdamWConfig opt;
  opt.lr = cfg.lr;
  opt.total_steps = cfg.steps;
  AdamWState<double> state;
  state.reset(model.params().size());
  ForwardCache<double> cache;
  Eigen::MatrixXd X, Y, P, dY;
  Eigen::VectorXd grad;
  for (int step = 0; step < cfg.steps; ++step) {
    if (step % 64 == 0) check_interrupted();
    draw_toy_batch(target, cfg.batch, data_seed, static_cast<std::uint64_t>(step), X, Y);
    forward(model, X, nullptr, cache, P);
    (void)mse_loss<double>(P, Y, &dY);
    backward(model, cache, dY, grad);
    adamw_update(model.params(), grad, state, opt);
  }
  return evaluate_toy(target, model, cfg.test_n, data_seed);
}

std::pair<int, int> toy_config(const ToyTask& t, int c) {
  MOELAB_EXPECT(c >= 0 && c < kToyConfigs, "toy_config: c in 0..2");
  if (c == 0) return {t.topics * t.languages, 1};
  if (c == 1) return {t.topics + t.languages, 2};
  return {t.topics + t.languages, 1};
}
const char* toy_config_name(int c) { return c == 0 ? "granularity1_all" : c == 1 ? "granularity2" : "granularity1_few"; }

ToyComparison toy_comparison_trial(const ToyTask& task, const ToyTraining& training, const std::vector<double>& lrs,
                                   const RngKey& key, std::int64_t t) {
  MOELAB_EXPECT(!lrs.empty(), "toy_comparison_trial: at least one learning rate");
  const RngKey k = key.with("trial", t);
  const ToyTarget target = draw_toy_target(task, k.with("target").seed());
  const std::uint64_t data = k.with("data").seed();
  ToyComparison r{};
  for (int c = 0; c < kToyConfigs; ++c) {
    const auto [m, kk] = toy_config(task, c);
    ToyResult best;
    best.normalized_mse = std::numeric_limits<double>::infinity();
    for (double lr : lrs) {
      ToyTraining cfg = training;
      cfg.lr = lr;
      const ToyResult res = train_toy(target, m, kk, cfg, k.with("init", c).seed(), data);
      if (res.normalized_mse < best.normalized_mse) best = res;
    }
    r.normalized[c] = best.normalized_mse;
    r.test_mse[c] = best.test_mse;
    r.masks[c] = best.distinct_masks;
    r.constructive[c] =
        c == 2 ? std::nan("") : evaluate_toy(target, constructive_toy_moe(target, m, kk), training.test_n, data).normalized_mse;
  }
  return r;
}

}  // namespace moelab::moe
