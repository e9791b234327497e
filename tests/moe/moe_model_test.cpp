// The MoE layer: hand-written backward against central finite differences (every parameter type,
// every weighting mode), the forward pass against a naive all-experts reference, thread-count
// invariance, the initialisation law and the dense baseline's parameter count.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/moe/moe_model.hpp"

using namespace moelab;
using namespace moelab::moe;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using MatD = MoeModel<double>::Mat;
using VecD = MoeModel<double>::Vec;

/// The naive reference (what the public script does): every expert on every input, then the
/// top-k slots gathered with their weights. Independent of forward()'s grouping.
MatD naive_forward(const MoeModel<double>& model, const MatD& X, const std::vector<int>* oracle) {
  const MoeShape& s = model.shape();
  const auto& th = model.params();
  MatD Y = MatD::Zero(s.d_out, X.cols());
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    std::vector<int> sel;
    std::vector<double> g;
    if (s.weighting == Weighting::oracle) {
      sel = {(*oracle)[static_cast<std::size_t>(i)]}, g = {1.0};
    } else if (s.m == 1) {
      sel = {0}, g = {1.0};
    } else {
      VecD z = model.router_w(th) * X.col(i);
      if (s.router_bias) z += model.router_b(th);
      std::vector<int> idx(static_cast<std::size_t>(s.m));
      for (int j = 0; j < s.m; ++j) idx[static_cast<std::size_t>(j)] = j;
      std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return z[a] > z[b]; });
      sel.assign(idx.begin(), idx.begin() + s.k);
      double sum = 0;
      for (int j : sel) g.push_back(s.weighting == Weighting::equal ? 1.0 / s.k : std::exp(z[j])), sum += g.back();
      for (double& x : g) x /= sum;
    }
    for (std::size_t r = 0; r < sel.size(); ++r) {
      const int j = sel[r];
      VecD out;
      if (s.expert == ExpertKind::mlp) {
        VecD h = model.w1(th, j) * X.col(i);
        if (s.expert_bias) h += model.b1(th, j);
        out = model.w2(th, j) * h.cwiseMax(0.0);
        if (s.expert_bias) out += model.b2(th, j);
      } else {
        out = model.w1(th, j) * X.col(i);
        if (s.expert_bias) out += model.b1(th, j);
      }
      Y.col(i) += g[r] * out;
    }
  }
  return Y;
}

/// Inputs whose routing and ReLU pattern are at least `margin` from a tie or a kink (the top-k
/// selection and the ReLU are piecewise; a finite difference straddling a switch is meaningless):
/// candidate columns drawn from Philox, kept while they qualify.
MatD inputs_away_from_ties(const MoeModel<double>& model, int n, double margin, std::uint64_t seed) {
  const MoeShape& s = model.shape();
  const RandomStream rs(seed, StreamTag::property_test, 1);
  MatD X(s.d, n);
  std::uint64_t draw = 0;
  int kept = 0;
  while (kept < n) {
    VecD x(s.d);
    for (int c = 0; c < s.d; ++c) x[c] = rs.normal(draw++);
    bool ok = true;
    std::vector<int> active;
    if (s.has_router()) {
      VecD z = model.router_w(model.params()) * x;
      if (s.router_bias) z += model.router_b(model.params());
      std::vector<double> zs(z.data(), z.data() + z.size());
      std::sort(zs.begin(), zs.end(), std::greater<>());
      if (s.k < s.m && zs[static_cast<std::size_t>(s.k - 1)] - zs[static_cast<std::size_t>(s.k)] < margin) ok = false;
      for (int j = 0; j < s.m; ++j) active.push_back(j);
    } else {
      for (int j = 0; j < s.m; ++j) active.push_back(j);
    }
    if (s.expert == ExpertKind::mlp)
      for (int j : active) {
        VecD h = model.w1(model.params(), j) * x;
        if (s.expert_bias) h += model.b1(model.params(), j);
        if (h.cwiseAbs().minCoeff() < margin) ok = false;
      }
    if (ok) X.col(kept++) = x;
  }
  return X;
}

