// The transformer block (attention + MoE FFN, moe/transformer.hpp): the hand-written backward of
// every parameter type and of the input against central finite differences for softmax, linear
// (RMSHead) and HYLA attention over several shapes (T = 1 and causal masks included); controls: a
// backward without the softmax Jacobian's centring and one without RMSHead's projection, computed
// here from the workspace, fail the same comparison; the MoE's input gradient on its own; float
// against double; a planted sequence task that training solves (double and float), with a frozen
// model and a model without attention as controls.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/moe/transformer.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace transformer_test {

using namespace moelab;
using namespace moelab::moe;

namespace {

using MatD = TransformerBlock<double>::Mat;
using VecD = TransformerBlock<double>::Vec;

MatD normal_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, std::uint64_t trial) {
  const RandomStream rs(seed, StreamTag::property_test, trial);
  MatD X(rows, cols);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rs.normal(static_cast<std::uint64_t>(i));
  return X;
}

/// The smallest distance of the forward pass from a switch of a piecewise piece: the MoE's top-k
/// (gap between the k-th and (k+1)-th logit), its ReLUs (|pre-activation|), HYLA's ReLU (|z| on
/// visible pairs); and, for RMSHead, the smallest denominator r on visible pairs (r near
/// sqrt(eps) makes a_h = s_h / r steep, so a finite difference there measures curvature).
struct Margins {
  double kink = 1e300;
  double rms = 1e300;
};

Margins margins_of(const TransformerBlock<double>& block, const BlockCache<double>& c) {
  Margins m;
  const MoeShape& f = block.ffn().shape();
  if (f.has_router() && f.k < f.m) {
    for (Eigen::Index i = 0; i < c.moe.logits.cols(); ++i) {
      std::vector<double> z(c.moe.logits.col(i).data(), c.moe.logits.col(i).data() + f.m);
      std::sort(z.begin(), z.end(), std::greater<>());
      m.kink = std::min(m.kink, z[static_cast<std::size_t>(f.k - 1)] - z[static_cast<std::size_t>(f.k)]);
    }
  }
  if (f.expert == ExpertKind::mlp)
    for (const auto& pre : c.moe.pre)
      if (pre.size() > 0) m.kink = std::min(m.kink, pre.cwiseAbs().minCoeff());
  const attn::Dims& a = c.dims;
  for (int s = 0; s < a.n; ++s)
    for (int q = 0; q < a.T; ++q)
      for (int k = 0; k < a.keys(q); ++k) {
        if (a.kind != attn::Kind::softmax) m.rms = std::min(m.rms, c.rnorm[a.pair(s, q, k)]);
        if (a.kind == attn::Kind::hyla)
          for (int j = 0; j < a.dh; ++j) m.kink = std::min(m.kink, std::abs(c.Z[a.pair(s, q, k) * a.dh + j]));
      }
  return m;
}

struct Block {
  std::string name;
  int where;  // 0 attention vector, 1 MoE vector, 2 input
  std::vector<std::int64_t> index;
};

