#include "moelab/trained/fit_moe.hpp"

#include "moelab/core/interrupt.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <numeric>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"

namespace moelab::trained {

namespace {

/// The sample order of epoch e: Fisher-Yates with uniform draw j for position n - 1 - j.
std::vector<std::int64_t> epoch_order(std::int64_t n, std::uint64_t seed, std::int64_t epoch) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const RandomStream rs(seed, StreamTag::moe_shuffle, static_cast<std::uint64_t>(epoch));
  for (std::int64_t i = n - 1, j = 0; i > 0; --i, ++j) {
    const auto r = std::min<std::int64_t>(i, static_cast<std::int64_t>(rs.uniform(static_cast<std::uint64_t>(j)) * (i + 1)));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(r)]);
  }
  return order;
}

/// The loop shared by both losses: `loss(cols, Y, dY)` returns the batch loss of the samples `cols`
/// given the model's outputs Y on them, and sets dY.
std::vector<double> fit_loop(Model& model, const Mat& X, const FitConfig& cfg,
                             const std::function<double(std::span<const std::int64_t>, const Mat&, Mat&)>& loss) {
  const std::int64_t n = X.cols();
  MOELAB_EXPECT(n >= 1 && cfg.steps >= 1 && cfg.batch >= 1, "fit_moe: empty data or no steps");
  MOELAB_EXPECT(X.rows() == model.shape().d, "fit_moe: input dimension differs from the model's");
  const std::int64_t batch = std::min(cfg.batch, n);
  moe::AdamWConfig opt;
  opt.lr = cfg.lr;
  opt.weight_decay = cfg.weight_decay;
  opt.total_steps = cfg.steps;
  moe::AdamWState<double> state;
  state.reset(model.params().size());
  std::vector<double> losses;
  losses.reserve(static_cast<std::size_t>(cfg.steps));
  moe::ForwardCache<double> cache;
  Mat Xb, Yb, dY;
  Eigen::VectorXd grad;
  std::int64_t epoch = 0;
  while (static_cast<std::int64_t>(losses.size()) < cfg.steps) {
    const auto order = epoch_order(n, cfg.shuffle_seed, epoch++);
    for (std::int64_t start = 0; start < n && static_cast<std::int64_t>(losses.size()) < cfg.steps; start += batch) {
      const std::int64_t nb = std::min(batch, n - start);
      const std::span<const std::int64_t> cols(order.data() + start, static_cast<std::size_t>(nb));
      Xb.resize(X.rows(), nb);
      for (std::int64_t i = 0; i < nb; ++i) Xb.col(i) = X.col(cols[static_cast<std::size_t>(i)]);
      moe::forward(model, Xb, nullptr, cache, Yb);
      losses.push_back(loss(cols, Yb, dY));
      moe::backward(model, cache, dY, grad);
      moe::adamw_update(model.params(), grad, state, opt);
      // SIGINT/SIGTERM stop a long fit within a few steps, not at its end.
      if (losses.size() % static_cast<std::size_t>(kPollSteps) == 0) check_interrupted();
    }
  }
  return losses;
}

}  // namespace

std::vector<double> fit_regression(Model& model, const Mat& X, const Mat& Y, const FitConfig& cfg) {
  MOELAB_EXPECT(Y.cols() == X.cols() && Y.rows() == model.shape().d_out, "fit_regression: targets do not match");
  Mat Tb;
  return fit_loop(model, X, cfg, [&](std::span<const std::int64_t> cols, const Mat& Yb, Mat& dY) {
    Tb.resize(Y.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t i = 0; i < cols.size(); ++i) Tb.col(static_cast<Eigen::Index>(i)) = Y.col(cols[i]);
    return moe::mse_loss<double>(Yb, Tb, &dY);
  });
}

std::vector<double> fit_classifier(Model& model, const Mat& X, std::span<const int> labels, int heads, int classes,
                                   const FitConfig& cfg) {
  MOELAB_EXPECT(heads >= 1 && classes >= 2 && model.shape().d_out == heads * classes, "fit_classifier: output layout");
  MOELAB_EXPECT(static_cast<std::int64_t>(labels.size()) == X.cols() * heads, "fit_classifier: labels do not match");
  std::vector<int> lb;
  return fit_loop(model, X, cfg, [&](std::span<const std::int64_t> cols, const Mat& Yb, Mat& dY) {
    lb.resize(cols.size() * static_cast<std::size_t>(heads));
    for (std::size_t i = 0; i < cols.size(); ++i)
      for (int h = 0; h < heads; ++h)
        lb[i * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)] =
            labels[static_cast<std::size_t>(cols[i]) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)];
    return cross_entropy(Yb, lb, heads, classes, &dY);
  });
}

