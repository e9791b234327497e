// The MoE layer: hand-written backward against central finite differences (every parameter type,
// every weighting mode), the forward pass against a naive all-experts reference, thread-count
// invariance, the initialisation law and the dense baseline's parameter count.
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
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
      // Softmax over all m logits, straight from the definition (Switch's p_i(x)).
      VecD p = (z.array() - z.maxCoeff()).exp();
      p /= p.sum();
      std::size_t kept = static_cast<std::size_t>(s.k);
      if (s.routing == Routing::top_p) {
        double mass = 0.0;
        kept = 0;
        while (kept < static_cast<std::size_t>(s.k) && (kept == 0 || mass < s.top_p)) mass += p[idx[kept++]];
      } else if (s.routing == Routing::threshold) {
        kept = 1;
        while (kept < static_cast<std::size_t>(s.k) && p[idx[kept]] >= s.threshold) ++kept;
      }
      sel.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kept));
      if (s.weighting == Weighting::equal) {
        for (std::size_t r = 0; r < kept; ++r) g.push_back(1.0 / s.k);
      } else if (s.gate == Gate::sigmoid) {
        for (int j : sel) g.push_back(1.0 / (1.0 + std::exp(-z[j])));
      } else if (s.gate == Gate::softmax_all) {
        for (int j : sel) g.push_back(p[j]);
      } else {
        double sum = 0;
        for (int j : sel) g.push_back(std::exp(z[j])), sum += g.back();
        for (double& x : g) x /= sum;
      }
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
      // Adaptive routing switches where a prefix mass crosses top_p or a probability crosses the
      // threshold: keep those `margin` away too (probabilities move by O(h |x|) under a step h).
      if (s.adaptive()) {
        std::vector<double> p(zs.size());
        double sum = 0.0;
        for (std::size_t j = 0; j < zs.size(); ++j) sum += (p[j] = std::exp(zs[j] - zs[0]));
        double mass = 0.0;
        for (std::size_t j = 0; j < zs.size(); ++j) {
          p[j] /= sum;
          mass += p[j];
          if (s.routing == Routing::top_p && j + 1 < zs.size() && std::abs(mass - s.top_p) < margin) ok = false;
          if (s.routing == Routing::threshold && std::abs(p[j] - s.threshold) < margin) ok = false;
        }
      }
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