std::vector<Block> blocks_of(const TransformerBlock<double>& b, Eigen::Index input_size) {
  std::vector<Block> out;
  auto range = [](std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> v;
    for (std::int64_t p = lo; p < hi; ++p) v.push_back(p);
    return v;
  };
  out.push_back({"Wq", 0, range(b.wq_offset(), b.wk_offset())});
  out.push_back({"Wk", 0, range(b.wk_offset(), b.wv_offset())});
  out.push_back({"Wv", 0, range(b.wv_offset(), b.wo_offset())});
  out.push_back({"Wo", 0, range(b.wo_offset(), b.attention_size())});
  if (b.shape().norm == BlockNorm::layernorm) {
    const int d = b.shape().d;
    out.push_back({"LN1 gain", 0, range(b.norm_offset(0), b.norm_offset(0) + d)});
    out.push_back({"LN1 bias", 0, range(b.norm_offset(0) + d, b.norm_offset(1))});
    out.push_back({"LN2 gain", 0, range(b.norm_offset(1), b.norm_offset(1) + d)});
    out.push_back({"LN2 bias", 0, range(b.norm_offset(1) + d, b.param_size())});
  }
  const MoeShape& s = b.ffn().shape();
  const ParamLayout& l = b.ffn().layout();
  if (s.has_router()) {
    out.push_back({"router W", 1, range(l.router_w, l.router_w + static_cast<std::int64_t>(s.m) * s.d)});
    if (s.router_bias) out.push_back({"router b", 1, range(l.router_b, l.router_b + s.m)});
  }
  const char* names[] = {"expert W1", "expert b1", "expert W2", "expert b2"};
  const std::int64_t lo[] = {l.w1, l.b1, l.w2, l.b2};
  const std::int64_t hi[] = {l.b1, l.w2, l.b2, l.expert_size};
  for (int t = 0; t < 4; ++t) {
    if (hi[t] == lo[t]) continue;
    Block blk{names[t], 1, {}};
    for (int j = 0; j < s.m; ++j)
      for (std::int64_t p = lo[t]; p < hi[t]; ++p) blk.index.push_back(l.expert(j) + p);
    out.push_back(blk);
  }
  out.push_back({"input X", 2, range(0, input_size)});
  return out;
}

struct GradCase {
  AttentionKind attention;
  bool causal;
  int d, heads, d_head, T, n;
  int m, k, w;
  Weighting weighting;
  ExpertKind expert;
  bool bias;
  BlockNorm norm = BlockNorm::none;
};

BlockShape shape_of(const GradCase& gc) {
  BlockShape s;
  s.d = gc.d, s.heads = gc.heads, s.d_head = gc.d_head, s.attention = gc.attention, s.causal = gc.causal;
  s.ffn.m = gc.m, s.ffn.k = gc.k, s.ffn.w = gc.w, s.ffn.weighting = gc.weighting, s.ffn.expert = gc.expert;
  s.ffn.expert_bias = gc.bias, s.ffn.router_bias = gc.bias;
  s.norm = gc.norm;
  return s;
}

/// A block, an input and a target whose forward pass is at least 1e-4 away from every switch
/// (seeds tried in order; the margin against a step of 1e-6 times a sensitivity of O(10)) and,
/// for RMSHead, r >= 0.05 on visible pairs.
struct Problem {
  TransformerBlock<double> block;
  MatD X, target;
};

Problem problem_for(const GradCase& gc, std::uint64_t seed) {
  for (std::uint64_t attempt = 0; attempt < 200; ++attempt) {
    Problem p{TransformerBlock<double>(shape_of(gc)), {}, {}};
    init_pytorch(p.block, seed * 1000 + attempt);
    // Larger query/key weights make the attention far from uniform (a stronger test).
    p.block.params().head(p.block.wv_offset()) *= 2.0;
    // Norm gains and biases away from their initial 1 and 0 (a general point).
    if (gc.norm == BlockNorm::layernorm) {
      const MatD jitter = normal_matrix(4 * gc.d, 1, seed, 1000 + attempt);
      for (int t = 0; t < 2; ++t)
        for (int j = 0; j < gc.d; ++j) {
          p.block.params()[p.block.norm_offset(t) + j] += 0.3 * jitter(2 * t * gc.d + j, 0);
          p.block.params()[p.block.norm_offset(t) + gc.d + j] += 0.3 * jitter((2 * t + 1) * gc.d + j, 0);
        }
    }
    if (p.block.ffn().shape().has_router()) p.block.ffn().router_w(p.block.ffn().params()) *= 3.0;
    p.X = normal_matrix(gc.d, static_cast<Eigen::Index>(gc.T) * gc.n, seed, 2 * attempt);
    p.target = normal_matrix(gc.d, static_cast<Eigen::Index>(gc.T) * gc.n, seed, 2 * attempt + 1);
    BlockCache<double> c;
    MatD Y;
    block_forward(p.block, p.X, gc.T, c, Y);
    const Margins m = margins_of(p.block, c);
    if (m.kink >= 1e-4 && m.rms >= 0.05) return p;
  }
  FAIL("no input away from switches in 200 attempts");
  return {TransformerBlock<double>(shape_of(gc)), {}, {}};
}

