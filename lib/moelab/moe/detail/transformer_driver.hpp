// The training step of the transformer block with an MoE FFN and a last-token classifier
// (moe/transformer.hpp: block_forward, sequence_loss, block_backward, train_step), written once over
// an executor `Exec` (moe_layer_driver.hpp's interface: for_each, gemm, zero, sort_pairs, upload,
// download). kernels/moe_layer.cu instantiates it with the CUDA executor (for_each = one kernel
// launch of a transformer_hd.hpp / moe_layer_hd.hpp functor, gemm = cuBLAS);
// tests/moe/transformer_device_emulation_test.cpp with a CPU executor, against the CPU block. The
// attention's per-index pieces are attention_kernels.hpp's, the MoE FFN is LayerRunner (top-k
// routing, softmax over the selected logits or equal weights; other gates are refused by
// layer_dims) on the last token of each sequence (the only one the read-out reads), the products
// GEMMs on the same column-major buffers as the CPU's. The steps and their order are the CPU's;
// only summation orders differ (GEMM blocking; the MoE's input gradient summed
// per input over its slots instead of per expert; the loss summed per sequence, then over
// sequences), so the two agree to rounding.
//
// Every pointer handed to the runner lives where the executor computes. One flat parameter vector
// (BlockDims's layout: block | FFN | read-out), its gradient and its AdamW moments.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "moelab/moe/detail/moe_layer_driver.hpp"
#include "moelab/moe/detail/transformer_hd.hpp"

namespace moelab::moe::hd {

template <class S, class Exec>
class TransformerRunner {
 public:
  template <class T>
  using Buf = typename Exec::template Buffer<T>;

  TransformerRunner(Exec& ex, const BlockDims& B) : ex_(ex), B_(B), ffn_(ex, B.ffn) {
    if (B.ffn.d != B.d || B.ffn.d_out != B.d) throw std::invalid_argument("TransformerRunner: the FFN must map d to d");
  }
  const BlockDims& dims() const { return B_; }
  LayerRunner<S, Exec>& ffn() { return ffn_; }

  /// logits (C x n, where the executor computes; read by logits()) of the n sequences of T tokens in
  /// X (d x T n), keeping what backward needs. X must stay unchanged until backward.
  void forward(const S* theta, const S* X, int T, std::int64_t n) {
    const BlockDims& B = B_;
    const int d = B.d, P = B.P(), C = B.C();
    const std::int64_t cols = n * T;
    reserve(T, n);
    T_ = T, n_ = n;
    const attn::Dims a = B.attention(T, static_cast<int>(n));
    const S* blk = theta;
    // N1 = LN1(X) or X.
    const S* N1 = X;
    if (B.layernorm) {
      ex_.for_each(cols, LayerNormTokens<S>{d, X, blk + B.norm1, static_cast<S>(B.ln_eps), xhat1_.get(), rstd1_.get(), N1_.get()});
      N1 = N1_.get();
    }
    N1p_ = N1;
    ex_.gemm(false, false, P, static_cast<int>(cols), d, blk + B.wq, P, N1, d, Q_.get(), P);
    ex_.gemm(false, false, P, static_cast<int>(cols), d, blk + B.wk, P, N1, d, K_.get(), P);
    ex_.gemm(false, false, P, static_cast<int>(cols), d, blk + B.wv, P, N1, d, V_.get(), P);
    ex_.for_each(cols, AttentionWeights<S>{a, Q_.get(), K_.get(), A_.get(), rnorm_.get()});
    ex_.for_each(cols, AttentionValues<S>{a, A_.get(), V_.get(), U_.get(), Z_.get()});
    // H1 = X + Wo U.
    ex_.gemm(false, false, d, static_cast<int>(cols), P, blk + B.wo, d, U_.get(), P, tmp_.get(), d);
    ex_.for_each(cols * d, AddTo<S>{X, tmp_.get(), H1_.get()});
    const S* N2 = H1_.get();
    if (B.layernorm) {
      ex_.for_each(cols, LayerNormTokens<S>{d, H1_.get(), blk + B.norm2, static_cast<S>(B.ln_eps), xhat2_.get(), rstd2_.get(), N2_.get()});
      N2 = N2_.get();
    }
    // Y = H1 + MoE(N2), read only at the last token of every sequence (by the read-out: one block).
    // A token's FFN output depends on that token alone, so the FFN runs on the n last tokens only,
    // a factor T less of its work. The CPU block runs it on all T n tokens, where every other
    // token's output gets a zero gradient: the same parameters and gradients, to summation order.
    ex_.for_each(n * d, GatherLastTokens<S>{N2, d, T, N2last_.get()});
    ffn_.forward(theta + B.ffn_offset, N2last_.get(), nullptr, n, F_.get());
    ex_.for_each(n * d, GatherLastTokens<S>{H1_.get(), d, T, tmp_.get()});
    ex_.for_each(n * d, AddTo<S>{tmp_.get(), F_.get(), last_.get()});
    const S* Wr = theta + B.readout_offset;
    ex_.gemm(false, false, C, static_cast<int>(n), d, Wr, C, last_.get(), d, logits_.get(), C);
    ex_.for_each(static_cast<std::int64_t>(C) * n, AddReadoutBias<S>{logits_.get(), Wr + static_cast<std::int64_t>(C) * d, C});
  }

