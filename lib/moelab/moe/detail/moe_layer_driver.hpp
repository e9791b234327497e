// The sequence of steps of the top-k MoE layer's forward/backward and of one teacher-student training
// step, written once over an executor `Exec` (host code, C++17). kernels/moe_layer.cu instantiates it
// with the CUDA executor (for_each = one kernel launch running a functor of moe_layer_hd.hpp per
// index, gemm = cuBLAS, sort_pairs = CUB's stable radix sort); tests/moe/moe_device_emulation_test.cpp
// with a CPU executor (for_each = a loop, gemm = Eigen on the same pointers and leading dimensions,
// sort_pairs = std::stable_sort). The device therefore runs exactly the steps, layouts and index
// arithmetic the CPU emulation tests; only the GEMMs' summation order and contraction differ.
//
// Exec provides:
//   template <class T> using Buffer = ...;           resize(n) (contents lost when grown), get()
//   template <class F> void for_each(int64 n, const F& f);   f(e) for e = 0 .. n-1, any order
//   template <class S> void gemm(bool ta, bool tb, int m, int n, int k, const S* A, int lda,
//                                const S* B, int ldb, S* C, int ldc);   C = op(A) op(B) (column-major)
//   template <class T> void zero(T* p, int64 n);
//   void sort_pairs(const int* keys, int* keys_out, const int* vals, int* vals_out, int64 n, int end_bit);  stable
//   template <class T> void upload(T* dst, const T* host, int64 n);  download(T* host, const T* src, int64 n)
// Every pointer handed to the runner lives where the executor computes (device memory for CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "moelab/moe/detail/moe_layer_hd.hpp"

namespace moelab::moe::hd {

/// Bits of an expert index (the sort's end bit): ceil(log2 m), at least 1.
inline int expert_bits(int m) {
  int b = 1;
  while ((1 << b) < m) ++b;
  return b;
}

/// One MoE layer's forward (keeping what backward needs) and backward on an executor.
template <class S, class Exec>
class LayerRunner {
 public:
  template <class T>
  using Buf = typename Exec::template Buffer<T>;

  LayerRunner(Exec& ex, const LayerDims& L) : ex_(ex), L_(L), begin_h_(static_cast<std::size_t>(L.m)), end_h_(static_cast<std::size_t>(L.m)) {
    group_begin_.resize(static_cast<std::size_t>(L.m));
    group_end_.resize(static_cast<std::size_t>(L.m));
  }
  const LayerDims& dims() const { return L_; }
  std::int64_t n() const { return n_; }
  /// Group sizes of the last forward (host copies).
  int group_size(int j) const { return end_h_[static_cast<std::size_t>(j)] - begin_h_[static_cast<std::size_t>(j)]; }
  const int* slot_expert() const { return slot_expert_.get(); }
  const S* slot_weight() const { return slot_weight_.get(); }
  const int* sorted_slot() const { return sorted_slot_.get(); }