double loss_of(const TransformerBlock<double>& block, const MatD& X, int T, const MatD& target) {
  BlockCache<double> c;
  MatD Y;
  block_forward(block, X, T, c, Y);
  return mse_loss<double>(Y, target, nullptr);
}

/// Central difference of the loss in one coordinate.
double central_difference(const Problem& p, int T, int where, std::int64_t index, double h) {
  TransformerBlock<double> plus = p.block, minus = p.block;
  MatD Xp = p.X, Xm = p.X;
  if (where == 0) plus.params()[index] += h, minus.params()[index] -= h;
  if (where == 1) plus.ffn().params()[index] += h, minus.ffn().params()[index] -= h;
  if (where == 2) Xp.data()[index] += h, Xm.data()[index] -= h;
  return (loss_of(plus, Xp, T, p.target) - loss_of(minus, Xm, T, p.target)) / (2 * h);
}

/// ||fd - g|| / ||g|| over one block of coordinates (and ||g||, ||fd - g||).
struct BlockError {
  double rel, grad_norm, diff_norm;
};

BlockError compare(const Problem& p, int T, const Block& b, const std::function<double(std::int64_t)>& grad_at, double h) {
  double num = 0.0, den = 0.0;
  for (std::int64_t i : b.index) {
    const double fd = central_difference(p, T, b.where, i, h), g = grad_at(i);
    num += (fd - g) * (fd - g);
    den += g * g;
  }
  return {den > 0 ? std::sqrt(num / den) : 0.0, std::sqrt(den), std::sqrt(num)};
}

const std::vector<GradCase>& grad_cases() {
  static const std::vector<GradCase> cases = {
      // attention, causal, d, H, dh, T, n, m, k, w, weighting, expert, biases
      {AttentionKind::softmax, false, 5, 2, 3, 4, 3, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true},
      {AttentionKind::softmax, true, 4, 1, 4, 5, 2, 3, 2, 5, Weighting::softmax, ExpertKind::mlp, false},
      {AttentionKind::softmax, false, 4, 2, 2, 1, 4, 4, 2, 5, Weighting::softmax, ExpertKind::mlp, true},  // T = 1
      {AttentionKind::linear, false, 5, 3, 2, 4, 3, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true},
      {AttentionKind::linear, true, 4, 2, 3, 3, 2, 3, 3, 4, Weighting::equal, ExpertKind::linear, true},
      {AttentionKind::linear, false, 4, 2, 2, 1, 4, 4, 2, 5, Weighting::softmax, ExpertKind::mlp, true},  // T = 1
      {AttentionKind::hyla, false, 5, 2, 3, 4, 3, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true},
      {AttentionKind::hyla, true, 4, 3, 2, 5, 2, 1, 1, 6, Weighting::softmax, ExpertKind::mlp, false},  // m = 1: a dense FFN
      {AttentionKind::hyla, false, 4, 2, 2, 1, 4, 4, 2, 5, Weighting::softmax, ExpertKind::mlp, true},  // T = 1
      // Pre-norm LayerNorm before the attention and before the MoE.
      {AttentionKind::softmax, true, 5, 2, 3, 4, 3, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true, BlockNorm::layernorm},
      {AttentionKind::linear, false, 5, 3, 2, 3, 3, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true, BlockNorm::layernorm},
      {AttentionKind::hyla, false, 5, 2, 3, 4, 2, 4, 2, 6, Weighting::softmax, ExpertKind::mlp, true, BlockNorm::layernorm},
      {AttentionKind::hyla, false, 4, 2, 2, 1, 4, 4, 2, 5, Weighting::equal, ExpertKind::mlp, true, BlockNorm::layernorm},  // T = 1
  };
  return cases;
}

