#include "moelab/moe/moe_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/linalg/lapack.hpp"
#include "moelab/moe/detail/moe_layer_hd.hpp"

namespace moelab::moe {

const char* to_string(Weighting w) {
  switch (w) {
    case Weighting::softmax: return "softmax";
    case Weighting::equal: return "equal";
    case Weighting::oracle: return "oracle";
  }
  return "?";
}

const char* to_string(ExpertKind e) { return e == ExpertKind::mlp ? "mlp" : "linear"; }

const char* to_string(Gate g) {
  switch (g) {
    case Gate::softmax_selected: return "softmax_selected";
    case Gate::softmax_all: return "softmax_all";
    case Gate::sigmoid: return "sigmoid";
  }
  return "?";
}

const char* to_string(Routing r) {
  switch (r) {
    case Routing::top_k: return "top_k";
    case Routing::top_p: return "top_p";
    case Routing::threshold: return "threshold";
  }
  return "?";
}

bool parse_gate(const std::string& name, Gate& out) {
  for (Gate g : {Gate::softmax_selected, Gate::softmax_all, Gate::sigmoid})
    if (name == to_string(g)) return out = g, true;
  return false;
}

bool parse_routing(const std::string& name, Routing& out) {
  for (Routing r : {Routing::top_k, Routing::top_p, Routing::threshold})
    if (name == to_string(r)) return out = r, true;
  return false;
}

std::string MoeShape::name() const { return fmt::format("{}e{}a", m, k); }

std::string MoeShape::describe() const {
  std::string gating;
  if (gate != Gate::softmax_selected) gating += fmt::format(" gate={}", to_string(gate));
  if (routing == Routing::top_p) gating += fmt::format(" top_p={:.17g}", top_p);
  if (routing == Routing::threshold) gating += fmt::format(" threshold={:.17g}", threshold);
  return fmt::format("{} w={} d={} d_out={} {}{}{} {}{}", name(), w, d, d_out, to_string(expert), expert_bias ? "+bias" : "",
                     router_bias ? " router_bias" : "", to_string(weighting), gating);
}

void MoeShape::validate() const {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m, "MoeShape: need 1 <= k <= m");
  MOELAB_EXPECT(d >= 1 && d_out >= 1 && w >= 1, "MoeShape: sizes must be positive");
  MOELAB_EXPECT(weighting != Weighting::oracle || k == 1, "MoeShape: oracle routing activates one expert (k = 1)");
  MOELAB_EXPECT(routing == Routing::top_k || (weighting == Weighting::softmax && gate == Gate::softmax_all),
                "MoeShape: top_p / threshold routing selects by, and weights with, the softmax over all logits (gate softmax_all)");
  MOELAB_EXPECT(routing != Routing::top_p || (top_p > 0.0 && top_p <= 1.0), "MoeShape: top_p must lie in (0, 1]");
  MOELAB_EXPECT(routing != Routing::threshold || (threshold >= 0.0 && threshold <= 1.0), "MoeShape: threshold must lie in [0, 1]");
}

void MoeShape::expect_device_gate(const char* who) const {
  if ((weighting == Weighting::softmax && gate != Gate::softmax_selected) || routing != Routing::top_k)
    throw std::invalid_argument(fmt::format("{}: the device MoE layer computes the softmax over the selected logits with top-k "
                                            "routing only; gate {} with routing {} runs on the CPU (--backend cpu)",
                                            who, to_string(gate), to_string(routing)));
}

ParamLayout::ParamLayout(const MoeShape& s) {
  s.validate();
  std::int64_t off = 0;
  if (s.has_router()) {
    router_w = off;
    off += static_cast<std::int64_t>(s.m) * s.d;
    router_b = off;
    if (s.router_bias) off += s.m;
  }
  router_size = off;
  experts = off;
  const std::int64_t rows1 = s.expert == ExpertKind::mlp ? s.w : s.d_out;
  std::int64_t e = 0;
  w1 = e;
  e += rows1 * s.d;
  b1 = e;
  if (s.expert_bias) e += rows1;
  w2 = e;
  if (s.expert == ExpertKind::mlp) {
    e += static_cast<std::int64_t>(s.d_out) * s.w;
    b2 = e;
    if (s.expert_bias) e += s.d_out;
  } else {
    b2 = e;
  }
  expert_size = e;
  total = experts + expert_size * s.m;
}

