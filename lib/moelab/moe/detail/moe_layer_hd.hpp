// The per-sample and per-element pieces of the top-k MoE layer's forward and backward passes and of
// AdamW, shared by the CUDA trainer (kernels/moe_layer.cu: each device kernel is one of the functors
// below run once per index) and its CPU emulation (tests/moe/moe_device_emulation_test.cpp: the same
// functors in a plain loop), so the arithmetic the device runs is the arithmetic the CPU tests run.
// Header-only, host + device (MOELAB_HD), C++17 (nvcc), no Eigen.
//
// The layer (granularity paper, Sec. 2, Eqs. 2.1-2.2, App. D; lib/moelab/moe/moe_model.hpp):
//     f(x) = sum_{j in S(x)} g_j(x) E_j(x),   S(x) = the k largest logits of R x (+ b_R),
//     E_j(x) = W2_j relu(W1_j x + b1_j) + b2_j  (MLP) or W_j x + b_j (linear),
//     g = softmax over the selected logits | 1/k | 1 on the oracle's expert.
// Ties in the top-k go to the lower expert index (as MoeModel's route()).
//
// Device data layout (column-major, one sample per column, as the CPU's Eigen matrices):
//   X (d x n), logits (m x n), slot s = i k + r (input i, rank r): slot_expert[s], slot_weight[s];
//   the slots sorted stably by expert ("grouping": sorted_slot[p], sorted_expert[p], p = 0 .. n k - 1),
//   so expert j's group is columns group_begin[j] .. group_end[j] - 1 in input order (MoeModel's
//   `members`); slot_pos[s] = the sorted column of slot s.
//   Xg (d x n k): gathered inputs; H (w x n k): relu(W1 x + b1) (MLP); Out (d_out x n k): E_j(x);
//   Y (d_out x n). Parameters: one flat vector in ParamLayout's order (moe_model.hpp), so the
//   device's gradient and AdamW moments compare entry by entry with the CPU's.
#pragma once

#include <math.h>  // expf, sqrtf in the global namespace (host and device)

#include <cmath>
#include <cstdint>

#include "moelab/core/distributions.hpp"
#include "moelab/core/philox.hpp"  // MOELAB_HD