std::string describe(const GradCase& gc) {
  return fmt::format("{}{} d={} H={} dh={} T={} n={} ffn {}e{}a w={} {} {} norm {}", to_string(gc.attention), gc.causal ? " causal" : "",
                     gc.d, gc.heads, gc.d_head, gc.T, gc.n, gc.m, gc.k, gc.w, to_string(gc.weighting), to_string(gc.expert),
                     to_string(gc.norm));
}

}  // namespace

TEST_CASE("transformer block backward matches central finite differences for every parameter and the input", "[moe][transformer][grad]") {
  double worst = 0.0;
  std::string worst_where;
  for (std::size_t ci = 0; ci < grad_cases().size(); ++ci) {
    const GradCase& gc = grad_cases()[ci];
    const Problem p = problem_for(gc, 31 + ci);
    BlockCache<double> c;
    BlockWorkspace<double> ws;
    BlockGradient<double> g;
    MatD Y, dY;
    block_forward(p.block, p.X, gc.T, c, Y);
    (void)mse_loss<double>(Y, p.target, &dY);
    block_backward(p.block, c, dY, ws, g);
    REQUIRE(g.params.size() == p.block.param_size());
    REQUIRE(g.ffn.size() == p.block.ffn().params().size());
    REQUIRE(g.input.rows() == p.X.rows());
    REQUIRE(g.input.cols() == p.X.cols());
    // Central differences, step 1e-6: truncation O(h^2 L''') ~ 1e-12 relative (every piece is
    // smooth away from the switches that problem_for keeps 1e-4 away, and RMSHead's r >= 0.05);
    // rounding ~ eps L / h ~ 1e-10 absolute against gradients of O(1e-2 .. 1): a relative error
    // of 1e-6 leaves two orders of margin and is far below any wrong term (the controls: O(1)).
    const double h = 1e-6;
    for (const Block& b : blocks_of(p.block, p.X.size())) {
      const auto grad_at = [&](std::int64_t i) {
        return b.where == 0 ? g.params[i] : b.where == 1 ? g.ffn[i] : g.input.data()[i];
      };
      const BlockError e = compare(p, gc.T, b, grad_at, h);
      INFO(describe(gc) << " " << b.name << ": relative error " << e.rel << " (|grad| = " << e.grad_norm << ")");
      const bool constant = gc.attention == AttentionKind::softmax && gc.T == 1 && (b.name == "Wq" || b.name == "Wk");
      const bool equal_router = gc.weighting == Weighting::equal && b.name.rfind("router", 0) == 0;
      if (constant || equal_router) {
        // One key: softmax weights are identically 1, so queries and keys get gradient 0 exactly;
        // equal weights do not depend on the router. The finite difference must be ~0 too.
        CHECK(e.grad_norm == 0.0);
        CHECK(e.diff_norm < 1e-8);
        continue;
      }
      CHECK(e.grad_norm > 0.0);
      CHECK(e.rel <= 1e-6);
      if (e.rel > worst) worst = e.rel, worst_where = describe(gc) + " " + b.name;
    }
  }
  WARN(fmt::format("worst relative gradient error {:.3g} ({})", worst, worst_where));
}