std::int64_t parameter_count(const MoeShape& s) { return ParamLayout(s).total; }

std::int64_t active_parameter_count(const MoeShape& s) {
  const ParamLayout l(s);
  return l.router_size + l.expert_size * s.k;
}

MoeShape dense_baseline(const MoeShape& s) {
  MoeShape dense = s;
  dense.m = dense.k = 1;
  dense.router_bias = false;
  dense.weighting = Weighting::equal;
  if (s.expert == ExpertKind::mlp) {
    // parameters of width W: W (d + d_out + [bias]) + [bias] d_out
    const std::int64_t target = parameter_count(s);
    const std::int64_t per = s.d + s.d_out + (s.expert_bias ? 1 : 0);
    const std::int64_t fixed = s.expert_bias ? s.d_out : 0;
    dense.w = static_cast<int>(std::max<std::int64_t>(1, (target - fixed) / per));
  }
  return dense;
}

template <class S>
MoeModel<S>::MoeModel(const MoeShape& shape) : shape_(shape), layout_(shape), theta_(Vec::Zero(layout_.total)) {}

template <class S>
void init_pytorch(MoeModel<S>& model, std::uint64_t seed) {
  const MoeShape& s = model.shape();
  const ParamLayout& l = model.layout();
  const RandomStream rs(seed, StreamTag::moe_init, 0);
  auto& theta = model.params();
  auto fill = [&](std::int64_t begin, std::int64_t end, int fan_in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    for (std::int64_t j = begin; j < end; ++j)
      theta[j] = static_cast<S>((2.0 * rs.uniform(static_cast<std::uint64_t>(j)) - 1.0) * bound);
  };
  fill(0, l.router_size, s.d);  // router weights and bias: nn.Linear(d, m)
  for (int j = 0; j < s.m; ++j) {
    const std::int64_t e = l.expert(j);
    fill(e + l.w1, e + l.w2, s.d);  // first layer (weights + bias): fan-in d
    fill(e + l.w2, e + l.expert_size, s.w);  // second layer: fan-in w (empty for linear experts)
  }
}