  /// Y (d_out x n) = f(X) for X (d x n); `oracle` (n experts) only for oracle weighting. X must stay
  /// unchanged until backward (the router's gradient reads it).
  void forward(const S* theta, const S* X, const int* oracle, std::int64_t n, S* Y) {
    const LayerDims& L = L_;
    if (L.weights == Weights::oracle && oracle == nullptr) throw std::invalid_argument("MoE layer: oracle routing needs one expert per input");
    n_ = n;
    X_ = X;
    const std::int64_t slots = n * L.k;
    reserve(n);
    if (L.has_router) {
      ex_.gemm(false, false, L.m, static_cast<int>(n), L.d, theta + L.router_w, L.m, X, L.d, logits_.get(), L.m);
      if (L.router_bias) ex_.for_each(static_cast<std::int64_t>(L.m) * n, AddRowBias<S>{logits_.get(), theta + L.router_b, L.m});
    }
    ex_.for_each(n, RouteSamples<S>{logits_.get(), oracle, L, slot_expert_.get(), slot_weight_.get()});
    // Grouping: the slots sorted stably by expert (a counting sort on the expert's bits).
    ex_.for_each(slots, Iota{iota_.get()});
    ex_.sort_pairs(slot_expert_.get(), sorted_expert_.get(), iota_.get(), sorted_slot_.get(), slots, expert_bits(L.m));
    ex_.zero(group_begin_.get(), L.m);
    ex_.zero(group_end_.get(), L.m);
    ex_.for_each(slots, GroupBounds{sorted_expert_.get(), sorted_slot_.get(), slots, group_begin_.get(), group_end_.get(), slot_pos_.get()});
    ex_.download(begin_h_.data(), group_begin_.get(), L.m);  // the GEMM sizes (one host synchronisation)
    ex_.download(end_h_.data(), group_end_.get(), L.m);
    ex_.for_each(slots * L.d, Gather<S>{X, sorted_slot_.get(), L.d, L.k, Xg_.get()});
    const int r1 = L.rows1();
    S* first = L.mlp ? H_.get() : Out_.get();
    for (int j = 0; j < L.m; ++j) {
      const int b = begin_h_[static_cast<std::size_t>(j)], nj = group_size(j);
      if (nj == 0) continue;
      ex_.gemm(false, false, r1, nj, L.d, theta + L.expert(j) + L.w1, r1, Xg_.get() + static_cast<std::int64_t>(b) * L.d, L.d,
               first + static_cast<std::int64_t>(b) * r1, r1);
    }
    if (L.mlp) {
      ex_.for_each(slots * L.w, ExpertBiasRelu<S>{H_.get(), theta, sorted_expert_.get(), L, L.w, L.expert_bias ? L.b1 : -1, true});
      for (int j = 0; j < L.m; ++j) {
        const int b = begin_h_[static_cast<std::size_t>(j)], nj = group_size(j);
        if (nj == 0) continue;
        ex_.gemm(false, false, L.d_out, nj, L.w, theta + L.expert(j) + L.w2, L.d_out, H_.get() + static_cast<std::int64_t>(b) * L.w, L.w,
                 Out_.get() + static_cast<std::int64_t>(b) * L.d_out, L.d_out);
      }
      if (L.expert_bias) ex_.for_each(slots * L.d_out, ExpertBiasRelu<S>{Out_.get(), theta, sorted_expert_.get(), L, L.d_out, L.b2, false});
    } else if (L.expert_bias) {
      ex_.for_each(slots * L.d_out, ExpertBiasRelu<S>{Out_.get(), theta, sorted_expert_.get(), L, L.d_out, L.b1, false});
    }
    ex_.for_each(n * L.d_out, Combine<S>{Out_.get(), slot_pos_.get(), slot_weight_.get(), L.d_out, L.k, Y});
  }