namespace {

/// dWq recomputed here from the workspace's dA (the gradient of the attention weights) with a score
/// Jacobian given by `jacobian(a, s, h, q, dS)` (fills dS of one (s, h, q) row or, for RMSHead,
/// every head of (s, q)): dQ_h(q) = sum_k dS_hqk K_h(k) / sqrt(dh), dWq = dQ X'.
MatD wq_gradient_from(const TransformerBlock<double>& block, const BlockCache<double>& c, const BlockWorkspace<double>& ws,
                      bool centred) {
  const attn::Dims& a = c.dims;
  const int P = a.P();
  VecD dS = VecD::Zero(c.A.size());
  for (int s = 0; s < a.n; ++s)
    for (int q = 0; q < a.T; ++q)
      for (int k = 0; k < a.keys(q); ++k) {
        if (a.kind == attn::Kind::softmax) {
          for (int h = 0; h < a.H; ++h) {
            double mean = 0;
            for (int kk = 0; kk < a.keys(q); ++kk) mean += c.A[a.att(s, h, q, kk)] * ws.dA[a.att(s, h, q, kk)];
            dS[a.att(s, h, q, k)] = c.A[a.att(s, h, q, k)] * (ws.dA[a.att(s, h, q, k)] - (centred ? mean : 0.0));
          }
        } else {
          double mean = 0;
          for (int h = 0; h < a.H; ++h) mean += c.A[a.att(s, h, q, k)] * ws.dA[a.att(s, h, q, k)];
          mean /= a.H;
          for (int h = 0; h < a.H; ++h)
            dS[a.att(s, h, q, k)] = (ws.dA[a.att(s, h, q, k)] - (centred ? c.A[a.att(s, h, q, k)] * mean : 0.0)) / c.rnorm[a.pair(s, q, k)];
        }
      }
  MatD dQ = MatD::Zero(P, c.X.cols());
  for (int s = 0; s < a.n; ++s)
    for (int q = 0; q < a.T; ++q)
      for (int h = 0; h < a.H; ++h)
        for (int k = 0; k < a.keys(q); ++k)
          dQ.block(h * a.dh, a.col(s, q), a.dh, 1) +=
              dS[a.att(s, h, q, k)] / std::sqrt(static_cast<double>(a.dh)) * c.K.block(h * a.dh, a.col(s, k), a.dh, 1);
  (void)block;
  return dQ * c.N1.transpose();  // the attention's input: X, or LN1(X) with a pre-norm
}

}  // namespace

TEST_CASE("a backward without the softmax centring or the RMSHead projection fails the finite-difference comparison", "[moe][transformer][grad]") {
  // Controls for the comparison above: the same check on a deliberately wrong Wq gradient must
  // fail. The wrong gradients are rebuilt here from the workspace's dA; the same reconstruction
  // with the right Jacobian reproduces the library's gradient (so the failure is the Jacobian's).
  for (std::size_t ci : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{6}, std::size_t{9}, std::size_t{11}}) {
    const GradCase& gc = grad_cases()[ci];
    const Problem p = problem_for(gc, 31 + ci);
    BlockCache<double> c;
    BlockWorkspace<double> ws;
    BlockGradient<double> g;
    MatD Y, dY;
    block_forward(p.block, p.X, gc.T, c, Y);
    (void)mse_loss<double>(Y, p.target, &dY);
    block_backward(p.block, c, dY, ws, g);
    const MatD right = wq_gradient_from(p.block, c, ws, true);
    const MatD wrong = wq_gradient_from(p.block, c, ws, false);
    const auto lib = p.block.wq(g.params);
    INFO(describe(gc));
    // Same sums in another order: agreement to rounding of the gradient's scale.
    CHECK((right - lib).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, lib.cwiseAbs().maxCoeff()));
    const Block wq = blocks_of(p.block, p.X.size())[0];
    const BlockError e_wrong = compare(p, gc.T, wq, [&](std::int64_t i) { return wrong.data()[i]; }, 1e-6);
    const BlockError e_right = compare(p, gc.T, wq, [&](std::int64_t i) { return right.data()[i]; }, 1e-6);
    INFO("wrong Jacobian: relative error " << e_wrong.rel << ", right: " << e_right.rel);
    WARN(fmt::format("{}: Wq relative error {:.3g} with the right Jacobian, {:.3g} with the {} dropped", describe(gc), e_right.rel,
                     e_wrong.rel, gc.attention == AttentionKind::softmax ? "softmax centring" : "RMSHead projection"));
    CHECK(e_right.rel <= 1e-6);
    CHECK(e_wrong.rel > 1e-2);  // the test's bound is 1e-6: the wrong backward fails it by far
  }
}