/// Per parameter block: the squared distance between the central finite-difference gradient (step
/// h) of the batch loss and `grad`, and |grad|^2 (num, den).
struct FdError {
  std::string name;
  double num = 0.0, den = 0.0;
};
std::vector<FdError> fd_errors(const MoeModel<double>& model, const MatD& X, const MatD& T, const std::vector<int>* orc, const VecD& grad,
                               double h) {
  std::vector<FdError> out;
  for (const Block& b : blocks_of(model)) {
    FdError e{b.name};
    for (std::int64_t p : b.index) {
      MoeModel<double> plus = model, minus = model;
      plus.params()[p] += h;
      minus.params()[p] -= h;
      const double fd = (loss_of(plus, X, T, orc) - loss_of(minus, X, T, orc)) / (2 * h);
      e.num += (fd - grad[p]) * (fd - grad[p]);
      e.den += grad[p] * grad[p];
    }
    out.push_back(e);
  }
  return out;
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
    for (const FdError& b : fd_errors(model, X, T, orc, grad, 1e-6)) {
      const double num = b.num, den = b.den;
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

namespace {

struct GateCase {
  Gate gate;
  Routing routing;
  double top_p, threshold;
  ExpertKind expert;
  bool router_bias;
  int m, k;
};

}  // namespace

TEST_CASE("gates and adaptive routing: backward matches central finite differences", "[moe][grad][gates]") {
  // Every gate under top-k (k = 1: the Switch case where softmax_all must train the router; k > 1),
  // and top-p / threshold routing (softmax_all weights, variable k per input, cap k = m or below).
  const std::vector<GateCase> cases = {
      {Gate::softmax_all, Routing::top_k, 1.0, 0.0, ExpertKind::mlp, true, 5, 1},
      {Gate::softmax_all, Routing::top_k, 1.0, 0.0, ExpertKind::mlp, false, 6, 3},
      {Gate::softmax_all, Routing::top_k, 1.0, 0.0, ExpertKind::linear, true, 4, 4},
      {Gate::sigmoid, Routing::top_k, 1.0, 0.0, ExpertKind::mlp, true, 5, 1},
      {Gate::sigmoid, Routing::top_k, 1.0, 0.0, ExpertKind::mlp, true, 6, 2},
      {Gate::sigmoid, Routing::top_k, 1.0, 0.0, ExpertKind::linear, false, 4, 3},
      {Gate::softmax_all, Routing::top_p, 0.6, 0.0, ExpertKind::mlp, true, 6, 6},
      {Gate::softmax_all, Routing::top_p, 0.9, 0.0, ExpertKind::linear, false, 5, 3},
      {Gate::softmax_all, Routing::threshold, 1.0, 0.15, ExpertKind::mlp, true, 6, 6},
      {Gate::softmax_all, Routing::threshold, 1.0, 0.25, ExpertKind::linear, true, 5, 3},
  };
  double worst = 0.0;
  std::string worst_where;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const GateCase& gc = cases[ci];
    MoeShape s;
    s.m = gc.m, s.k = gc.k, s.w = 3, s.d = 4, s.d_out = 3, s.expert = gc.expert, s.expert_bias = true, s.router_bias = gc.router_bias;
    s.gate = gc.gate, s.routing = gc.routing, s.top_p = gc.top_p, s.threshold = gc.threshold;
    MoeModel<double> model(s);
    init_pytorch(model, 300 + ci);
    // Router weights x3: probabilities far from uniform, so adaptive k varies between inputs.
    model.router_w(model.params()) *= 3.0;
    const int n = 24;
    // Margin 1e-3 (in logits and in probability) against a step of 1e-6 times |x| <= 10: no
    // routing, selection or ReLU switch inside a difference.
    const MatD X = inputs_away_from_ties(model, n, 1e-3, 40 + ci);
    const RandomStream rs(50 + ci, StreamTag::property_test, 2);
    MatD T(s.d_out, n);
    for (Eigen::Index i = 0; i < T.size(); ++i) T.data()[i] = rs.normal(static_cast<std::uint64_t>(i));

    ForwardCache<double> cache;
    MatD Y, dY;
    forward(model, X, nullptr, cache, Y);
    INFO(s.describe());
    // The forward pass against the definition (all experts, then the selected gathered).
    const MatD ref = naive_forward(model, X, nullptr);
    CHECK((Y - ref).cwiseAbs().maxCoeff() <= 1e-13 * std::max(1.0, ref.cwiseAbs().maxCoeff()));
    if (s.adaptive()) {
      std::set<int> ks;
      for (int i = 0; i < n; ++i) ks.insert(cache.slot_begin[static_cast<std::size_t>(i) + 1] - cache.slot_begin[static_cast<std::size_t>(i)]);
      INFO("mean k " << cache.mean_k());
      CHECK(ks.size() >= 2);  // the case exercises a per-input k (else it would be top-k in disguise)
      CHECK(*ks.begin() >= 1);
      CHECK(*ks.rbegin() <= s.k);
    } else {
      CHECK(cache.mean_k() == s.k);
    }
    (void)mse_loss<double>(Y, T, &dY);
    VecD grad;
    backward(model, cache, dY, grad);
    // Central differences, step 1e-6: truncation O(h^2 L^(3)) ~ 1e-12 (the loss is smooth in the
    // logits through exp / sigmoid and quadratic in each expert layer), rounding ~ eps L / h ~ 1e-10
    // absolute; relative 1e-6 per block leaves 3+ orders of magnitude for both.
    for (const FdError& b : fd_errors(model, X, T, nullptr, grad, 1e-6)) {
      const double num = b.num, den = b.den;
      const double rel = std::sqrt(num / den);
      INFO(b.name << ": relative error " << rel << " (|grad| = " << std::sqrt(den) << ")");
      CHECK(den > 0.0);  // every gate here trains the router, top-1 included
      CHECK(rel <= 1e-6);
      if (rel > worst) worst = rel, worst_where = s.describe() + " " + b.name;
    }
  }
  WARN(fmt::format("worst relative gradient error (gates, adaptive) {:.3g} ({})", worst, worst_where));
}

TEST_CASE("top-1 softmax over the selected logits leaves the router untrained, the Switch and sigmoid gates do not", "[moe][gates]") {
  MoeShape s;
  s.m = 4, s.k = 1, s.w = 3, s.d = 5, s.d_out = 2;
  for (Gate g : {Gate::softmax_selected, Gate::softmax_all, Gate::sigmoid}) {
    s.gate = g;
    MoeModel<double> model(s);
    init_pytorch(model, 8);
    const RandomStream rs(9, StreamTag::property_test, 0);
    MatD X(s.d, 32), T(s.d_out, 32);
    for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rs.normal(static_cast<std::uint64_t>(i));
    for (Eigen::Index i = 0; i < T.size(); ++i) T.data()[i] = rs.normal(static_cast<std::uint64_t>(1000 + i));
    ForwardCache<double> cache;
    MatD Y, dY;
    forward(model, X, nullptr, cache, Y);
    (void)mse_loss<double>(Y, T, &dY);
    VecD grad;
    backward(model, cache, dY, grad);
    const double router = grad.head(model.layout().router_size).norm();
    INFO(to_string(g) << ": |router gradient| = " << router);
    if (g == Gate::softmax_selected) CHECK(router == 0.0);  // g = 1 identically
    else CHECK(router > 1e-3);
  }
}

TEST_CASE("adaptive routing: p = 1 or threshold 0 selects every expert, p -> 0 or threshold 1 only the top one", "[moe][gates]") {
  MoeShape s;
  s.m = 6, s.k = 6, s.w = 3, s.d = 4, s.d_out = 2, s.gate = Gate::softmax_all;
  const RandomStream rs(12, StreamTag::property_test, 0);
  MatD X(s.d, 50);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rs.normal(static_cast<std::uint64_t>(i));
  auto mean_k = [&](Routing r, double p, double tau) {
    MoeShape t = s;
    t.routing = r, t.top_p = p, t.threshold = tau;
    MoeModel<double> model(t);
    init_pytorch(model, 3);
    ForwardCache<double> cache;
    MatD Y;
    forward(model, X, nullptr, cache, Y);
    return cache.mean_k();
  };
  // p = 1: the mass of the first m - 1 experts falls short of 1 by p_min (here >> rounding), so all m
  // are kept; a tiny p keeps the top expert only.
  CHECK(mean_k(Routing::top_p, 1.0, 0.0) == 6.0);
  CHECK(mean_k(Routing::top_p, 1e-9, 0.0) == 1.0);
  CHECK(mean_k(Routing::threshold, 1.0, 0.0) == 6.0);
  CHECK(mean_k(Routing::threshold, 1.0, 1.0) == 1.0);
  const double mid = mean_k(Routing::top_p, 0.5, 0.0);
  CHECK(mid > 1.0);
  CHECK(mid < 6.0);
}

TEST_CASE("the shape refuses adaptive routing without the softmax-over-all gate and out-of-range p / threshold", "[moe][gates]") {
  MoeShape s;
  s.m = 4, s.k = 4;
  s.routing = Routing::top_p;
  CHECK_THROWS(s.validate());  // gate softmax_selected: the selection's probabilities are not its weights
  s.gate = Gate::softmax_all;
  CHECK_NOTHROW(s.validate());
  s.top_p = 0.0;
  CHECK_THROWS(s.validate());
  s.routing = Routing::threshold, s.threshold = 1.5;
  CHECK_THROWS(s.validate());
  // The device path computes the default gate only.
  MoeShape d;
  CHECK_NOTHROW(d.expect_device_gate("test"));
  d.gate = Gate::sigmoid;
  CHECK_THROWS_AS(d.expect_device_gate("test"), std::invalid_argument);
  Gate g{};
  CHECK(parse_gate("softmax_all", g));
  CHECK(g == Gate::softmax_all);
  CHECK_FALSE(parse_gate("softmax", g));
}