  /// grad (L.total entries, overwritten) = dL/dtheta for dY = dL/dY (d_out x n) of the last forward.
  /// The top-k selection is piecewise constant: its derivative is 0 (as MoeModel's backward).
  void backward(const S* theta, const S* dY, S* grad) {
    const LayerDims& L = L_;
    const std::int64_t n = n_, slots = n * L.k;
    ex_.zero(grad, L.total);
    ex_.for_each(slots * L.d_out, ScaleOutputGradient<S>{dY, sorted_slot_.get(), slot_weight_.get(), L.d_out, L.k, dOut_.get()});
    const bool need_dg = L.has_router && L.weights == Weights::softmax;
    if (need_dg) ex_.for_each(slots, SlotWeightGradient<S>{dY, Out_.get(), sorted_slot_.get(), L.d_out, L.k, dg_.get()});
    auto each_group = [&](auto&& body) {
      for (int j = 0; j < L.m; ++j) {
        const int nj = group_size(j);
        if (nj > 0) body(j, static_cast<std::int64_t>(begin_h_[static_cast<std::size_t>(j)]), nj);
      }
    };
    if (L.mlp) {
      // dW2_j = dOut_j H_j'   (d_out x w)
      each_group([&](int j, std::int64_t b, int nj) {
        ex_.gemm(false, true, L.d_out, L.w, nj, dOut_.get() + b * L.d_out, L.d_out, H_.get() + b * L.w, L.w, grad + L.expert(j) + L.w2, L.d_out);
      });
      if (L.expert_bias)
        ex_.for_each(static_cast<std::int64_t>(L.m) * L.d_out,
                     ExpertBiasGradient<S>{dOut_.get(), group_begin_.get(), group_end_.get(), L, L.d_out, L.b2, grad});
      // dH_j = W2_j' dOut_j, masked by the ReLU   (w x n_j)
      each_group([&](int j, std::int64_t b, int nj) {
        ex_.gemm(true, false, L.w, nj, L.d_out, theta + L.expert(j) + L.w2, L.d_out, dOut_.get() + b * L.d_out, L.d_out, dH_.get() + b * L.w, L.w);
      });
      ex_.for_each(slots * L.w, ReluMask<S>{dH_.get(), H_.get()});
      // dW1_j = dPre_j Xg_j'   (w x d)
      each_group([&](int j, std::int64_t b, int nj) {
        ex_.gemm(false, true, L.w, L.d, nj, dH_.get() + b * L.w, L.w, Xg_.get() + b * L.d, L.d, grad + L.expert(j) + L.w1, L.w);
      });
      if (L.expert_bias)
        ex_.for_each(static_cast<std::int64_t>(L.m) * L.w, ExpertBiasGradient<S>{dH_.get(), group_begin_.get(), group_end_.get(), L, L.w, L.b1, grad});
    } else {
      each_group([&](int j, std::int64_t b, int nj) {
        ex_.gemm(false, true, L.d_out, L.d, nj, dOut_.get() + b * L.d_out, L.d_out, Xg_.get() + b * L.d, L.d, grad + L.expert(j) + L.w1, L.d_out);
      });
      if (L.expert_bias)
        ex_.for_each(static_cast<std::int64_t>(L.m) * L.d_out,
                     ExpertBiasGradient<S>{dOut_.get(), group_begin_.get(), group_end_.get(), L, L.d_out, L.b1, grad});
    }
    if (!need_dg) return;  // equal and oracle weights do not depend on the router
    ex_.zero(dlogits_.get(), static_cast<std::int64_t>(L.m) * n);
    ex_.for_each(n, SoftmaxBackward<S>{slot_expert_.get(), slot_weight_.get(), dg_.get(), L.m, L.k, dlogits_.get()});
    ex_.gemm(false, true, L.m, L.d, static_cast<int>(n), dlogits_.get(), L.m, X_, L.d, grad + L.router_w, L.m);
    if (L.router_bias) ex_.for_each(L.m, RowSum<S>{dlogits_.get(), L.m, n, grad + L.router_b});
  }

  /// dX (d x n, overwritten) = J' dY, the layer's input gradient with the routing held fixed, for
  /// the dY of the last backward (which must have run: this reads its dOut, dH and dlogits). The
  /// residual stream of a transformer block needs it (transformer.hpp's moe_input_gradient computes
  /// the same on the CPU):
  ///   experts   dXg_j = W1_j' dPre_j (MLP, dPre = W2_j' dOut_j masked by the ReLU) or W1_j' dOut_j
  ///             (linear), dOut_j = g dY; summed back per input over its k slots in rank order;
  ///   router    (softmax over the selected logits) + R' dz, dz the softmax backward of backward().
  void input_gradient(const S* theta, S* dX) {
    const LayerDims& L = L_;
    const std::int64_t n = n_;
    const int r1 = L.rows1();
    const S* dfirst = L.mlp ? dH_.get() : dOut_.get();
    dXg_.resize(static_cast<std::size_t>(n * L.k) * static_cast<std::size_t>(L.d));  // sized on first use: only a block needs it
    for (int j = 0; j < L.m; ++j) {
      const int nj = group_size(j);
      if (nj == 0) continue;
      const std::int64_t b = begin_h_[static_cast<std::size_t>(j)];
      ex_.gemm(true, false, L.d, nj, r1, theta + L.expert(j) + L.w1, r1, dfirst + b * r1, r1, dXg_.get() + b * L.d, L.d);
    }
    ex_.for_each(n * L.d, ScatterInputGradient<S>{dXg_.get(), slot_pos_.get(), L.d, L.k, dX});
    if (!(L.has_router && L.weights == Weights::softmax)) return;
    dXr_.resize(static_cast<std::size_t>(L.d) * static_cast<std::size_t>(n));
    ex_.gemm(true, false, L.d, static_cast<int>(n), L.m, theta + L.router_w, L.m, dlogits_.get(), L.m, dXr_.get(), L.d);
    ex_.for_each(n * L.d, AddInPlace<S>{dX, dXr_.get()});
  }