TEST_CASE("the MoE layer's input gradient matches central finite differences", "[moe][transformer][grad]") {
  // The piece moe::backward does not give (it returns the parameter gradient only).
  struct Case {
    Weighting weighting;
    ExpertKind expert;
    int m, k;
    Gate gate = Gate::softmax_selected;
  };
  // Every gate (moe_model.hpp): softmax_all at k = 1 too, where it is the only softmax gate whose
  // router gets a gradient.
  for (const Case& cs : {Case{Weighting::softmax, ExpertKind::mlp, 5, 2}, Case{Weighting::softmax, ExpertKind::linear, 4, 3},
                         Case{Weighting::equal, ExpertKind::mlp, 4, 2}, Case{Weighting::softmax, ExpertKind::mlp, 1, 1},
                         Case{Weighting::softmax, ExpertKind::mlp, 5, 2, Gate::softmax_all},
                         Case{Weighting::softmax, ExpertKind::mlp, 4, 1, Gate::softmax_all},
                         Case{Weighting::softmax, ExpertKind::mlp, 5, 2, Gate::sigmoid}}) {
    MoeShape s;
    s.m = cs.m, s.k = cs.k, s.w = 5, s.d = 4, s.d_out = 3, s.expert = cs.expert, s.weighting = cs.weighting, s.gate = cs.gate;
    s.expert_bias = s.router_bias = true;
    MoeModel<double> model(s);
    bool found = false;
    for (std::uint64_t attempt = 0; attempt < 200 && !found; ++attempt) {
      init_pytorch(model, 500 + attempt);
      if (s.has_router()) model.router_w(model.params()) *= 3.0;
      const MatD X = normal_matrix(s.d, 12, 77, 2 * attempt), target = normal_matrix(s.d_out, 12, 77, 2 * attempt + 1);
      ForwardCache<double> c;
      MatD Y, dY;
      forward(model, X, nullptr, c, Y);
      // Away from switches (the block test's margin).
      double margin = 1e300;
      if (s.has_router() && s.k < s.m)
        for (Eigen::Index i = 0; i < X.cols(); ++i) {
          std::vector<double> z(c.logits.col(i).data(), c.logits.col(i).data() + s.m);
          std::sort(z.begin(), z.end(), std::greater<>());
          margin = std::min(margin, z[static_cast<std::size_t>(s.k - 1)] - z[static_cast<std::size_t>(s.k)]);
        }
      if (s.expert == ExpertKind::mlp)
        for (const auto& pre : c.pre)
          if (pre.size() > 0) margin = std::min(margin, pre.cwiseAbs().minCoeff());
      if (margin < 1e-4) continue;
      found = true;
      (void)mse_loss<double>(Y, target, &dY);
      MatD dX = MatD::Zero(s.d, X.cols());
      MoeInputScratch<double> scratch;
      moe_input_gradient(model, c, dY, dX, scratch);
      double num = 0, den = 0;
      for (Eigen::Index i = 0; i < X.size(); ++i) {
        MatD Xp = X, Xm = X;
        Xp.data()[i] += 1e-6, Xm.data()[i] -= 1e-6;
        const double fd = (mse_loss<double>(evaluate(model, Xp), target, nullptr) - mse_loss<double>(evaluate(model, Xm), target, nullptr)) / 2e-6;
        num += (fd - dX.data()[i]) * (fd - dX.data()[i]);
        den += dX.data()[i] * dX.data()[i];
      }
      INFO(s.describe() << ": relative error " << std::sqrt(num / den));
      CHECK(den > 0.0);
      CHECK(std::sqrt(num / den) <= 1e-6);  // the tolerance of the block test, same reasons
    }
    CHECK(found);
  }
}

