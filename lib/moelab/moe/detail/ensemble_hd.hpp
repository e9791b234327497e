// The per-index pieces of the many-runs trainer on a device (detail/ensemble_driver.hpp): R runs of one
// shape ("a class") stacked, every expert evaluated on every input and gated, so that each layer of
// every run of a class is one batched GEMM with sizes known before the step (no host round trip).
// Shared by the CUDA executor (kernels/moe_ensemble.cu: one launch per functor over all runs of a
// class) and its CPU emulation (tests/moe/ensemble_device_emulation_test.cpp: the same functors in a
// loop). Header-only, host + device (MOELAB_HD), C++17 (nvcc), no Eigen.
//
// The layer is moe_layer_hd.hpp's (granularity paper, Sec. 2, Eqs. 2.1-2.2):
//     f(x) = sum_{j in S(x)} g_j(x) (W2_j relu(W1_j x + b1_j) + b2_j)
// written densely over all m experts with the gate matrix G (m x n; G[j, i] = g_j(x_i) for the k
// selected experts of input i, 0 elsewhere):
//     H = relu(W1 X + b1) ((m w) x n, W1 = [W1_1; ...; W1_m]),  Hs = H scaled by row block j of G,
//     f(X) = W2 Hs + B2 G  (W2 = [W2_1 ... W2_m], d_out x (m w);  B2 = [b2_1 ... b2_m]).
// An unselected expert contributes exact zeros (g = 0), so this is the sparse layer's function; it
// costs m/k times the active experts' flops, which for the granularity paper's students and teachers
// (m = 2k, App. D) is 2x, bought back by GEMMs of fixed size batched over runs.
//
// The packed layout of one run's parameters (PackedDims; pack/unpack in ensemble_host.hpp convert
// from and to moe_model.hpp's ParamLayout): router R (m x d, col-major), router bias (m), W1
// ((m w) x d, col-major, leading dimension m w), b1 (m w), W2 (d_out x (m w)), b2 (d_out x m). AdamW
// acts entry by entry, so its moments live in the same layout.
//
// Stacking: a class's per-run buffers are one allocation with a fixed stride per run (run q of the
// class at q * stride); the functors below take the class's base pointers and strides. The step
// number is read from executor memory (`step`), so one recorded step (a CUDA graph) replays for all.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/moe/detail/moe_layer_hd.hpp"

namespace moelab::moe::hd {

/// A data group: one teacher and one data seed (its runs share every batch and the test set).
struct EnsembleGroup {
  LayerDims teacher;
  std::uint64_t data_seed = 0;
};
/// A run: its student, its data group, and its optimiser's scalars of steps 0 .. steps - 1.
template <class S>
struct EnsembleRun {
  LayerDims student;
  int group = 0;
  std::vector<AdamWScalars<S>> adamw;
};


/// Offsets of the packed layout of one MLP layer (see above).
struct PackedDims {
  LayerDims L;
  std::int64_t router_w = 0, router_b = 0, w1 = 0, b1 = 0, w2 = 0, b2 = 0, total = 0;
  MOELAB_HD std::int64_t mw() const { return static_cast<std::int64_t>(L.m) * L.w; }
};

inline PackedDims packed_dims(const LayerDims& L) {
  PackedDims p;
  p.L = L;
  std::int64_t o = 0;
  p.router_w = o;
  if (L.has_router) o += static_cast<std::int64_t>(L.m) * L.d;
  p.router_b = o;
  if (L.router_bias) o += L.m;
  const std::int64_t mw = static_cast<std::int64_t>(L.m) * L.w;
  p.w1 = o, o += mw * L.d;
  p.b1 = o;
  if (L.expert_bias) o += mw;
  p.w2 = o, o += static_cast<std::int64_t>(L.d_out) * mw;
  p.b2 = o;
  if (L.expert_bias) o += static_cast<std::int64_t>(L.d_out) * L.m;
  p.total = o;
  return p;
}

/// X_g[e] = normal(offset + e) of (seeds[g], tag, trial = *step or `trial`) for e < count, 0 for
/// count <= e < size: every data group's batch (or test chunk) in one launch. Index = g size + e.
template <class S>
struct GroupInputs {
  S* X;
  const std::uint64_t* seeds;
  StreamTag tag;
  const std::int64_t* step;  // trial = *step when non-null
  std::uint64_t trial;
  std::int64_t size, count, offset;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t g = idx / size, e = idx % size;
    const std::uint64_t t = step != nullptr ? static_cast<std::uint64_t>(*step) : trial;
    X[idx] = e < count ? static_cast<S>(RandomStream(seeds[g], tag, t).normal(static_cast<std::uint64_t>(offset + e))) : S(0);
  }
};

/// dst[g dst_stride + e] = src[g src_stride + src_off + e] for e < size: a chunk of every group's
/// columns (the fixed training set into the batch buffers, to evaluate the teachers on it).
template <class S>
struct GroupCopy {
  S* dst;
  std::int64_t dst_stride;
  const S* src;
  std::int64_t src_stride, src_off, size;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t g = idx / size, e = idx % size;
    dst[g * dst_stride + e] = src[g * src_stride + src_off + e];
  }
};