  /// The mean cross-entropy of the last forward's logits against labels (n x out_heads, where the
  /// executor computes) into *loss_out (a double there), every sequence's exact match into
  /// correct() and, with `gradient`, the loss's gradient w.r.t. the logits (for backward).
  void loss(const int* labels, bool gradient, double* loss_out) {
    const BlockDims& B = B_;
    const double norm = 1.0 / (static_cast<double>(n_) * B.out_heads);
    ex_.for_each(n_, SoftmaxCrossEntropy<S>{logits_.get(), labels, B.out_heads, B.classes, norm, seq_loss_.get(), correct_.get(),
                                            gradient ? dlogits_.get() : nullptr});
    ex_.for_each(1, SerialSum{seq_loss_.get(), n_, loss_out});
  }

  /// grad (B.total entries, overwritten) = dL/dtheta of the last loss(…, true).
  void backward(const S* theta, S* grad) {
    const BlockDims& B = B_;
    const int d = B.d, P = B.P(), C = B.C(), T = T_;
    const std::int64_t n = n_, cols = n * T;
    const attn::Dims a = B.attention(T, static_cast<int>(n));
    const S* blk = theta;
    S* gblk = grad;
    // Read-out: dWr = dlogits last', dbr = row sums; the last tokens get Wr' dlogits, the others 0.
    const S* Wr = theta + B.readout_offset;
    ex_.gemm(false, true, C, d, static_cast<int>(n), dlogits_.get(), C, last_.get(), d, grad + B.readout_offset, C);
    ex_.for_each(C, RowSum<S>{dlogits_.get(), C, n, grad + B.readout_offset + static_cast<std::int64_t>(C) * d});
    ex_.gemm(true, false, d, static_cast<int>(n), C, Wr, C, dlogits_.get(), C, dlast_.get(), d);
    ex_.for_each(cols * d, ScatterLastTokens<S>{dlast_.get(), d, T, dY_.get()});
    // Y = H1 + MoE(N2) (the FFN on the last tokens): the FFN's parameters, and dH1 = dY + (through
    // LN2) J' dY, J' dY scattered back to the last tokens (0 on the others).
    ffn_.backward(theta + B.ffn_offset, dlast_.get(), grad + B.ffn_offset);
    ffn_.input_gradient(theta + B.ffn_offset, dNlast_.get());
    ex_.for_each(cols * d, ScatterLastTokens<S>{dNlast_.get(), d, T, dN_.get()});
    if (B.layernorm) {
      ex_.for_each(d, LayerNormParamGradient<S>{d, cols, dN_.get(), xhat2_.get(), gblk + B.norm2});
      ex_.for_each(cols * d, CopyTo<S>{dY_.get(), dH1_.get()});  // dH1 = dY + LN2's part
      ex_.for_each(cols, LayerNormTokensBackward<S>{d, dN_.get(), xhat2_.get(), rstd2_.get(), blk + B.norm2, dH1_.get()});
    } else {
      ex_.for_each(cols * d, AddTo<S>{dY_.get(), dN_.get(), dH1_.get()});
    }
    // H1 = X + Wo U.
    ex_.gemm(false, true, d, P, static_cast<int>(cols), dH1_.get(), d, U_.get(), P, gblk + B.wo, d);
    ex_.gemm(true, false, P, static_cast<int>(cols), d, blk + B.wo, d, dH1_.get(), d, dU_.get(), P);
    // The attention: per (s, q), then per (s, k).
    ex_.for_each(cols, AttentionBackwardQuery<S>{a, dU_.get(), A_.get(), V_.get(), K_.get(), Z_.get(), rnorm_.get(), dA_.get(), dS_.get(),
                                                 dZ_.get(), dQ_.get()});
    ex_.for_each(cols, AttentionBackwardKey<S>{a, dU_.get(), A_.get(), Q_.get(), dS_.get(), dZ_.get(), dK_.get(), dV_.get()});
    ex_.gemm(false, true, P, d, static_cast<int>(cols), dQ_.get(), P, N1p_, d, gblk + B.wq, P);
    ex_.gemm(false, true, P, d, static_cast<int>(cols), dK_.get(), P, N1p_, d, gblk + B.wk, P);
    ex_.gemm(false, true, P, d, static_cast<int>(cols), dV_.get(), P, N1p_, d, gblk + B.wv, P);
    if (!B.layernorm) return;  // dX itself is not needed: X is data
    // LN1's gain and bias: dN1 = Wq' dQ + Wk' dK + Wv' dV (transformer.cpp's order).
    ex_.gemm(true, false, d, static_cast<int>(cols), P, blk + B.wq, P, dQ_.get(), P, dN_.get(), d);
    ex_.gemm(true, false, d, static_cast<int>(cols), P, blk + B.wk, P, dK_.get(), P, tmp_.get(), d);
    ex_.for_each(cols * d, AddInPlace<S>{dN_.get(), tmp_.get()});
    ex_.gemm(true, false, d, static_cast<int>(cols), P, blk + B.wv, P, dV_.get(), P, tmp_.get(), d);
    ex_.for_each(cols * d, AddInPlace<S>{dN_.get(), tmp_.get()});
    ex_.for_each(d, LayerNormParamGradient<S>{d, cols, dN_.get(), xhat1_.get(), gblk + B.norm1});
  }