double loss_of(const MoeModel<double>& model, const MatD& X, const MatD& T, const std::vector<int>* oracle) {
  return mse_loss<double>(evaluate(model, X, oracle), T, nullptr);
}

struct Block {
  std::string name;
  std::vector<std::int64_t> index;
};

/// The parameter blocks of a model, by type (router W, router b, W1, b1, W2, b2) over all experts.
std::vector<Block> blocks_of(const MoeModel<double>& model) {
  const MoeShape& s = model.shape();
  const ParamLayout& l = model.layout();
  std::vector<Block> b;
  if (s.has_router()) {
    b.push_back({"router W", {}});
    for (std::int64_t p = l.router_w; p < l.router_w + static_cast<std::int64_t>(s.m) * s.d; ++p) b.back().index.push_back(p);
    if (s.router_bias) {
      b.push_back({"router b", {}});
      for (std::int64_t p = l.router_b; p < l.router_b + s.m; ++p) b.back().index.push_back(p);
    }
  }
  const char* names[] = {"expert W1", "expert b1", "expert W2", "expert b2"};
  const std::int64_t lo[] = {l.w1, l.b1, l.w2, l.b2};
  const std::int64_t hi[] = {l.b1, l.w2, l.b2, l.expert_size};
  for (int t = 0; t < 4; ++t) {
    if (hi[t] == lo[t]) continue;
    b.push_back({names[t], {}});
    for (int j = 0; j < s.m; ++j)
      for (std::int64_t p = lo[t]; p < hi[t]; ++p) b.back().index.push_back(l.expert(j) + p);
  }
  return b;
}

struct GradCase {
  Weighting weighting;
  ExpertKind expert;
  bool expert_bias, router_bias;
  int m, k, w, d, d_out;
};

}  // namespace