namespace {

/// parallel_for when the loop carries enough work to pay for a parallel region (measured: on a
/// loaded 2-core machine an OpenMP region costs up to milliseconds; the gradient test's tiny models
/// took 58 s in parallel and 0.01 s serial), else a plain loop. Either way each index writes only
/// its own outputs, so the results do not depend on the choice.
constexpr double kParallelFlops = 4e6;

/// c = op(a) op(b) for Eigen matrices or maps with column-major storage (c sized by the caller):
/// one single-threaded BLAS sgemm / dgemm (lapack::gemm; Eigen's product in a build without BLAS).
/// OpenBLAS's sgemm ran the training step's shapes (80 x 256 by 256 x 1024) at 2.5x Eigen's rate on
/// this machine (bench/RESULTS.md, moe). A call's summation order depends only on the shapes, so the
/// bytes do not depend on which thread runs it.
template <class A, class B, class C>
void gemm(const A& a, bool ta, const B& b, bool tb, C& c) {
  const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols(), n = tb ? b.rows() : b.cols();
  MOELAB_EXPECT(c.rows() == m && c.cols() == n && (tb ? b.cols() : b.rows()) == k, "gemm: sizes do not match");
  using S = typename C::Scalar;
  lapack::gemm(ta, tb, m, n, k, S(1), a.data(), std::max<Eigen::Index>(1, a.outerStride()), b.data(),
               std::max<Eigen::Index>(1, b.outerStride()), S(0), c.data(), std::max<Eigen::Index>(1, c.outerStride()));
}
void for_each_index(std::size_t n, double flops, const std::function<void(std::size_t)>& body) {
  if (flops >= kParallelFlops && n > 1 && num_threads() > 1) {
    parallel_for(n, body);
  } else {
    for (std::size_t i = 0; i < n; ++i) body(i);
  }
}

/// Top-k of one input's logits z[0..m) into e[0..k) in rank order (larger first, ties to the lower
/// index: a partial_sort's strict order) and the weights g[0..k) (softmax over the selected logits,
/// shifted by their maximum, or 1/k). Up to kRankTopK experts by counting each logit's rank
/// (branch-free, vectorised: the insertion of route_sample mispredicts its branches; routing was 19%
/// of a quick-Fig. 2 run's CPU time with it, perf); beyond, route_sample (the device's code). Both
/// give the same experts in the same order, and the weights the same arithmetic, as route_sample.
constexpr int kRankTopK = 64;
/// The gate of the selected experts e[0..k) from the logits z[0..m) (header comment), replacing the
/// softmax-over-selected weights; softmax_all also writes the probabilities of all m logits to p.
template <class S>
void gate_weights(const S* z, int m, int k, Gate gate, const int* e, S* g, S* p) {
  if (gate == Gate::sigmoid) {
    for (int r = 0; r < k; ++r) g[r] = S(1) / (S(1) + std::exp(-z[e[r]]));
  } else if (gate == Gate::softmax_all) {
    const S top = z[e[0]];  // the largest logit
    S sum = 0;
    for (int j = 0; j < m; ++j) sum += (p[j] = std::exp(z[j] - top));
    for (int j = 0; j < m; ++j) p[j] /= sum;
    for (int r = 0; r < k; ++r) g[r] = p[e[r]];
  }
}

/// Adaptive routing of one input (header comment): all m experts in rank order of z (largest first,
/// ties to the lower index, as top-k) into e, their softmax-over-all probabilities into p; returns
/// how many are kept (1 .. cap) and writes their weights g (the p of the kept, not renormalised).
template <class S>
int route_adaptive(const S* z, int m, int cap, Routing routing, double top_p, double threshold, int* e, S* g, S* p) {
  for (int j = 0; j < m; ++j) e[j] = j;
  std::stable_sort(e, e + m, [&](int a, int b) { return z[a] > z[b]; });
  const S top = z[e[0]];
  S sum = 0;
  for (int j = 0; j < m; ++j) sum += (p[j] = std::exp(z[j] - top));
  for (int j = 0; j < m; ++j) p[j] /= sum;
  int kept = 1;  // the top expert always
  if (routing == Routing::top_p) {
    // The fewest experts whose mass reaches top_p: add the next while the mass so far is short of it.
    double mass = static_cast<double>(p[e[0]]);
    while (kept < cap && mass < top_p) mass += static_cast<double>(p[e[kept++]]);
  } else {
    while (kept < cap && static_cast<double>(p[e[kept]]) >= threshold) ++kept;
  }
  for (int r = 0; r < kept; ++r) g[r] = p[e[r]];
  return kept;
}

template <class S>
void route_input(const S* z, int m, int k, hd::Weights wt, int* e, S* g) {
  if (m > kRankTopK) {
    hd::route_sample(z, m, k, wt, e, g);
    return;
  }
  // Logit j goes to slot rank(j); the unselected all to slot k (a conditional move: the branch on
  // rank < k mispredicted about half the time at k = m / 2).
  int top[kRankTopK + 1];
  for (int j = 0; j < m; ++j) {
    const S zj = z[j];
    int rank = 0;
    for (int i = 0; i < m; ++i) rank += static_cast<int>(z[i] > zj) | (static_cast<int>(z[i] == zj) & static_cast<int>(i < j));
    top[rank < k ? rank : k] = j;
  }
  for (int r = 0; r < k; ++r) e[r] = top[r];
  if (wt == hd::Weights::equal) {
    for (int r = 0; r < k; ++r) g[r] = S(1) / S(k);
  } else {  // route_sample's softmax, term for term
    const S top = z[e[0]];
    S sum = 0;
    for (int r = 0; r < k; ++r) sum += (g[r] = std::exp(z[e[r]] - top));
    for (int r = 0; r < k; ++r) g[r] /= sum;
  }
}

/// Routing of every input: top-k slots, weights, groups by expert.
template <class S>
void route(const MoeModel<S>& model, const typename MoeModel<S>::Mat& X, const std::vector<int>* oracle, ForwardCache<S>& c) {
  const MoeShape& s = model.shape();
  const int n = static_cast<int>(X.cols()), k = s.k, m = s.m;
  c.n = n;
  c.slot_expert.assign(static_cast<std::size_t>(n) * k, 0);
  c.slot_weight.assign(static_cast<std::size_t>(n) * k, S(0));
  c.slot_position.assign(static_cast<std::size_t>(n) * k, 0);
  c.slot_begin.resize(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) c.slot_begin[static_cast<std::size_t>(i)] = i * k;
  const bool all_probs = s.has_router() && s.weighting == Weighting::softmax && s.gate == Gate::softmax_all;
  if (all_probs) c.probs.resize(m, n);
  else c.probs.resize(0, 0);
  if (s.adaptive()) {
    // Router logits as below; each input ranks all m experts into its own m slots, then the kept
    // slots are packed in input order (serial: defines every slot's index).
    c.logits.resize(m, n);
    gemm(model.router_w(model.params()), false, X, false, c.logits);
    if (s.router_bias) c.logits.colwise() += model.router_b(model.params());
    std::vector<int> e(static_cast<std::size_t>(n) * m), kept(static_cast<std::size_t>(n));
    std::vector<S> g(static_cast<std::size_t>(n) * m);
    for_each_index(static_cast<std::size_t>((n + 255) / 256), 4.0 * n * m, [&](std::size_t chunk) {
      const int i0 = static_cast<int>(chunk) * 256, i1 = std::min(n, i0 + 256);
      for (int i = i0; i < i1; ++i) {
        const std::size_t base = static_cast<std::size_t>(i) * m;
        kept[static_cast<std::size_t>(i)] = route_adaptive(c.logits.data() + static_cast<std::int64_t>(i) * m, m, k, s.routing, s.top_p,
                                                           s.threshold, e.data() + base, g.data() + base,
                                                           c.probs.data() + static_cast<std::int64_t>(i) * m);
      }
    });
    c.slot_expert.clear(), c.slot_weight.clear();
    for (int i = 0; i < n; ++i) {
      c.slot_begin[static_cast<std::size_t>(i)] = static_cast<int>(c.slot_expert.size());
      const std::size_t base = static_cast<std::size_t>(i) * m;
      for (int r = 0; r < kept[static_cast<std::size_t>(i)]; ++r) {
        c.slot_expert.push_back(e[base + static_cast<std::size_t>(r)]);
        c.slot_weight.push_back(g[base + static_cast<std::size_t>(r)]);
      }
    }
    c.slot_begin[static_cast<std::size_t>(n)] = static_cast<int>(c.slot_expert.size());
    c.slot_position.assign(c.slot_expert.size(), 0);
  } else if (s.weighting == Weighting::oracle) {
    MOELAB_EXPECT(oracle != nullptr && static_cast<int>(oracle->size()) == n, "forward: oracle routing needs one expert per input");
    for (int i = 0; i < n; ++i) {
      const int e = (*oracle)[static_cast<std::size_t>(i)];
      MOELAB_EXPECT(e >= 0 && e < m, "forward: oracle expert out of range");
      c.slot_expert[static_cast<std::size_t>(i)] = e;
      c.slot_weight[static_cast<std::size_t>(i)] = S(1);
    }
  } else if (!s.has_router()) {  // m = 1
    for (int i = 0; i < n; ++i) c.slot_expert[static_cast<std::size_t>(i)] = 0, c.slot_weight[static_cast<std::size_t>(i)] = S(1);
  } else {
    // Router logits: one GEMM (single-threaded: the same summation order for any thread count).
    c.logits.resize(m, n);
    gemm(model.router_w(model.params()), false, X, false, c.logits);
    if (s.router_bias) c.logits.colwise() += model.router_b(model.params());
    const hd::Weights wt = s.weighting == Weighting::equal ? hd::Weights::equal : hd::Weights::softmax;
    for_each_index(static_cast<std::size_t>((n + 255) / 256), 4.0 * n * m, [&](std::size_t chunk) {
      const int i0 = static_cast<int>(chunk) * 256, i1 = std::min(n, i0 + 256);
      for (int i = i0; i < i1; ++i) {
        const std::size_t base = static_cast<std::size_t>(i) * k;
        route_input(c.logits.data() + static_cast<std::int64_t>(i) * m, m, k, wt, c.slot_expert.data() + base, c.slot_weight.data() + base);
        if (wt == hd::Weights::softmax && s.gate != Gate::softmax_selected)
          gate_weights(c.logits.data() + static_cast<std::int64_t>(i) * m, m, k, s.gate, c.slot_expert.data() + base,
                       c.slot_weight.data() + base, all_probs ? c.probs.data() + static_cast<std::int64_t>(i) * m : nullptr);
      }
    });
  }
  c.slot_input.resize(c.slot_expert.size());
  for (int i = 0; i < n; ++i)
    for (int sl = c.slot_begin[static_cast<std::size_t>(i)]; sl < c.slot_begin[static_cast<std::size_t>(i) + 1]; ++sl)
      c.slot_input[static_cast<std::size_t>(sl)] = i;
  // Groups in input order (serial: defines the columns of every expert's GEMM).
  c.members.resize(static_cast<std::size_t>(m));
  for (auto& g : c.members) g.clear();  // keeps each group's capacity from step to step
  for (std::size_t slot = 0; slot < c.slot_expert.size(); ++slot) {
    auto& g = c.members[static_cast<std::size_t>(c.slot_expert[slot])];
    c.slot_position[slot] = static_cast<int>(g.size());
    g.push_back(static_cast<int>(slot));
  }
}

}  // namespace

