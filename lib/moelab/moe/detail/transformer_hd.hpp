// The per-index pieces of the transformer block's training step (moe/transformer.hpp: attention,
// optional pre-norm LayerNorm, MoE FFN, last-token read-out with a softmax cross-entropy), as
// functors that one device thread per index runs (kernels/moe_layer.cu's for_each) and the CPU
// emulation runs in a loop (tests/moe/transformer_device_emulation_test.cpp). The attention's and
// LayerNorm's arithmetic is attention_kernels.hpp's, called unchanged; the cross-entropy is
// transformer.cpp's sequence_loss expression for expression. Header-only, host + device
// (MOELAB_HD), C++17 (nvcc), no Eigen.
//
// Buffers as transformer.hpp's: a batch of n sequences of T tokens is one d x (T n) column-major
// matrix, token t of sequence s in column s T + t; the attention layouts of attention_kernels.hpp.
#pragma once

#include <math.h>  // exp, log in the global namespace (host and device)

#include <cstdint>

#include "moelab/moe/attention_kernels.hpp"
#include "moelab/moe/detail/moe_layer_hd.hpp"

namespace moelab::moe::hd {

/// The shape of one block with its read-out, and the offsets of one flat parameter vector
///   [block (transformer.hpp's params() layout) | MoE FFN (moe_model.hpp's) | read-out [Wr (C x d) | br (C)]]
/// so that the gradient and the AdamW moments of all three are one vector (one AdamW pass: the CPU's
/// three adamw_update calls share the step count, so their scalars are the same).
struct BlockDims {
  int d = 1, H = 1, dh = 1;
  attn::Kind kind = attn::Kind::softmax;
  bool causal = false;
  double rms_eps = 1e-6;
  bool layernorm = false;
  double ln_eps = 1e-5;
  LayerDims ffn;
  int out_heads = 1, classes = 2;
  std::int64_t wq = 0, wk = 0, wv = 0, wo = 0, norm1 = 0, norm2 = 0;  // inside the block's part
  std::int64_t block_size = 0, ffn_offset = 0, readout_offset = 0, total = 0;

  MOELAB_HD int P() const { return H * dh; }
  MOELAB_HD int C() const { return out_heads * classes; }
  attn::Dims attention(int T, int n) const {
    attn::Dims a;
    a.T = T, a.n = n, a.H = H, a.dh = dh, a.kind = kind, a.causal = causal, a.rms_eps = rms_eps;
    return a;
  }
};

/// Index (s, q) = (e / T, e % T): attention_kernels.hpp's weights_query.
template <class S>
struct AttentionWeights {
  attn::Dims a;
  const S* Q;
  const S* K;
  S* A;
  S* rnorm;
  MOELAB_HD void operator()(std::int64_t e) const {
    attn::weights_query<S>(a, Q, K, static_cast<int>(e / a.T), static_cast<int>(e % a.T), A, rnorm);
  }
};

/// Index (s, q): values_query (column (s, q) of U; HYLA's Z).
template <class S>
struct AttentionValues {
  attn::Dims a;
  const S* A;
  const S* V;
  S* U;
  S* Z;
  MOELAB_HD void operator()(std::int64_t e) const {
    attn::values_query<S>(a, A, V, static_cast<int>(e / a.T), static_cast<int>(e % a.T), U, Z);
  }
};

/// Index (s, q): backward_query (dA, dS, dZ of query q, column (s, q) of dQ).
template <class S>
struct AttentionBackwardQuery {
  attn::Dims a;
  const S* dU;
  const S* A;
  const S* V;
  const S* K;
  const S* Z;
  const S* rnorm;
  S* dA;
  S* dS;
  S* dZ;
  S* dQ;
  MOELAB_HD void operator()(std::int64_t e) const {
    attn::backward_query<S>(a, dU, A, V, K, Z, rnorm, static_cast<int>(e / a.T), static_cast<int>(e % a.T), dA, dS, dZ, dQ);
  }
};

/// Index (s, k): backward_key (columns (s, k) of dK and dV); after every AttentionBackwardQuery.
template <class S>
struct AttentionBackwardKey {
  attn::Dims a;
  const S* dU;
  const S* A;
  const S* Q;
  const S* dS;
  const S* dZ;
  S* dK;
  S* dV;
  MOELAB_HD void operator()(std::int64_t e) const {
    attn::backward_key<S>(a, dU, A, Q, dS, dZ, static_cast<int>(e / a.T), static_cast<int>(e % a.T), dK, dV);
  }
};

/// Token i: N[:, i] = LN(X[:, i]) with gain gamma and bias gamma + d (layernorm_token), keeping xhat
/// and rstd.
template <class S>
struct LayerNormTokens {
  int d;
  const S* X;
  const S* gamma;
  S eps;
  S* xhat;
  S* rstd;
  S* N;
  MOELAB_HD void operator()(std::int64_t i) const {
    attn::layernorm_token<S>(d, X + i * d, gamma, gamma + d, eps, xhat + i * d, rstd + i, N + i * d);
  }
};

/// Token i: dX[:, i] += LayerNorm's input gradient of dN[:, i] (layernorm_token_backward).
template <class S>
struct LayerNormTokensBackward {
  int d;
  const S* dN;
  const S* xhat;
  const S* rstd;
  const S* gamma;
  S* dX;
  MOELAB_HD void operator()(std::int64_t i) const {
    attn::layernorm_token_backward<S>(d, dN + i * d, xhat + i * d, rstd[i], gamma, dX + i * d);
  }
};

/// Feature j: dgamma[j] = sum_i dN(j, i) xhat(j, i), dbeta[j] = sum_i dN(j, i), tokens in column order
/// (transformer.cpp's layernorm_backward sums the same terms in the same order). dgamma at grad[j],
/// dbeta at grad[d + j].
template <class S>
struct LayerNormParamGradient {
  int d;
  std::int64_t cols;
  const S* dN;
  const S* xhat;
  S* grad;
  MOELAB_HD void operator()(std::int64_t j) const {
    S g = 0, b = 0;
    for (std::int64_t i = 0; i < cols; ++i) {
      g += dN[i * d + j] * xhat[i * d + j];
      b += dN[i * d + j];
    }
    grad[j] = g;
    grad[d + j] = b;
  }
};

/// out[e] = a[e] + b[e] (a residual).
template <class S>
struct AddTo {
  const S* a;
  const S* b;
  S* out;
  MOELAB_HD void operator()(std::int64_t e) const { out[e] = a[e] + b[e]; }
};

/// out[e] = a[e].
template <class S>
struct CopyTo {
  const S* a;
  S* out;
  MOELAB_HD void operator()(std::int64_t e) const { out[e] = a[e]; }
};

/// last[:, s] = Y[:, s T + T - 1] (d x n): the tokens the read-out sees.
template <class S>
struct GatherLastTokens {
  const S* Y;
  int d, T;
  S* last;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t s = e / d, r = e % d;
    last[e] = Y[(s * T + T - 1) * d + r];
  }
};