TEST_CASE("hand-written backward matches central finite differences for every parameter type and weighting", "[moe][grad]") {
  const std::vector<GradCase> cases = {
      {Weighting::softmax, ExpertKind::mlp, true, true, 5, 2, 3, 4, 3},
      {Weighting::softmax, ExpertKind::mlp, false, false, 6, 3, 4, 5, 5},
      {Weighting::softmax, ExpertKind::linear, true, true, 4, 2, 1, 3, 2},
      {Weighting::equal, ExpertKind::mlp, true, true, 5, 2, 3, 4, 3},
      {Weighting::equal, ExpertKind::linear, true, false, 4, 3, 1, 3, 2},
      {Weighting::oracle, ExpertKind::mlp, true, false, 3, 1, 3, 4, 3},
      {Weighting::oracle, ExpertKind::linear, true, false, 3, 1, 1, 4, 2},
      {Weighting::softmax, ExpertKind::mlp, true, true, 1, 1, 5, 4, 3},  // m = 1: the dense network
  };
  double worst = 0.0;
  std::string worst_where;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const GradCase& gc = cases[ci];
    MoeShape s;
    s.m = gc.m, s.k = gc.k, s.w = gc.w, s.d = gc.d, s.d_out = gc.d_out, s.expert = gc.expert, s.expert_bias = gc.expert_bias,
    s.router_bias = gc.router_bias, s.weighting = gc.weighting;
    MoeModel<double> model(s);
    init_pytorch(model, 100 + ci);
    // Bigger router weights make the softmax weights far from uniform (a stronger test).
    if (s.has_router()) model.router_w(model.params()) *= 3.0;
    const int n = 16;
    // Margin 1e-3 against a step of 1e-6 times |x| <= 10: no routing or ReLU switch inside a difference.
    const MatD X = inputs_away_from_ties(model, n, 1e-3, 7 + ci);
    const RandomStream rs(11 + ci, StreamTag::property_test, 2);
    MatD T(s.d_out, n);
    for (Eigen::Index i = 0; i < T.size(); ++i) T.data()[i] = rs.normal(static_cast<std::uint64_t>(i));
    std::vector<int> oracle(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) oracle[static_cast<std::size_t>(i)] = i % s.m;
    const std::vector<int>* orc = s.weighting == Weighting::oracle ? &oracle : nullptr;

    ForwardCache<double> cache;
    MatD Y, dY;
    forward(model, X, orc, cache, Y);
    (void)mse_loss<double>(Y, T, &dY);
    VecD grad;
    backward(model, cache, dY, grad);

    // Central differences, step 1e-6: truncation O(h^2 L''') ~ 1e-12 (the loss is quadratic in each
    // expert layer and smooth in the logits), rounding ~ eps L / h ~ 1e-10 absolute.
    const double h = 1e-6;
    for (const Block& b : blocks_of(model)) {
      double num = 0.0, den = 0.0;
      for (std::int64_t p : b.index) {
        MoeModel<double> plus = model, minus = model;
        plus.params()[p] += h;
        minus.params()[p] -= h;
        const double fd = (loss_of(plus, X, T, orc) - loss_of(minus, X, T, orc)) / (2 * h);
        num += (fd - grad[p]) * (fd - grad[p]);
        den += grad[p] * grad[p];
      }
      const bool router_constant = (b.name.rfind("router", 0) == 0) && s.weighting != Weighting::softmax;
      if (router_constant) {
        // Equal and oracle weights do not depend on the router: gradient exactly 0, FD ~ 0.
        INFO(s.describe() << " " << b.name);
        CHECK(den == 0.0);
        CHECK(std::sqrt(num) < 1e-8);
        continue;
      }
      const double rel = std::sqrt(num / den);
      INFO(s.describe() << " " << b.name << ": relative error " << rel << " (|grad| = " << std::sqrt(den) << ")");
      CHECK(den > 0.0);
      CHECK(rel <= 1e-6);
      if (rel > worst) worst = rel, worst_where = s.describe() + " " + b.name;
    }
  }
  WARN(fmt::format("worst relative gradient error {:.3g} ({})", worst, worst_where));
}

TEST_CASE("forward computes only the active experts and equals the all-experts reference", "[moe]") {
  for (Weighting wt : {Weighting::softmax, Weighting::equal, Weighting::oracle})
    for (ExpertKind ek : {ExpertKind::mlp, ExpertKind::linear}) {
      MoeShape s;
      s.m = wt == Weighting::oracle ? 4 : 8, s.k = wt == Weighting::oracle ? 1 : 3, s.w = 6, s.d = 7, s.d_out = 5, s.expert = ek,
      s.expert_bias = true, s.router_bias = true, s.weighting = wt;
      MoeModel<double> model(s);
      init_pytorch(model, 5);
      const int n = 300;
      const RandomStream rs(3, StreamTag::property_test, 0);
      MatD X(s.d, n);
      for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rs.normal(static_cast<std::uint64_t>(i));
      std::vector<int> oracle(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) oracle[static_cast<std::size_t>(i)] = (i * 7) % s.m;
      const std::vector<int>* orc = wt == Weighting::oracle ? &oracle : nullptr;
      ForwardCache<double> cache;
      MatD Y;
      forward(model, X, orc, cache, Y);
      std::size_t routed = 0;
      for (const auto& g : cache.members) routed += g.size();
      CHECK(routed == static_cast<std::size_t>(n) * s.k);  // n k expert evaluations, not n m
      const MatD ref = naive_forward(model, X, orc);
      // Same operations in another order: agreement to a few ulps of the output scale.
      INFO(s.describe());
      CHECK((Y - ref).cwiseAbs().maxCoeff() <= 1e-13 * std::max(1.0, ref.cwiseAbs().maxCoeff()));
    }
}