/// dst[g dst_stride + dst_off + e] = src[g][e] for e < size: the teachers' outputs of a chunk into
/// the fixed training set's targets.
template <class S>
struct GroupStoreTargets {
  S* dst;
  std::int64_t dst_stride, dst_off;
  S* const* src;
  std::int64_t size;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t g = idx / size, e = idx % size;
    dst[g * dst_stride + dst_off + e] = src[g][e];
  }
};

/// The batch of step *step from a fixed training set of N samples per group (teacher_student.cpp's
/// epoch order: batch b = step mod (N / n) of the epoch visits samples order[b n .. b n + n - 1]):
/// column i of group g's inputs and of its targets (the teacher's output slot T[g]). Index g n + i.
template <class S>
struct GroupGather {
  S* X;
  S* const* T;
  const S* train_x;
  const S* train_t;
  const int* order;  // G x N: this epoch's order of every group
  const std::int64_t* step;
  int d, d_out;
  std::int64_t n, N;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t g = idx / n, i = idx % n, b = *step % (N / n);
    const std::int64_t src = order[g * N + b * n + i];
    for (int c = 0; c < d; ++c) X[(g * n + i) * d + c] = train_x[(g * N + src) * d + c];
    for (int r = 0; r < d_out; ++r) T[g][i * d_out + r] = train_t[(g * N + src) * d_out + r];
  }
};

/// Router bias and routing of input i of run q: logits += b_R, the top-k, the slots' experts and
/// weights, and column i of the dense gate G (zero except the selected experts).
template <class S>
struct DenseRoute {
  S* logits;  // m x n per run
  const S* theta;
  PackedDims P;
  std::int64_t n, theta_stride;
  int* slot_expert;  // n k per run
  S* slot_weight;
  S* G;  // m x n per run
  MOELAB_HD void operator()(std::int64_t idx) const {
    const LayerDims& L = P.L;
    const std::int64_t q = idx / n, i = idx % n;
    const std::int64_t col = q * L.m * n + i * L.m, slot = (q * n + i) * L.k;
    S* z = logits + col;
    S* g = G + col;
    for (int j = 0; j < L.m; ++j) g[j] = S(0);
    if (!L.has_router) {
      slot_expert[slot] = 0, slot_weight[slot] = S(1), g[0] = S(1);
      return;
    }
    if (L.router_bias)
      for (int j = 0; j < L.m; ++j) z[j] += theta[q * theta_stride + P.router_b + j];
    route_sample(z, L.m, L.k, L.weights, slot_expert + slot, slot_weight + slot);
    for (int r = 0; r < L.k; ++r) g[slot_expert[slot + r]] = slot_weight[slot + r];
  }
};

/// H = relu(H + b1) in place, and Hs = H scaled by the gate of its expert: one entry per index.
template <class S>
struct BiasReluGate {
  S* H;
  S* Hs;
  const S* G;
  const S* theta;
  PackedDims P;
  std::int64_t n, theta_stride;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t mw = P.mw(), per = mw * n;
    const std::int64_t q = idx / per, e = idx % per, i = e / mw, row = e % mw;
    S v = H[idx];
    if (P.L.expert_bias) v += theta[q * theta_stride + P.b1 + row];
    v = v > S(0) ? v : S(0);
    H[idx] = v;
    Hs[idx] = v * G[q * P.L.m * n + i * P.L.m + row / P.L.w];
  }
};

/// Y[:, i] += sum_r g_{i,r} b2_{e_r} in rank order (the experts' output biases).
template <class S>
struct AddGatedBias {
  S* Y;
  const S* theta;
  const int* slot_expert;
  const S* slot_weight;
  PackedDims P;
  std::int64_t n, theta_stride;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const LayerDims& L = P.L;
    const std::int64_t per = static_cast<std::int64_t>(L.d_out) * n;
    const std::int64_t q = idx / per, e = idx % per, i = e / L.d_out, r = e % L.d_out, slot = (q * n + i) * L.k;
    const S* b2 = theta + q * theta_stride + P.b2;
    S acc = Y[idx];
    for (int t = 0; t < L.k; ++t) acc += slot_weight[slot + t] * b2[static_cast<std::int64_t>(slot_expert[slot + t]) * L.d_out + r];
    Y[idx] = acc;
  }
};

/// col[q n + i] = sum_r (Y - T)^2 over column i of run q in double (mse_loss's inner sum), for i <
/// count (0 beyond); T of run q at targets[q].
template <class S>
struct RunColumnSquaredError {
  const S* Y;
  const S* const* targets;
  int rows;
  std::int64_t n, count;
  double* col;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t q = idx / n, i = idx % n;
    double s = 0.0;
    if (i < count) {
      const S* y = Y + idx * rows;
      const S* t = targets[q] + i * rows;
      for (int r = 0; r < rows; ++r) {
        const double e = static_cast<double>(y[r]) - static_cast<double>(t[r]);
        s += e * e;
      }
    }
    col[idx] = s;
  }
};