double cross_entropy(const Mat& Y, std::span<const int> labels, int heads, int classes, Mat* dY) {
  const Eigen::Index n = Y.cols();
  MOELAB_EXPECT(Y.rows() == heads * classes && static_cast<Eigen::Index>(labels.size()) == n * heads,
                "cross_entropy: shapes");
  if (dY) dY->resize(Y.rows(), n);
  const double scale = 1.0 / (static_cast<double>(n) * heads);
  double total = 0.0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (int h = 0; h < heads; ++h) {
      const auto z = Y.col(i).segment(h * classes, classes);
      const double zmax = z.maxCoeff();
      double s = 0.0;
      for (int c = 0; c < classes; ++c) s += std::exp(z(c) - zmax);
      const int y = labels[static_cast<std::size_t>(i * heads + h)];
      total += std::log(s) + zmax - z(y);  // -log softmax(z)_y
      if (dY)
        for (int c = 0; c < classes; ++c)
          (*dY)(h * classes + c, i) = (std::exp(z(c) - zmax) / s - (c == y ? 1.0 : 0.0)) * scale;
    }
  return total * scale;
}

Accuracy accuracy(const Mat& Y, std::span<const int> labels, int heads, int classes) {
  const Eigen::Index n = Y.cols();
  MOELAB_EXPECT(Y.rows() == heads * classes && static_cast<Eigen::Index>(labels.size()) == n * heads, "accuracy: shapes");
  std::int64_t exact = 0, heads_ok = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    bool all = true;
    for (int h = 0; h < heads; ++h) {
      Eigen::Index arg = 0;
      Y.col(i).segment(h * classes, classes).maxCoeff(&arg);  // Eigen: first maximum
      const bool ok = arg == labels[static_cast<std::size_t>(i * heads + h)];
      heads_ok += ok;
      all = all && ok;
    }
    exact += all;
  }
  return {static_cast<double>(exact) / static_cast<double>(n),
          static_cast<double>(heads_ok) / (static_cast<double>(n) * heads)};
}

std::vector<std::uint64_t> router_masks(const Model& model, const Mat& X) {
  const auto& s = model.shape();
  MOELAB_EXPECT(s.m <= 64, "router_masks: at most 64 experts");
  std::vector<std::uint64_t> masks(static_cast<std::size_t>(X.cols()), 1u);
  if (!s.has_router()) return masks;
  if (s.adaptive()) {
    // The selection varies per input: read it from the forward pass, in chunks.
    constexpr Eigen::Index kChunk = 4096;
    moe::ForwardCache<double> cache;
    Mat Y;
    for (Eigen::Index i0 = 0; i0 < X.cols(); i0 += kChunk) {
      const Eigen::Index n = std::min(kChunk, X.cols() - i0);
      moe::forward(model, Mat(X.middleCols(i0, n)), nullptr, cache, Y);
      for (Eigen::Index i = 0; i < n; ++i) {
        std::uint64_t m = 0;
        for (int sl = cache.slot_begin[static_cast<std::size_t>(i)]; sl < cache.slot_begin[static_cast<std::size_t>(i) + 1]; ++sl)
          m |= std::uint64_t{1} << cache.slot_expert[static_cast<std::size_t>(sl)];
        masks[static_cast<std::size_t>(i0 + i)] = m;
      }
    }
    return masks;
  }
  Mat logits = model.router_w(model.params()) * X;
  if (s.router_bias) logits.colwise() += Eigen::VectorXd(model.router_b(model.params()));
  std::vector<int> idx(static_cast<std::size_t>(s.m));
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    std::iota(idx.begin(), idx.end(), 0);
    // The k largest logits, ties to the lower index (as moe::forward).
    std::partial_sort(idx.begin(), idx.begin() + s.k, idx.end(), [&](int a, int b) {
      return logits(a, i) > logits(b, i) || (logits(a, i) == logits(b, i) && a < b);
    });
    std::uint64_t m = 0;
    for (int j = 0; j < s.k; ++j) m |= std::uint64_t{1} << idx[static_cast<std::size_t>(j)];
    masks[static_cast<std::size_t>(i)] = m;
  }
  return masks;
}

double mean_active_experts(const Model& model, const Mat& X) {
  if (!model.shape().adaptive()) return X.cols() > 0 ? (model.shape().has_router() ? model.shape().k : 1.0) : 0.0;
  const auto masks = router_masks(model, X);
  double total = 0.0;
  for (auto m : masks) total += static_cast<double>(std::popcount(m));
  return masks.empty() ? 0.0 : total / static_cast<double>(masks.size());
}

Mat predict(const Model& model, const Mat& X) {
  constexpr Eigen::Index kChunk = 4096;
  Mat Y(model.shape().d_out, X.cols());
  for (Eigen::Index i0 = 0; i0 < X.cols(); i0 += kChunk) {
    const Eigen::Index n = std::min(kChunk, X.cols() - i0);
    Y.middleCols(i0, n) = moe::evaluate(model, Mat(X.middleCols(i0, n)));
  }
  return Y;
}

}  // namespace moelab::trained