 private:
  void reserve(std::int64_t n) {
    const LayerDims& L = L_;
    const auto slots = static_cast<std::size_t>(n * L.k);
    const auto un = static_cast<std::size_t>(n);
    logits_.resize(L.has_router ? static_cast<std::size_t>(L.m) * un : 1);
    dlogits_.resize(L.has_router ? static_cast<std::size_t>(L.m) * un : 1);
    slot_expert_.resize(slots);
    slot_weight_.resize(slots);
    dg_.resize(slots);
    iota_.resize(slots);
    sorted_expert_.resize(slots);
    sorted_slot_.resize(slots);
    slot_pos_.resize(slots);
    Xg_.resize(slots * static_cast<std::size_t>(L.d));
    H_.resize(L.mlp ? slots * static_cast<std::size_t>(L.w) : 1);
    dH_.resize(L.mlp ? slots * static_cast<std::size_t>(L.w) : 1);
    Out_.resize(slots * static_cast<std::size_t>(L.d_out));
    dOut_.resize(slots * static_cast<std::size_t>(L.d_out));
  }

  Exec& ex_;
  LayerDims L_;
  std::int64_t n_ = 0;
  const S* X_ = nullptr;
  Buf<S> logits_, dlogits_, slot_weight_, dg_, Xg_, H_, dH_, Out_, dOut_, dXg_, dXr_;
  Buf<int> slot_expert_, iota_, sorted_expert_, sorted_slot_, slot_pos_, group_begin_, group_end_;
  std::vector<int> begin_h_, end_h_;
};

/// MSE over all entries of Y, T (rows x n) into *loss_out (a double where the executor computes):
/// per-column sums in double, then their sum in column order (mse_loss's order); dY when non-null.
template <class S, class Exec>
void mse_on(Exec& ex, const S* Y, const S* T, int rows, std::int64_t n, S* dY, double* columns, double* loss_out) {
  const double count = static_cast<double>(rows) * static_cast<double>(n);
  ex.for_each(n, ColumnSquaredError<S>{Y, T, rows, columns});
  ex.for_each(1, SerialMean{columns, n, count, loss_out});
  if (dY != nullptr) ex.for_each(static_cast<std::int64_t>(rows) * n, MseGradient<S>{Y, T, static_cast<S>(2.0 / count), dY});
}

/// Teacher-student training on an executor (teacher_student.hpp's online mode): per step the batch
/// X ~ N(0, I_d) at (data_seed, moe_train_data, step) addresses, T = teacher(X), the student's forward,
/// the MSE (kept where the executor computes, one double per step), backward, AdamW.
template <class S, class Exec>
class TrainerCore {
 public:
  template <class T>
  using Buf = typename Exec::template Buffer<T>;

  TrainerCore(Exec& ex, const LayerDims& teacher, const LayerDims& student)
      : ex_(ex), teacher_(ex, teacher), student_(ex, student) {
    if (teacher.d != student.d || teacher.d_out != student.d_out) throw std::invalid_argument("TrainerCore: teacher and student dimensions differ");
    theta_t_.resize(static_cast<std::size_t>(teacher.total));
    theta_s_.resize(static_cast<std::size_t>(student.total));
    grad_.resize(static_cast<std::size_t>(student.total));
    m_.resize(static_cast<std::size_t>(student.total));
    v_.resize(static_cast<std::size_t>(student.total));
    ex_.zero(m_.get(), student.total);
    ex_.zero(v_.get(), student.total);
    scalar_.resize(1);
  }
  LayerRunner<S, Exec>& student() { return student_; }
  LayerRunner<S, Exec>& teacher() { return teacher_; }
  S* teacher_params() { return theta_t_.get(); }
  S* student_params() { return theta_s_.get(); }
  S* adam_m() { return m_.get(); }
  S* adam_v() { return v_.get(); }
  const S* last_gradient() const { return grad_.get(); }
  const S* batch_inputs() const { return X_.get(); }
  const S* batch_targets() const { return T_.get(); }
  /// Room for the loss of `steps` steps (kept on the executor's side until read).
  void reserve_losses(std::int64_t steps) { losses_.resize(static_cast<std::size_t>(steps > 0 ? steps : 1)); }
  double* losses() { return losses_.get(); }