namespace moelab::moe::hd {

/// g: 0 softmax over the selected logits, 1 equal 1/k, 2 oracle (as moe::Weighting).
enum class Weights : int { softmax = 0, equal = 1, oracle = 2 };

/// Shape and flat-parameter offsets of one layer (moe::ParamLayout's numbers, as plain data).
struct LayerDims {
  int m = 1, k = 1, w = 1, d = 1, d_out = 1;
  bool mlp = true, expert_bias = false, router_bias = false, has_router = false;
  Weights weights = Weights::softmax;
  std::int64_t router_w = 0, router_b = 0, experts = 0, expert_size = 0, w1 = 0, b1 = 0, w2 = 0, b2 = 0, total = 0;
  /// Rows of the first expert layer: w (MLP) or d_out (linear).
  MOELAB_HD int rows1() const { return mlp ? w : d_out; }
  MOELAB_HD std::int64_t expert(int j) const { return experts + expert_size * j; }
};

MOELAB_HD float hd_exp(float x) { return expf(x); }
MOELAB_HD double hd_exp(double x) { return exp(x); }
MOELAB_HD float hd_sqrt(float x) { return sqrtf(x); }
MOELAB_HD double hd_sqrt(double x) { return sqrt(x); }

/// Top-k of one input's logits z[0..m) into e[0..k) in rank order (largest first, ties to the lower
/// index: the strict order of MoeModel's partial_sort), and the weights g[0..k). Insertion into the
/// output itself (no local array: any k <= m).
template <class S>
MOELAB_HD void route_sample(const S* z, int m, int k, Weights wt, int* e, S* g) {
  int filled = 0;
  for (int j = 0; j < m; ++j) {
    // j is larger than every index already kept, so it goes after every kept logit >= z[j].
    if (filled == k && !(z[j] > z[e[k - 1]])) continue;
    int pos = filled < k ? filled : k - 1;
    while (pos > 0 && z[j] > z[e[pos - 1]]) {
      e[pos] = e[pos - 1];
      --pos;
    }
    e[pos] = j;
    if (filled < k) ++filled;
  }
  if (wt == Weights::equal) {
    for (int r = 0; r < k; ++r) g[r] = S(1) / S(k);
  } else {  // softmax over the selected logits, shifted by their maximum z[e[0]]
    const S top = z[e[0]];
    S sum = 0;
    for (int r = 0; r < k; ++r) sum += (g[r] = hd_exp(z[e[r]] - top));
    for (int r = 0; r < k; ++r) g[r] /= sum;
  }
}

/// Softmax backward over the selected logits of one input (the chain rule through g = softmax(z_S)):
///   dz_{e_r} = g_r (dg_r - sum_t g_t dg_t), the unselected logits get 0 (dz pre-zeroed).
template <class S>
MOELAB_HD void softmax_backward_sample(const int* e, const S* g, const S* dg, int k, S* dz) {
  S mean = 0;
  for (int r = 0; r < k; ++r) mean += g[r] * dg[r];
  for (int r = 0; r < k; ++r) dz[e[r]] = g[r] * (dg[r] - mean);
}

/// The scalars of one AdamW step (adamw.hpp: torch.optim.AdamW), computed once per step on the host.
template <class S>
struct AdamWScalars {
  S decay, b1, b2, step_size, sqrt_bc2, eps;
};

/// One parameter's AdamW update (Loshchilov & Hutter 2019, Alg. 2, with PyTorch's bias corrections),
/// the same expression order as moe::adamw_update.
template <class S>
MOELAB_HD void adamw_element(S& theta, S& m, S& v, S g, const AdamWScalars<S>& a) {
  theta *= a.decay;
  m = a.b1 * m + (S(1) - a.b1) * g;
  v = a.b2 * v + (S(1) - a.b2) * g * g;
  theta -= a.step_size * m / (hd_sqrt(v) / a.sqrt_bc2 + a.eps);
}

// ---- the per-index functors (one device thread per index; a loop on the CPU) ----

/// X[e] = normal(first + e) of (seed, tag, trial) rounded to S: gaussian_inputs()'s addressing
/// (column i, coordinate c is draw i d + c).
template <class S>
struct NormalInputs {
  S* X;
  std::uint64_t seed;
  StreamTag tag;
  std::uint64_t trial;
  MOELAB_HD void operator()(std::int64_t e) const {
    X[e] = static_cast<S>(RandomStream(seed, tag, trial).normal(static_cast<std::uint64_t>(e)));
  }
};

/// M (rows x cols) += b (one entry per row): the router bias on the logits.
template <class S>
struct AddRowBias {
  S* M;
  const S* b;
  int rows;
  MOELAB_HD void operator()(std::int64_t e) const { M[e] += b[e % rows]; }
};

/// Routing of input i: its k slots' experts and weights (oracle: the given expert, weight 1; one
/// expert without a router: expert 0, weight 1).
template <class S>
struct RouteSamples {
  const S* logits;  // m x n (unused without a router)
  const int* oracle;
  LayerDims L;
  int* slot_expert;
  S* slot_weight;
  MOELAB_HD void operator()(std::int64_t i) const {
    const std::int64_t base = i * L.k;
    if (L.weights == Weights::oracle) {
      slot_expert[base] = oracle[i];
      slot_weight[base] = S(1);
    } else if (!L.has_router) {
      slot_expert[base] = 0;
      slot_weight[base] = S(1);
    } else {
      route_sample(logits + i * L.m, L.m, L.k, L.weights, slot_expert + base, slot_weight + base);
    }
  }
};

/// slot index s at position s (the values the stable sort by expert permutes).
struct Iota {
  int* out;
  MOELAB_HD void operator()(std::int64_t s) const { out[s] = static_cast<int>(s); }
};

/// Group bounds from the stably sorted experts: group_begin[j] .. group_end[j] - 1 (both pre-zeroed:
/// an empty group stays [0, 0)); and slot_pos, the inverse of the sort.
struct GroupBounds {
  const int* sorted_expert;
  const int* sorted_slot;
  std::int64_t slots;
  int* group_begin;
  int* group_end;
  int* slot_pos;
  MOELAB_HD void operator()(std::int64_t p) const {
    const int j = sorted_expert[p];
    if (p == 0 || sorted_expert[p - 1] != j) group_begin[j] = static_cast<int>(p);
    if (p == slots - 1 || sorted_expert[p + 1] != j) group_end[j] = static_cast<int>(p + 1);
    slot_pos[sorted_slot[p]] = static_cast<int>(p);
  }
};

/// Xg[:, p] = X[:, slot(p) / k] (d x n k), one element per index.
template <class S>
struct Gather {
  const S* X;
  const int* sorted_slot;
  int d, k;
  S* Xg;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t p = e / d, r = e % d;
    Xg[e] = X[static_cast<std::int64_t>(sorted_slot[p] / k) * d + r];
  }
};