/// dY[:, t] = dlast[:, s] for the last token t = s T + T - 1, 0 for every other token (d x T n).
template <class S>
struct ScatterLastTokens {
  const S* dlast;
  int d, T;
  S* dY;
  MOELAB_HD void operator()(std::int64_t e) const {
    const std::int64_t col = e / d, r = e % d;
    dY[e] = col % T == T - 1 ? dlast[(col / T) * d + r] : S(0);
  }
};

/// logits[:, i] += br (C x n).
template <class S>
struct AddReadoutBias {
  S* logits;
  const S* bias;
  int C;
  MOELAB_HD void operator()(std::int64_t e) const { logits[e] += bias[e % C]; }
};

/// Sequence i: the softmax cross-entropy of each of its out_heads groups of `classes` logits, as
/// transformer.cpp's sequence_loss: maximum and log-sum-exp in double, the terms times
/// norm = 1 / (n out_heads) summed over the heads into loss[i] (double); dlogits (when non-null) =
/// (softmax - onehot) norm; correct[i] = 1 when every head's argmax (first maximum) is its label.
template <class S>
struct SoftmaxCrossEntropy {
  const S* logits;
  const int* labels;  // n x out_heads, sequence-major
  int out_heads, classes;
  double norm;
  double* loss;
  int* correct;
  S* dlogits;  // may be null
  MOELAB_HD void operator()(std::int64_t i) const {
    const int C = out_heads * classes;
    double acc = 0.0;
    bool all = true;
    for (int h = 0; h < out_heads; ++h) {
      const int label = labels[i * out_heads + h];
      const S* z = logits + i * C + h * classes;
      int arg = 0;
      double top = z[0];
      for (int v = 1; v < classes; ++v)
        if (z[v] > top) top = z[v], arg = v;
      double sum = 0.0;
      for (int v = 0; v < classes; ++v) sum += ::exp(static_cast<double>(z[v]) - top);
      acc += (::log(sum) + top - static_cast<double>(z[label])) * norm;
      all = all && arg == label;
      if (dlogits != nullptr) {
        S* dz = dlogits + i * C + h * classes;
        for (int v = 0; v < classes; ++v) dz[v] = static_cast<S>((::exp(static_cast<double>(z[v]) - top) / sum - (v == label ? 1.0 : 0.0)) * norm);
      }
    }
    loss[i] = acc;
    correct[i] = all ? 1 : 0;
  }
};

/// out[0] = sum of x[0..n) in order (one thread).
struct SerialSum {
  const double* x;
  std::int64_t n;
  double* out;
  MOELAB_HD void operator()(std::int64_t) const {
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i) s += x[i];
    *out = s;
  }
};

}  // namespace moelab::moe::hd