template <class S>
void forward(const MoeModel<S>& model, const typename MoeModel<S>::Mat& X, const std::vector<int>* oracle, ForwardCache<S>& c,
             typename MoeModel<S>::Mat& Y) {
  using Mat = typename MoeModel<S>::Mat;
  const MoeShape& s = model.shape();
  MOELAB_EXPECT(X.rows() == s.d, "forward: X must have d rows");
  route(model, X, oracle, c);
  if (s.has_router() && s.weighting == Weighting::softmax) c.input = X;  // for the router's gradient
  const int n = c.n;
  c.x.resize(static_cast<std::size_t>(s.m));
  c.pre.resize(static_cast<std::size_t>(s.m));
  c.out.resize(static_cast<std::size_t>(s.m));
  c.act.resize(static_cast<std::size_t>(s.m));
  const auto& theta = model.params();
  const double expert_flops = 2.0 * static_cast<double>(c.slot_expert.size()) * static_cast<double>(model.layout().expert_size);
  for_each_index(static_cast<std::size_t>(s.m), expert_flops, [&](std::size_t je) {
    const int j = static_cast<int>(je);
    const auto& mem = c.members[je];
    const auto nj = static_cast<Eigen::Index>(mem.size());
    Mat& xj = c.x[je];
    xj.resize(s.d, nj);
    for (Eigen::Index p = 0; p < nj; ++p) xj.col(p) = X.col(c.slot_input[static_cast<std::size_t>(mem[static_cast<std::size_t>(p)])]);
    Mat& out = c.out[je];
    if (s.expert == ExpertKind::mlp) {
      Mat& pre = c.pre[je];
      Mat& act = c.act[je];
      pre.resize(s.w, nj);
      gemm(model.w1(theta, j), false, xj, false, pre);
      if (s.expert_bias) pre.colwise() += model.b1(theta, j);
      act = pre.cwiseMax(S(0));
      out.resize(s.d_out, nj);
      gemm(model.w2(theta, j), false, act, false, out);
      if (s.expert_bias) out.colwise() += model.b2(theta, j);
    } else {
      out.resize(s.d_out, nj);
      gemm(model.w1(theta, j), false, xj, false, out);
      if (s.expert_bias) out.colwise() += model.b1(theta, j);
    }
  });
  // Combine: each input sums its slots in rank order.
  Y.resize(s.d_out, n);
  for_each_index(static_cast<std::size_t>((n + 255) / 256), 2.0 * static_cast<double>(c.slot_expert.size()) * s.d_out, [&](std::size_t chunk) {
    const int i0 = static_cast<int>(chunk) * 256, i1 = std::min(n, i0 + 256);
    for (int i = i0; i < i1; ++i) {
      const auto base = static_cast<std::size_t>(c.slot_begin[static_cast<std::size_t>(i)]);
      const int ki = c.slot_begin[static_cast<std::size_t>(i) + 1] - c.slot_begin[static_cast<std::size_t>(i)];
      Y.col(i) = c.slot_weight[base] * c.out[static_cast<std::size_t>(c.slot_expert[base])].col(c.slot_position[base]);
      for (int r = 1; r < ki; ++r)
        Y.col(i) += c.slot_weight[base + r] *
                    c.out[static_cast<std::size_t>(c.slot_expert[base + r])].col(c.slot_position[base + r]);
    }
  });
}