/// Run q's training loss of this step: the column sums in order, / (rows n), into
/// losses[loss_index[q] * stride + *step] (mse_loss's outer sum, same order).
struct RunLoss {
  const double* col;
  std::int64_t n;
  double count;
  const std::int64_t* step;
  const int* loss_index;
  std::int64_t stride;
  double* losses;
  MOELAB_HD void operator()(std::int64_t q) const {
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i) s += col[q * n + i];
    losses[static_cast<std::int64_t>(loss_index[q]) * stride + *step] = s / count;
  }
};

/// acc[index[q]] += sum of run q's first `count` column sums (a test chunk's squared error).
struct RunAccumulate {
  const double* col;
  std::int64_t n, count;
  const int* index;
  double* acc;
  MOELAB_HD void operator()(std::int64_t q) const {
    double s = 0.0;
    for (std::int64_t i = 0; i < count; ++i) s += col[q * n + i];
    acc[index[q]] += s;
  }
};

/// dY = (Y - T) scale (mse_loss's gradient), T of run q at targets[q].
template <class S>
struct RunMseGradient {
  const S* Y;
  const S* const* targets;
  std::int64_t per;  // rows x n
  S scale;
  S* dY;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t q = idx / per, e = idx % per;
    dY[idx] = (Y[idx] - targets[q][e]) * scale;
  }
};

/// dg of slot (i, r) = <dHs_e[:, i], H_e[:, i]> + <dY[:, i], b2_e> (e = the slot's expert): the
/// gradient of the slot's weight (Y = sum_j g_j (W2_j h_j + b2_j)).
template <class S>
struct DenseSlotWeightGradient {
  const S* dHs;
  const S* H;
  const S* dY;
  const S* theta;
  const int* slot_expert;
  PackedDims P;
  std::int64_t n, theta_stride;
  S* dg;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const LayerDims& L = P.L;
    const std::int64_t mw = P.mw();
    const std::int64_t slots = n * L.k, q = idx / slots, s = idx % slots, i = s / L.k;
    const int e = slot_expert[idx];
    const std::int64_t base = q * mw * n + i * mw + static_cast<std::int64_t>(e) * L.w;
    S acc = 0;
    for (int a = 0; a < L.w; ++a) acc += dHs[base + a] * H[base + a];
    if (L.expert_bias) {
      const S* b2 = theta + q * theta_stride + P.b2 + static_cast<std::int64_t>(e) * L.d_out;
      const S* dy = dY + (q * n + i) * L.d_out;
      for (int r = 0; r < L.d_out; ++r) acc += dy[r] * b2[r];
    }
    dg[idx] = acc;
  }
};

/// dHs (= W2' dY) becomes the pre-activation gradient in place: scaled by the gate, 0 where the
/// ReLU was off (H > 0 exactly where the pre-activation was, moe_layer_hd.hpp's ReluMask).
template <class S>
struct DenseReluBackward {
  S* dHs;
  const S* H;
  const S* G;
  PackedDims P;
  std::int64_t n;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t mw = P.mw(), per = mw * n;
    const std::int64_t q = idx / per, e = idx % per, i = e / mw, row = e % mw;
    dHs[idx] = H[idx] > S(0) ? dHs[idx] * G[q * P.L.m * n + i * P.L.m + row / P.L.w] : S(0);
  }
};

/// dlogits[:, i] of run q: zero, then the softmax backward over the selected logits.
template <class S>
struct DenseSoftmaxBackward {
  const int* slot_expert;
  const S* slot_weight;
  const S* dg;
  int m, k;
  S* dlogits;
  MOELAB_HD void operator()(std::int64_t idx) const {
    S* dz = dlogits + idx * m;
    for (int j = 0; j < m; ++j) dz[j] = S(0);
    softmax_backward_sample(slot_expert + idx * k, slot_weight + idx * k, dg + idx * k, k, dz);
  }
};

/// grad[q stride + off + r] = sum over the n columns of run q's M (rows x n), in column order.
template <class S>
struct RunRowSum {
  const S* M;
  int rows;
  std::int64_t n, grad_stride, off;
  S* grad;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t q = idx / rows, r = idx % rows;
    const S* m = M + q * rows * n;
    S acc = 0;
    for (std::int64_t c = 0; c < n; ++c) acc += m[c * rows + r];
    grad[q * grad_stride + off + r] = acc;
  }
};

/// AdamW on every parameter of every run of a class; run q's scalars of step *step at
/// table[*step runs + q].
template <class S>
struct RunAdamW {
  S* theta;
  S* m;
  S* v;
  const S* grad;
  const AdamWScalars<S>* table;
  const std::int64_t* step;
  std::int64_t total, runs;
  MOELAB_HD void operator()(std::int64_t idx) const {
    const std::int64_t q = idx / total;
    adamw_element(theta[idx], m[idx], v[idx], grad[idx], table[*step * runs + q]);
  }
};

/// *step += 1 (the last launch of a recorded step).
struct AdvanceStep {
  std::int64_t* step;
  MOELAB_HD void operator()(std::int64_t) const { *step += 1; }
};

}  // namespace moelab::moe::hd