  /// One training step on the batch (X, labels where the executor computes): forward, loss into
  /// *loss_out, backward into grad, AdamW on theta with moments m, v.
  void step(S* theta, S* m, S* v, S* grad, const S* X, const int* labels, int T, std::int64_t n, const AdamWScalars<S>& sc,
            double* loss_out) {
    forward(theta, X, T, n);
    loss(labels, true, loss_out);
    backward(theta, grad);
    ex_.for_each(B_.total, AdamWUpdate<S>{theta, m, v, grad, sc});
  }

  const S* logits() const { return logits_.get(); }
  const int* correct() const { return correct_.get(); }

 private:
  void reserve(int T, std::int64_t n) {
    const BlockDims& B = B_;
    const auto cols = static_cast<std::size_t>(n * T), un = static_cast<std::size_t>(n);
    const auto d = static_cast<std::size_t>(B.d), P = static_cast<std::size_t>(B.P()), C = static_cast<std::size_t>(B.C());
    const auto att = un * static_cast<std::size_t>(B.H) * static_cast<std::size_t>(T) * static_cast<std::size_t>(T);
    const auto pairs = un * static_cast<std::size_t>(T) * static_cast<std::size_t>(T);
    const bool ln = B.layernorm;
    N1_.resize(ln ? d * cols : 1), xhat1_.resize(ln ? d * cols : 1), rstd1_.resize(ln ? cols : 1);
    N2_.resize(ln ? d * cols : 1), xhat2_.resize(ln ? d * cols : 1), rstd2_.resize(ln ? cols : 1);
    Q_.resize(P * cols), K_.resize(P * cols), V_.resize(P * cols), U_.resize(P * cols);
    A_.resize(att), dA_.resize(att), dS_.resize(att);
    rnorm_.resize(B.kind == attn::Kind::softmax ? 1 : pairs);
    const std::size_t zsize = B.kind == attn::Kind::hyla ? pairs * static_cast<std::size_t>(B.dh) : 1;
    Z_.resize(zsize), dZ_.resize(zsize);
    tmp_.resize(d * cols), H1_.resize(d * cols), N2last_.resize(d * un), F_.resize(d * un), dNlast_.resize(d * un);
    dY_.resize(d * cols), dN_.resize(d * cols), dH1_.resize(d * cols);
    dU_.resize(P * cols), dQ_.resize(P * cols), dK_.resize(P * cols), dV_.resize(P * cols);
    last_.resize(d * un), dlast_.resize(d * un), logits_.resize(C * un), dlogits_.resize(C * un);
    seq_loss_.resize(un), correct_.resize(un);
  }

  Exec& ex_;
  BlockDims B_;
  LayerRunner<S, Exec> ffn_;
  int T_ = 1;
  std::int64_t n_ = 0;
  const S* N1p_ = nullptr;
  Buf<S> N1_, xhat1_, rstd1_, N2_, xhat2_, rstd2_, Q_, K_, V_, U_, A_, rnorm_, Z_, tmp_, H1_, N2last_, F_, last_, logits_;
  Buf<S> dlogits_, dlast_, dY_, dN_, dNlast_, dH1_, dU_, dA_, dS_, dZ_, dQ_, dK_, dV_;
  Buf<double> seq_loss_;
  Buf<int> correct_;
};

}  // namespace moelab::moe::hd