template <class S>
typename MoeModel<S>::Mat evaluate(const MoeModel<S>& model, const typename MoeModel<S>::Mat& X, const std::vector<int>* oracle) {
  ForwardCache<S> cache;
  typename MoeModel<S>::Mat Y;
  forward(model, X, oracle, cache, Y);
  return Y;
}

template <class S>
void backward(const MoeModel<S>& model, const ForwardCache<S>& c, const typename MoeModel<S>::Mat& dY, typename MoeModel<S>::Vec& grad) {
  using Mat = typename MoeModel<S>::Mat;
  const MoeShape& s = model.shape();
  const int n = c.n;
  MOELAB_EXPECT(dY.rows() == s.d_out && dY.cols() == n, "backward: dY must be d_out x n");
  grad.setZero(model.layout().total);
  const auto& theta = model.params();
  // dL/dg of every slot: <dY_i, E_j(x_i)>; written by the expert owning the slot.
  const std::size_t slots = c.slot_expert.size();
  std::vector<S> dg(slots, S(0));
  const bool need_dg = s.has_router() && s.weighting == Weighting::softmax;
  const double expert_flops = 4.0 * static_cast<double>(slots) * static_cast<double>(model.layout().expert_size);
  for_each_index(static_cast<std::size_t>(s.m), expert_flops, [&](std::size_t je) {
    const int j = static_cast<int>(je);
    const auto& mem = c.members[je];
    const auto nj = static_cast<Eigen::Index>(mem.size());
    if (nj == 0) return;
    Mat dout(s.d_out, nj);
    for (Eigen::Index p = 0; p < nj; ++p) {
      const auto slot = static_cast<std::size_t>(mem[static_cast<std::size_t>(p)]);
      const auto i = static_cast<Eigen::Index>(c.slot_input[slot]);
      dout.col(p) = c.slot_weight[slot] * dY.col(i);
      if (need_dg) dg[slot] = dY.col(i).dot(c.out[je].col(p));
    }
    if (s.expert == ExpertKind::mlp) {
      const Mat& pre = c.pre[je];
      auto gw2 = model.w2(grad, j);
      gemm(dout, false, c.act[je], true, gw2);
      if (s.expert_bias) model.b2(grad, j) = dout.rowwise().sum();
      Mat dpre(s.w, nj);
      gemm(model.w2(theta, j), true, dout, false, dpre);
      dpre = (pre.array() > S(0)).select(dpre, S(0));
      auto gw1 = model.w1(grad, j);
      gemm(dpre, false, c.x[je], true, gw1);
      if (s.expert_bias) model.b1(grad, j) = dpre.rowwise().sum();
    } else {
      auto gw1 = model.w1(grad, j);
      gemm(dout, false, c.x[je], true, gw1);
      if (s.expert_bias) model.b1(grad, j) = dout.rowwise().sum();
    }
  });
  if (!need_dg) return;  // equal and oracle weights do not depend on the router's parameters
  Mat dlogits = Mat::Zero(s.m, n);
  for (int i = 0; i < n; ++i) {
    const auto base = static_cast<std::size_t>(c.slot_begin[static_cast<std::size_t>(i)]);
    const int k = c.slot_begin[static_cast<std::size_t>(i) + 1] - c.slot_begin[static_cast<std::size_t>(i)];
    if (s.gate == Gate::sigmoid) {
      // g = sigmoid(z_j): dz_j = dg_j g_j (1 - g_j) on the selected logits, 0 elsewhere.
      for (int r = 0; r < k; ++r) {
        const S g = c.slot_weight[base + r];
        dlogits(c.slot_expert[base + r], i) = dg[base + r] * g * (S(1) - g);
      }
      continue;
    }
    if (s.gate == Gate::softmax_selected) {
      // Softmax over the selected logits: the device layer's per-input backward (moe_layer_hd.hpp).
      hd::softmax_backward_sample(c.slot_expert.data() + base, c.slot_weight.data() + base, dg.data() + base, k,
                                  dlogits.col(i).data());
      continue;
    }
    // softmax_all: g_j = p_j over all m logits (top-k, top-p, threshold): dz_l = p_l (dg_l [l in S] -
    // sum_{j in S} p_j dg_j), for every l: the unselected logits get a gradient through the normaliser.
    S mean = 0;
    for (int r = 0; r < k; ++r) mean += c.slot_weight[base + r] * dg[base + r];
    dlogits.col(i) = -mean * c.probs.col(i);
    for (int r = 0; r < k; ++r) dlogits(c.slot_expert[base + r], i) += c.slot_weight[base + r] * dg[base + r];
  }
  auto grw = model.router_w(grad);
  gemm(dlogits, false, c.input, true, grw);
  if (s.router_bias) model.router_b(grad) = dlogits.rowwise().sum();
}