  /// Training step number `step` (its batch is trial `step` of the training stream).
  void step(std::uint64_t data_seed, std::int64_t step, std::int64_t batch, const AdamWScalars<S>& a) {
    const LayerDims& Ls = student_.dims();
    const int d = Ls.d, d_out = Ls.d_out;
    X_.resize(static_cast<std::size_t>(d) * static_cast<std::size_t>(batch));
    T_.resize(static_cast<std::size_t>(d_out) * static_cast<std::size_t>(batch));
    Y_.resize(static_cast<std::size_t>(d_out) * static_cast<std::size_t>(batch));
    dY_.resize(static_cast<std::size_t>(d_out) * static_cast<std::size_t>(batch));
    columns_.resize(static_cast<std::size_t>(batch));
    ex_.for_each(static_cast<std::int64_t>(d) * batch,
                 NormalInputs<S>{X_.get(), data_seed, StreamTag::moe_train_data, static_cast<std::uint64_t>(step)});
    teacher_.forward(theta_t_.get(), X_.get(), nullptr, batch, T_.get());
    student_.forward(theta_s_.get(), X_.get(), nullptr, batch, Y_.get());
    mse_on<S>(ex_, Y_.get(), T_.get(), d_out, batch, dY_.get(), columns_.get(), losses_.get() + step);
    student_.backward(theta_s_.get(), dY_.get(), grad_.get());
    ex_.for_each(Ls.total, AdamWUpdate<S>{theta_s_.get(), m_.get(), v_.get(), grad_.get(), a});
  }

  /// Test inputs (d x n at (data_seed, moe_test_data, 0)) and the teacher's targets, in chunks.
  void make_test_set(std::uint64_t data_seed, std::int64_t n, std::int64_t chunk) {
    const LayerDims& L = teacher_.dims();
    test_n_ = n;
    chunk_ = chunk;
    test_x_.resize(static_cast<std::size_t>(L.d) * static_cast<std::size_t>(n));
    test_t_.resize(static_cast<std::size_t>(L.d_out) * static_cast<std::size_t>(n));
    ex_.for_each(static_cast<std::int64_t>(L.d) * n, NormalInputs<S>{test_x_.get(), data_seed, StreamTag::moe_test_data, 0});
    for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
      const std::int64_t c = n - i0 < chunk ? n - i0 : chunk;
      teacher_.forward(theta_t_.get(), test_x_.get() + i0 * L.d, nullptr, c, test_t_.get() + i0 * L.d_out);
    }
  }
  const S* test_targets() const { return test_t_.get(); }

  /// Test MSE per entry of the student (teacher_student.cpp's test_mse: chunk MSEs weighted by size).
  double test_mse() {
    const LayerDims& L = student_.dims();
    Y_.resize(static_cast<std::size_t>(L.d_out) * static_cast<std::size_t>(chunk_));
    columns_.resize(static_cast<std::size_t>(chunk_));
    double sum = 0.0;
    for (std::int64_t i0 = 0; i0 < test_n_; i0 += chunk_) {
      const std::int64_t c = test_n_ - i0 < chunk_ ? test_n_ - i0 : chunk_;
      student_.forward(theta_s_.get(), test_x_.get() + i0 * L.d, nullptr, c, Y_.get());
      mse_on<S>(ex_, Y_.get(), test_t_.get() + i0 * L.d_out, L.d_out, c, static_cast<S*>(nullptr), columns_.get(), scalar_.get());
      double mse = 0.0;
      ex_.download(&mse, scalar_.get(), 1);
      sum += mse * static_cast<double>(c);
    }
    return sum / static_cast<double>(test_n_);
  }

 private:
  Exec& ex_;
  LayerRunner<S, Exec> teacher_, student_;
  Buf<S> theta_t_, theta_s_, grad_, m_, v_, X_, T_, Y_, dY_, test_x_, test_t_;
  Buf<double> columns_, losses_, scalar_;
  std::int64_t test_n_ = 0, chunk_ = 4096;
};

}  // namespace moelab::moe::hd
