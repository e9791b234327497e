#include "moelab/moe/modular_task.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/keys.hpp"

namespace moelab::moe {

void ModularTask::validate() const {
  MOELAB_EXPECT(blocks >= 1 && block_dim >= 1 && teacher_width >= 1 && lambda > 0.0, "ModularTask: sizes must be positive");
  MOELAB_EXPECT(classes == 0 || classes >= 2, "ModularTask: classes is 0 (regression) or >= 2");
}

ModularTeacher::ModularTeacher(const ModularTask& task, std::uint64_t seed) : task_(task) {
  task_.validate();
  const int b = task_.block_dim;
  const RandomStream rs(RngKey::root(seed).with("beta").seed(), StreamTag::moe_init, 0);
  beta_.resize(task_.d());
  for (int j = 0; j < task_.d(); ++j) beta_[j] = rs.normal(static_cast<std::uint64_t>(j)) / std::sqrt(static_cast<double>(b));
  if (task_.classes >= 2) {
    MoeShape s;
    s.m = s.k = 1, s.w = task_.teacher_width, s.d = b, s.d_out = task_.classes;
    s.expert = ExpertKind::mlp, s.expert_bias = true;
    for (int z = 0; z < task_.blocks; ++z) {
      class_teacher_.emplace_back(s);
      init_pytorch(class_teacher_.back(), RngKey::root(seed).with("class_teacher", z).seed());
    }
  }
}

std::vector<int> ModularTeacher::labels(const Eigen::MatrixXd& clean, const std::vector<int>& block) const {
  const int b = task_.block_dim;
  const auto n = static_cast<Eigen::Index>(block.size());
  std::vector<int> out(block.size(), 0);
  // Group the samples by block, evaluate T_z on x_z, argmax (ties to the lower class).
  for (int z = 0; z < task_.blocks; ++z) {
    std::vector<Eigen::Index> idx;
    for (Eigen::Index i = 0; i < n; ++i)
      if (block[static_cast<std::size_t>(i)] == z) idx.push_back(i);
    if (idx.empty()) continue;
    Eigen::MatrixXd xz(b, static_cast<Eigen::Index>(idx.size()));
    for (std::size_t t = 0; t < idx.size(); ++t) xz.col(static_cast<Eigen::Index>(t)) = clean.block(z * b, idx[t], b, 1);
    const Eigen::MatrixXd out_z = evaluate(class_teacher_[static_cast<std::size_t>(z)], xz);
    for (std::size_t t = 0; t < idx.size(); ++t) {
      Eigen::Index c;
      out_z.col(static_cast<Eigen::Index>(t)).maxCoeff(&c);
      out[static_cast<std::size_t>(idx[t])] = static_cast<int>(c);
    }
  }
  return out;
}

ModularSample ModularTeacher::draw(std::int64_t n, double sigma, std::uint64_t seed, StreamTag tag, std::uint64_t trial) const {
  const int k = task_.blocks, b = task_.block_dim, d = task_.d();
  const RngKey key = RngKey::root(seed);
  const RandomStream zs(key.with("block").seed(), tag, trial), xs(key.with("features").seed(), tag, trial),
      es(key.with("noise").seed(), tag, trial);
  ModularSample s;
  s.clean.setZero(d, n);
  s.noisy.resize(d, n);
  s.block.resize(static_cast<std::size_t>(n));
  const double sd = std::sqrt(task_.lambda);
  std::vector<double> buf(static_cast<std::size_t>(std::max(b, d)));
  for (std::int64_t i = 0; i < n; ++i) {
    const int z = std::min(k - 1, static_cast<int>(zs.uniform(static_cast<std::uint64_t>(i)) * k));
    s.block[static_cast<std::size_t>(i)] = z;
    xs.fill_normal(static_cast<std::uint64_t>(i) * b, static_cast<std::uint64_t>(b), buf.data());
    for (int c = 0; c < b; ++c) s.clean(z * b + c, i) = sd * buf[static_cast<std::size_t>(c)];
    es.fill_normal(static_cast<std::uint64_t>(i) * d, static_cast<std::uint64_t>(d), buf.data());
    for (int c = 0; c < d; ++c) s.noisy(c, i) = s.clean(c, i) + sigma * buf[static_cast<std::size_t>(c)];
  }
  if (task_.classes >= 2) {
    s.label = labels(s.clean, s.block);
  } else {
    s.y = beta_.transpose() * s.clean;  // x has zeros outside block z: x' beta* = x_z' beta_z*
  }
  return s;
}

Eigen::MatrixXd block_masked(const Eigen::MatrixXd& x, const std::vector<int>& block, int block_dim) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    const int z = block[static_cast<std::size_t>(i)];
    out.block(z * block_dim, i, block_dim, 1) = x.block(z * block_dim, i, block_dim, 1);
  }
  return out;
}

}  // namespace moelab::moe