/// M[:, p] += bias of expert sorted_expert[p] (offset `bias` inside the expert block), then ReLU
/// when `relu`: the expert layers' epilogue for all groups in one pass.
template <class S>
struct ExpertBiasRelu {
  S* M;
  const S* theta;
  const int* sorted_expert;
  LayerDims L;
  int rows;
  std::int64_t bias;  // offset in the expert block, or -1 for none
  bool relu;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t p = e / rows, r = e % rows;
    S v = M[e];
    if (bias >= 0) v += theta[L.expert(sorted_expert[p]) + bias + r];
    if (relu) v = v > S(0) ? v : S(0);
    M[e] = v;
  }
};

/// Y[:, i] = sum_r g_{i,r} Out[:, slot_pos(i k + r)] in rank order (MoeModel's combine).
template <class S>
struct Combine {
  const S* Out;
  const int* slot_pos;
  const S* slot_weight;
  int d_out, k;
  S* Y;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t i = e / d_out, r = e % d_out, base = i * k;
    S y = slot_weight[base] * Out[static_cast<std::int64_t>(slot_pos[base]) * d_out + r];
    for (int q = 1; q < k; ++q) y += slot_weight[base + q] * Out[static_cast<std::int64_t>(slot_pos[base + q]) * d_out + r];
    Y[e] = y;
  }
};

/// col[i] = sum_r (Y - T)^2 over column i, in double, rows in order (mse_loss's inner sum).
template <class S>
struct ColumnSquaredError {
  const S* Y;
  const S* T;
  int rows;
  double* col;
  MOELAB_HD void operator()(std::int64_t i) const {
    double s = 0.0;
    for (int r = 0; r < rows; ++r) {
      const double e = static_cast<double>(Y[i * rows + r]) - static_cast<double>(T[i * rows + r]);
      s += e * e;
    }
    col[i] = s;
  }
};

/// out[0] = sum of col[0..n) in column order, / count (one thread: mse_loss's outer sum, same order).
struct SerialMean {
  const double* col;
  std::int64_t n;
  double count;
  double* out;
  MOELAB_HD void operator()(std::int64_t) const {
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i) s += col[i];
    *out = s / count;
  }
};

/// dY = (Y - T) * scale, scale = S(2 / (n d_out)) (mse_loss's gradient).
template <class S>
struct MseGradient {
  const S* Y;
  const S* T;
  S scale;
  S* dY;
  MOELAB_HD void operator()(std::int64_t e) const { dY[e] = (Y[e] - T[e]) * scale; }
};

/// dOut[:, p] = g_slot dY[:, input(slot)] (the expert outputs' gradient, sorted layout).
template <class S>
struct ScaleOutputGradient {
  const S* dY;
  const int* sorted_slot;
  const S* slot_weight;
  int d_out, k;
  S* dOut;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t p = e / d_out, r = e % d_out;
    const int s = sorted_slot[p];
    dOut[e] = slot_weight[s] * dY[static_cast<std::int64_t>(s / k) * d_out + r];
  }
};