TEST_CASE("a float block computes the double block's output to float rounding", "[moe][transformer]") {
  for (AttentionKind kind : {AttentionKind::softmax, AttentionKind::linear, AttentionKind::hyla}) {
    BlockShape s;
    s.d = 6, s.heads = 2, s.d_head = 3, s.attention = kind, s.causal = true;
    s.ffn.m = 4, s.ffn.k = 2, s.ffn.w = 8, s.ffn.expert_bias = s.ffn.router_bias = true;
    TransformerBlock<double> bd(s);
    TransformerBlock<float> bf(s);
    init_pytorch(bd, 9);
    init_pytorch(bf, 9);
    const MatD X = normal_matrix(s.d, 5 * 8, 3, 0);
    BlockCache<double> cd;
    BlockCache<float> cf;
    MatD Yd;
    TransformerBlock<float>::Mat Yf;
    block_forward(bd, X, 5, cd, Yd);
    block_forward(bf, TransformerBlock<float>::Mat(X.cast<float>()), 5, cf, Yf);
    // float rounding (6e-8) through a few dozen operations per output, O(1) values; a flipped
    // top-k between float and double would show as an O(0.1) difference.
    INFO(to_string(kind));
    CHECK((Yf.cast<double>() - Yd).cwiseAbs().maxCoeff() <= 1e-4 * std::max(1.0, Yd.cwiseAbs().maxCoeff()));
  }
}

namespace {

/// The planted retrieval task: T - 1 context tokens, each a symbol in [0, V) (one-hot) and its
/// position (one-hot), then a query token that carries only its position. The label is the symbol
/// of the FIRST token: only attention from the query (the last token, which the read-out sees) to
/// token 0 can give it; the query token itself carries no information about it (chance: 1/V).
SequenceBatch<double> retrieval_batch(int n, int T, int V, std::uint64_t seed, std::uint64_t trial) {
  const RandomStream rs(seed, StreamTag::property_test, trial);
  SequenceBatch<double> b;
  b.T = T;
  b.X = MatD::Zero(V + T, static_cast<Eigen::Index>(n) * T);
  b.labels.resize(static_cast<std::size_t>(n));
  std::uint64_t draw = 0;
  for (int s = 0; s < n; ++s)
    for (int t = 0; t < T; ++t) {
      const Eigen::Index col = static_cast<Eigen::Index>(s) * T + t;
      b.X(V + t, col) = 1.0;
      if (t == T - 1) continue;
      const int sym = std::min(V - 1, static_cast<int>(rs.uniform(draw++) * V));
      b.X(sym, col) = 1.0;
      if (t == 0) b.labels[static_cast<std::size_t>(s)] = sym;
    }
  return b;
}

struct TrainResult {
  double initial_loss, final_loss, final_accuracy;
};

/// 150 AdamW steps (lr 1e-2, cosine) on fresh batches of 32 sequences; loss and accuracy on 512
/// held-out sequences. `lr_scale` 0 freezes the model; `no_attention` zeroes the attention's
/// parameters after every step (Wo = 0: the block is the MoE on the tokens alone).
TrainResult train_retrieval(AttentionKind kind, double lr_scale, bool no_attention) {
  const int V = 4, T = 4;
  SequenceShape shape;
  shape.block.d = V + T, shape.block.heads = 2, shape.block.d_head = 4, shape.block.attention = kind;
  shape.block.ffn.m = 4, shape.block.ffn.k = 2, shape.block.ffn.w = 16, shape.block.ffn.expert_bias = true;
  shape.out_heads = 1, shape.classes = V;
  SequenceClassifier<double> model(shape);
  init_pytorch(model, 21);
  if (no_attention) model.block().params().setZero();
  const SequenceBatch<double> test = retrieval_batch(512, T, V, 5, 1000000);
  SequenceTrainState<double> st;
  TrainResult r{};
  r.initial_loss = sequence_loss<double>(model, test, st, nullptr);
  AdamWConfig cfg;
  cfg.lr = 1e-2 * lr_scale, cfg.total_steps = 150;
  for (int step = 0; step < cfg.total_steps; ++step) {
    (void)train_step(model, retrieval_batch(32, T, V, 5, static_cast<std::uint64_t>(step)), cfg, st);
    if (no_attention) model.block().params().setZero();
  }
  r.final_loss = sequence_loss<double>(model, test, st, nullptr, &r.final_accuracy);
  return r;
}

/// The same training in float (the fixed batches cast), softmax and HYLA, without controls.
double float_trained_loss(AttentionKind kind, double* initial) {
  using MatF = TransformerBlock<float>::Mat;
  const int V = 4, T = 4;
  SequenceShape shape;
  shape.block.d = V + T, shape.block.heads = 2, shape.block.d_head = 4, shape.block.attention = kind;
  shape.block.ffn.m = 4, shape.block.ffn.k = 2, shape.block.ffn.w = 16, shape.block.ffn.expert_bias = true;
  shape.out_heads = 1, shape.classes = V;
  SequenceClassifier<float> model(shape);
  init_pytorch(model, 21);
  auto to_float = [](const SequenceBatch<double>& b) {
    SequenceBatch<float> f;
    f.T = b.T, f.labels = b.labels, f.X = MatF(b.X.cast<float>());
    return f;
  };
  const SequenceBatch<float> test = to_float(retrieval_batch(512, T, V, 5, 1000000));
  SequenceTrainState<float> st;
  *initial = sequence_loss<float>(model, test, st, nullptr);
  AdamWConfig cfg;
  cfg.lr = 1e-2, cfg.total_steps = 150;
  for (int step = 0; step < cfg.total_steps; ++step)
    (void)train_step(model, to_float(retrieval_batch(32, T, V, 5, static_cast<std::uint64_t>(step))), cfg, st);
  return sequence_loss<float>(model, test, st, nullptr);
}

}  // namespace