TEST_CASE("forward and backward are bit-identical for 1 and 2 threads", "[moe][determinism]") {
  MoeShape s;
  // Large enough (2 n k |expert| ~ 2e7 flops) that the expert loop really runs in parallel.
  s.m = 8, s.k = 2, s.w = 32, s.d = 12, s.d_out = 12, s.router_bias = true, s.expert_bias = true;
  MoeModel<float> model(s);
  init_pytorch(model, 9);
  const RandomStream rs(4, StreamTag::property_test, 0);
  MoeModel<float>::Mat X(s.d, 8000), T(s.d_out, 8000);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = static_cast<float>(rs.normal(static_cast<std::uint64_t>(i)));
  for (Eigen::Index i = 0; i < T.size(); ++i) T.data()[i] = static_cast<float>(rs.normal(static_cast<std::uint64_t>(i + X.size())));
  auto run = [&](int threads) {
    set_num_threads(threads);
    ForwardCache<float> cache;
    MoeModel<float>::Mat Y, dY;
    forward(model, X, nullptr, cache, Y);
    (void)mse_loss<float>(Y, T, &dY);
    MoeModel<float>::Vec g;
    backward(model, cache, dY, g);
    set_num_threads(0);
    return std::pair(Y, g);
  };
  const auto [y1, g1] = run(1);
  const auto [y2, g2] = run(2);
  CHECK(std::equal(y1.data(), y1.data() + y1.size(), y2.data()));
  CHECK(std::equal(g1.data(), g1.data() + g1.size(), g2.data()));
}

TEST_CASE("PyTorch-style initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) per layer, float and double agree", "[moe][init]") {
  MoeShape s;
  s.m = 16, s.k = 4, s.w = 40, s.d = 64, s.d_out = 64, s.router_bias = true, s.expert_bias = true;
  MoeModel<double> md(s);
  MoeModel<float> mf(s);
  init_pytorch(md, 17);
  init_pytorch(mf, 17);
  for (Eigen::Index i = 0; i < md.params().size(); ++i) REQUIRE(static_cast<float>(md.params()[i]) == mf.params()[i]);
  auto check_block = [](const Eigen::Ref<const VecD>& v, int fan_in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    CHECK(v.cwiseAbs().maxCoeff() <= bound);
    // U(-a, a): mean 0, variance a^2 / 3; 5 sigma on N draws (var of x^2 is 4 a^4 / 45).
    const double N = static_cast<double>(v.size());
    CHECK(std::abs(v.mean()) <= 5.0 * bound / std::sqrt(3.0 * N));
    CHECK(std::abs(v.squaredNorm() / N - bound * bound / 3.0) <= 5.0 * bound * bound * std::sqrt(4.0 / 45.0 / N));
  };
  VecD w1(0), w2(0);
  for (int j = 0; j < s.m; ++j) {
    const auto a = md.w1(md.params(), j).reshaped();
    const auto b = md.w2(md.params(), j).reshaped();
    w1.conservativeResize(w1.size() + a.size());
    w1.tail(a.size()) = a;
    w2.conservativeResize(w2.size() + b.size());
    w2.tail(b.size()) = b;
  }
  check_block(md.router_w(md.params()).reshaped(), s.d);
  check_block(w1, s.d);
  check_block(w2, s.w);
}

TEST_CASE("the dense baseline has the largest width not exceeding the MoE's parameter count", "[moe]") {
  MoeShape s;
  s.m = 16, s.k = 8, s.w = 32, s.d = 256, s.d_out = 256;
  const MoeShape dense = dense_baseline(s);
  CHECK(dense.m == 1);
  CHECK_FALSE(dense.has_router());
  CHECK(parameter_count(s) == 2 * 16 * 32 * 256 + 16 * 256);  // granularity Remark 2.2 + the router's m d
  CHECK(parameter_count(dense) <= parameter_count(s));
  MoeShape wider = dense;
  wider.w += 1;
  CHECK(parameter_count(wider) > parameter_count(s));
  CHECK(active_parameter_count(s) == 2 * 8 * 32 * 256 + 16 * 256);
  CHECK(s.name() == "16e8a");
}