/// dg[slot(p)] = <dY[:, input], Out[:, p]> (the gradient of the weight of each slot).
template <class S>
struct SlotWeightGradient {
  const S* dY;
  const S* Out;
  const int* sorted_slot;
  int d_out, k;
  S* dg;
  MOELAB_HD void operator()(std::int64_t p) const {
    const int s = sorted_slot[p];
    const S* a = dY + static_cast<std::int64_t>(s / k) * d_out;
    const S* b = Out + p * d_out;
    S acc = 0;
    for (int r = 0; r < d_out; ++r) acc += a[r] * b[r];
    dg[s] = acc;
  }
};

/// dH[e] = 0 where the ReLU was off (H = relu(pre) > 0 exactly where pre > 0, MoeModel's mask).
template <class S>
struct ReluMask {
  S* dH;
  const S* H;
  MOELAB_HD void operator()(std::int64_t e) const {
    if (!(H[e] > S(0))) dH[e] = S(0);
  }
};

/// Bias gradients of every expert: index e = j rows + r sums row r of expert j's group columns of
/// M (rows x n k) in column order into grad[expert(j) + bias + r]; an empty group leaves 0.
template <class S>
struct ExpertBiasGradient {
  const S* M;
  const int* group_begin;
  const int* group_end;
  LayerDims L;
  int rows;
  std::int64_t bias;
  S* grad;
  MOELAB_HD void operator()(std::int64_t e) const {
    const int j = static_cast<int>(e / rows), r = static_cast<int>(e % rows);
    S acc = 0;
    for (int p = group_begin[j]; p < group_end[j]; ++p) acc += M[static_cast<std::int64_t>(p) * rows + r];
    grad[L.expert(j) + bias + r] = acc;
  }
};

/// dlogits[:, i] from the softmax backward of input i (dlogits pre-zeroed).
template <class S>
struct SoftmaxBackward {
  const int* slot_expert;
  const S* slot_weight;
  const S* dg;
  int m, k;
  S* dlogits;
  MOELAB_HD void operator()(std::int64_t i) const {
    softmax_backward_sample(slot_expert + i * k, slot_weight + i * k, dg + i * k, k, dlogits + i * m);
  }
};

/// out[r] = sum over columns of M (rows x cols), in column order (the router bias gradient).
template <class S>
struct RowSum {
  const S* M;
  int rows;
  std::int64_t cols;
  S* out;
  MOELAB_HD void operator()(std::int64_t r) const {
    S acc = 0;
    for (std::int64_t c = 0; c < cols; ++c) acc += M[c * rows + r];
    out[r] = acc;
  }
};

/// dX[:, i] = sum_r dXg[:, slot_pos(i k + r)] in rank order: the experts' input gradients (sorted
/// layout) summed back onto their inputs (d x n).
template <class S>
struct ScatterInputGradient {
  const S* dXg;
  const int* slot_pos;
  int d, k;
  S* dX;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t i = e / d, r = e % d, base = i * k;
    S acc = dXg[static_cast<std::int64_t>(slot_pos[base]) * d + r];
    for (int q = 1; q < k; ++q) acc += dXg[static_cast<std::int64_t>(slot_pos[base + q]) * d + r];
    dX[e] = acc;
  }
};

/// M[e] += a[e] (the router's part of the input gradient added to the experts').
template <class S>
struct AddInPlace {
  S* M;
  const S* a;
  MOELAB_HD void operator()(std::int64_t e) const { M[e] += a[e]; }
};

/// AdamW on every parameter.
template <class S>
struct AdamWUpdate {
  S* theta;
  S* m;
  S* v;
  const S* grad;
  AdamWScalars<S> a;
  MOELAB_HD void operator()(std::int64_t i) const { adamw_element(theta[i], m[i], v[i], grad[i], a); }
};

}  // namespace moelab::moe::hd