TEST_CASE("the float block trains on the planted retrieval task too", "[moe][transformer][train]") {
  for (AttentionKind kind : {AttentionKind::softmax, AttentionKind::hyla}) {
    double initial = 0;
    const double final_loss = float_trained_loss(kind, &initial);
    INFO(to_string(kind) << ": held-out loss " << initial << " -> " << final_loss);
    CHECK(final_loss < 0.5 * std::log(4.0));  // the double test's criterion
  }
}

TEST_CASE("training the block on a planted retrieval task lowers the loss, and a frozen model or one without attention does not", "[moe][transformer][train]") {
  const double chance = std::log(4.0);  // cross-entropy of the uniform guess over V = 4 symbols
  for (AttentionKind kind : {AttentionKind::softmax, AttentionKind::linear, AttentionKind::hyla}) {
    const TrainResult trained = train_retrieval(kind, 1.0, false);
    const TrainResult frozen = train_retrieval(kind, 0.0, false);
    const TrainResult blind = train_retrieval(kind, 1.0, true);
    WARN(fmt::format("{}: held-out loss {:.4f} -> {:.3g} (accuracy {:.3f}); frozen {:.4f} -> {:.4f}; without attention {:.4f} -> "
                     "{:.4f} (accuracy {:.3f}); chance {:.4f}",
                     to_string(kind), trained.initial_loss, trained.final_loss, trained.final_accuracy, frozen.initial_loss,
                     frozen.final_loss, blind.initial_loss, blind.final_loss, blind.final_accuracy, chance));
    INFO(to_string(kind));
    // Trained: the loss falls below half of chance (a model that retrieves token 0's symbol most of
    // the time); on 512 held-out sequences an accuracy above 0.6 is far outside chance (0.25, s.e. 0.02).
    CHECK(trained.final_loss < 0.5 * chance);
    CHECK(trained.final_accuracy > 0.6);
    // Frozen: lr 0 leaves every parameter as it was, so the held-out loss is the same number.
    CHECK(frozen.final_loss == frozen.initial_loss);
    // Without attention the last token carries nothing about the label: the best it can do is the
    // marginal (log V); allow 5% for the finite test set's label frequencies.
    CHECK(blind.final_loss > 0.95 * chance);
    CHECK(blind.final_accuracy < 0.35);
  }
}

}  // namespace transformer_test