template <class S>
double mse_loss(const typename MoeModel<S>::Mat& Y, const typename MoeModel<S>::Mat& T, typename MoeModel<S>::Mat* dY) {
  MOELAB_EXPECT(Y.rows() == T.rows() && Y.cols() == T.cols(), "mse_loss: shapes differ");
  const double count = static_cast<double>(Y.rows()) * static_cast<double>(Y.cols());
  double sum = 0.0;
  for (Eigen::Index i = 0; i < Y.cols(); ++i) {
    double col = 0.0;
    for (Eigen::Index r = 0; r < Y.rows(); ++r) {
      const double e = static_cast<double>(Y(r, i)) - static_cast<double>(T(r, i));
      col += e * e;
    }
    sum += col;
  }
  if (dY) *dY = (Y - T) * static_cast<S>(2.0 / count);
  return sum / count;
}

#define MOELAB_MOE_INSTANTIATE(S)                                                                                              \
  template class MoeModel<S>;                                                                                                  \
  template void init_pytorch<S>(MoeModel<S>&, std::uint64_t);                                                                 \
  template void forward<S>(const MoeModel<S>&, const MoeModel<S>::Mat&, const std::vector<int>*, ForwardCache<S>&,           \
                           MoeModel<S>::Mat&);                                                                                 \
  template MoeModel<S>::Mat evaluate<S>(const MoeModel<S>&, const MoeModel<S>::Mat&, const std::vector<int>*);               \
  template void backward<S>(const MoeModel<S>&, const ForwardCache<S>&, const MoeModel<S>::Mat&, MoeModel<S>::Vec&);         \
  template double mse_loss<S>(const MoeModel<S>::Mat&, const MoeModel<S>::Mat&, MoeModel<S>::Mat*);
MOELAB_MOE_INSTANTIATE(float)
MOELAB_MOE_INSTANTIATE(double)
#undef MOELAB_MOE_INSTANTIATE

}  // namespace moelab::moe
