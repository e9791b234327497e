// The per-index pieces of one attention layer's forward and backward passes (softmax attention,
// multi-head linear attention with RMSHead normalisation, and hypernetwork linear attention, HYLA),
// written as plain loops over explicit index ranges on raw column-major buffers: each function
// computes everything of ONE index (a (sequence, query) pair or a (sequence, key) pair), reads only
// its inputs and writes only its own outputs, so a CPU loop, parallel_for or a device kernel (one
// thread per index, the executor pattern of moe/detail/) can run them unchanged. Header-only, no
// Eigen, no allocation.
//
// The equations (lib/moelab/moe/transformer.hpp has the block around them; docs/moe.md, "A
// transformer block"). Per sequence s, head h, query q, key k (tokens of one sequence only):
//   q_h = Wq_h x_q,  k_h = Wk_h x_k,  v_h = Wv_h x_k   (rows h dh .. (h+1) dh - 1 of Q, K, V)
//   score      s_hqk = <q_h(x_q), k_h(x_k)> / sqrt(dh)        (0 for a masked key: k > q, causal)
//   softmax    a_hqk = exp(s_hqk) / sum_k' exp(s_hqk')        over the visible keys (Vaswani et al.)
//   RMSHead    a_hqk = s_hqk / sqrt((1/H) sum_h' s_h'qk^2 + eps)  normalised over the HEAD index, not
//              over the keys (Schug et al. 2024, "Attention as a hypernetwork", arXiv:2406.05816,
//              Sec. 3, HYLA's normalisation; the compositional paper's Figs. 4-5 use it, App. A.2.1)
//   value network, linear (softmax and linear attention; the hypernetwork reading of multi-head
//   attention, Schug et al. Sec. 2):   u_hq = sum_k a_hqk v_h(x_k)
//   value network, HYLA (Schug et al. Sec. 3: the hypernetwork-generated value network made
//   nonlinear, its two layers both configured by the latent code a_qk = (a_1qk .. a_Hqk)):
//              z_qk = sum_h a_hqk v_h(x_k)   (dh),   u_hq = sum_k a_hqk relu(z_qk)
//   out_q = Wo [u_1q; ...; u_Hq]           (the output projection, applied by the caller as a GEMM)
//
// Buffers (all column-major; P = H dh; column c = s T + t is token t of sequence s):
//   Q, K, V, U, dU, dQ, dK, dV: P x (T n), head h of column c at c P + h dh
//   A, dA, dS: n H T T, entry (s, h, q, k) at ((s H + h) T + q) T + k  (keys of one query contiguous)
//   rnorm: n T T, (s, q, k) at (s T + q) T + k  (the RMSHead denominator; linear and HYLA only)
//   Z, dZ: n T T dh, (s, q, k, j) at ((s T + q) T + k) dh + j  (HYLA's value-network pre-activation)
#pragma once

#include <math.h>  // sqrt, exp in the global namespace (host and device)

#include <cstdint>

#include "moelab/core/philox.hpp"  // MOELAB_HD

namespace moelab::moe::attn {

/// 0 softmax attention, 1 linear attention (RMSHead, linear value network), 2 HYLA.
enum class Kind : int { softmax = 0, linear = 1, hyla = 2 };

struct Dims {
  int T = 1;   // tokens per sequence
  int n = 1;   // sequences
  int H = 1;   // heads
  int dh = 1;  // per-head dimension of queries, keys and values
  Kind kind = Kind::softmax;
  bool causal = false;  // key k visible to query q only when k <= q
  double rms_eps = 1e-6;

  MOELAB_HD int P() const { return H * dh; }
  /// Keys 0 .. keys(q) - 1 are visible to query q.
  MOELAB_HD int keys(int q) const { return causal ? q + 1 : T; }
  /// The first query that sees key k.
  MOELAB_HD int first_query(int k) const { return causal ? k : 0; }
  MOELAB_HD std::int64_t col(int s, int t) const { return static_cast<std::int64_t>(s) * T + t; }
  MOELAB_HD std::int64_t att(int s, int h, int q, int k) const {
    return ((static_cast<std::int64_t>(s) * H + h) * T + q) * T + k;
  }
  MOELAB_HD std::int64_t pair(int s, int q, int k) const { return (static_cast<std::int64_t>(s) * T + q) * T + k; }
};

MOELAB_HD float attn_sqrt(float x) { return sqrtf(x); }
MOELAB_HD double attn_sqrt(double x) { return sqrt(x); }
MOELAB_HD float attn_exp(float x) { return expf(x); }
MOELAB_HD double attn_exp(double x) { return exp(x); }

template <class S>
MOELAB_HD S dot(const S* a, const S* b, int len) {
  S acc = 0;
  for (int j = 0; j < len; ++j) acc += a[j] * b[j];
  return acc;
}

/// Index (s, q): the attention weights a_hqk of every head and key (masked keys 0), and for the
/// RMSHead kinds the denominators rnorm(s, q, k).
template <class S>
MOELAB_HD void weights_query(const Dims& a, const S* Q, const S* K, int s, int q, S* A, S* rnorm) {
  const int P = a.P(), nk = a.keys(q);
  const S scale = S(1) / attn_sqrt(static_cast<S>(a.dh));
  const S* qc = Q + a.col(s, q) * P;
  for (int h = 0; h < a.H; ++h)
    for (int k = 0; k < a.T; ++k)
      A[a.att(s, h, q, k)] = k < nk ? dot(qc + h * a.dh, K + a.col(s, k) * P + h * a.dh, a.dh) * scale : S(0);
  if (a.kind == Kind::softmax) {
    for (int h = 0; h < a.H; ++h) {
      S* row = A + a.att(s, h, q, 0);
      S top = row[0];
      for (int k = 1; k < nk; ++k) top = row[k] > top ? row[k] : top;
      S sum = 0;
      for (int k = 0; k < nk; ++k) sum += (row[k] = attn_exp(row[k] - top));
      for (int k = 0; k < nk; ++k) row[k] /= sum;
    }
  } else {
    // RMSHead: a masked key has s = 0 for every head, so a = 0 and r = sqrt(eps) (a constant).
    for (int k = 0; k < a.T; ++k) {
      S ss = 0;
      for (int h = 0; h < a.H; ++h) ss += A[a.att(s, h, q, k)] * A[a.att(s, h, q, k)];
      const S r = attn_sqrt(ss / static_cast<S>(a.H) + static_cast<S>(a.rms_eps));
      rnorm[a.pair(s, q, k)] = r;
      for (int h = 0; h < a.H; ++h) A[a.att(s, h, q, k)] /= r;
    }
  }
}

/// Index (s, q): column c = (s, q) of U (the heads' outputs before Wo); HYLA also writes the
/// value-network pre-activations Z(s, q, k, .) (0 for masked keys).
template <class S>
MOELAB_HD void values_query(const Dims& a, const S* A, const S* V, int s, int q, S* U, S* Z) {
  const int P = a.P(), nk = a.keys(q), dh = a.dh;
  S* uc = U + a.col(s, q) * P;
  for (int i = 0; i < P; ++i) uc[i] = S(0);
  if (a.kind != Kind::hyla) {
    for (int h = 0; h < a.H; ++h)
      for (int k = 0; k < nk; ++k) {
        const S w = A[a.att(s, h, q, k)];
        const S* vk = V + a.col(s, k) * P + h * dh;
        for (int j = 0; j < dh; ++j) uc[h * dh + j] += w * vk[j];
      }
    return;
  }
  for (int k = 0; k < a.T; ++k) {
    S* z = Z + a.pair(s, q, k) * dh;
    for (int j = 0; j < dh; ++j) z[j] = S(0);
    if (k >= nk) continue;
    const S* vk = V + a.col(s, k) * P;
    for (int h = 0; h < a.H; ++h) {
      const S w = A[a.att(s, h, q, k)];
      for (int j = 0; j < dh; ++j) z[j] += w * vk[h * dh + j];
    }
    for (int h = 0; h < a.H; ++h) {
      const S w = A[a.att(s, h, q, k)];
      for (int j = 0; j < dh; ++j) uc[h * dh + j] += w * (z[j] > S(0) ? z[j] : S(0));
    }
  }
}

/// Index (s, q), backward, first pass: from dU (column c), the gradient of the attention weights
/// dA(s, ., q, .), through the normalisation the gradient of the scores dS(s, ., q, .), HYLA's dZ(s,
/// q, ., .), and the query gradient dQ (column c).
///   linear value network:  dA_hqk = <du_hq, v_h(x_k)>
///   HYLA:                  dz_qk = relu'(z_qk) . sum_h a_hqk du_hq,
///                          dA_hqk = <du_hq, relu(z_qk)> + <dz_qk, v_h(x_k)>
///   softmax (per head, over the visible keys):  dS_hqk = a_hqk (dA_hqk - sum_k' a_hqk' dA_hqk')
///   RMSHead (per key, over the heads):          dS_hqk = (dA_hqk - a_hqk (1/H) sum_h' a_h'qk dA_h'qk) / r_qk
///   dq_h = sum_k dS_hqk k_h(x_k) / sqrt(dh)
template <class S>
MOELAB_HD void backward_query(const Dims& a, const S* dU, const S* A, const S* V, const S* K, const S* Z, const S* rnorm,
                              int s, int q, S* dA, S* dS, S* dZ, S* dQ) {
  const int P = a.P(), nk = a.keys(q), dh = a.dh;
  const S* duc = dU + a.col(s, q) * P;
  for (int k = 0; k < a.T; ++k) {
    if (a.kind == Kind::hyla) {
      S* dz = dZ + a.pair(s, q, k) * dh;
      for (int j = 0; j < dh; ++j) dz[j] = S(0);
    }
    if (k >= nk) {
      for (int h = 0; h < a.H; ++h) dA[a.att(s, h, q, k)] = S(0);
      continue;
    }
    const S* vk = V + a.col(s, k) * P;
    if (a.kind != Kind::hyla) {
      for (int h = 0; h < a.H; ++h) dA[a.att(s, h, q, k)] = dot(duc + h * dh, vk + h * dh, dh);
      continue;
    }
    const S* z = Z + a.pair(s, q, k) * dh;
    S* dz = dZ + a.pair(s, q, k) * dh;
    for (int h = 0; h < a.H; ++h) {
      const S w = A[a.att(s, h, q, k)];
      for (int j = 0; j < dh; ++j) dz[j] += w * duc[h * dh + j];
    }
    for (int j = 0; j < dh; ++j) dz[j] = z[j] > S(0) ? dz[j] : S(0);
    for (int h = 0; h < a.H; ++h) {
      S acc = 0;
      for (int j = 0; j < dh; ++j) acc += duc[h * dh + j] * (z[j] > S(0) ? z[j] : S(0)) + dz[j] * vk[h * dh + j];
      dA[a.att(s, h, q, k)] = acc;
    }
  }
  if (a.kind == Kind::softmax) {
    for (int h = 0; h < a.H; ++h) {
      const S* ar = A + a.att(s, h, q, 0);
      const S* dar = dA + a.att(s, h, q, 0);
      S* dsr = dS + a.att(s, h, q, 0);
      S mean = 0;
      for (int k = 0; k < nk; ++k) mean += ar[k] * dar[k];
      for (int k = 0; k < a.T; ++k) dsr[k] = k < nk ? ar[k] * (dar[k] - mean) : S(0);
    }
  } else {
    for (int k = 0; k < a.T; ++k) {
      if (k >= nk) {
        for (int h = 0; h < a.H; ++h) dS[a.att(s, h, q, k)] = S(0);
        continue;
      }
      S mean = 0;
      for (int h = 0; h < a.H; ++h) mean += A[a.att(s, h, q, k)] * dA[a.att(s, h, q, k)];
      mean /= static_cast<S>(a.H);
      const S r = rnorm[a.pair(s, q, k)];
      for (int h = 0; h < a.H; ++h) dS[a.att(s, h, q, k)] = (dA[a.att(s, h, q, k)] - A[a.att(s, h, q, k)] * mean) / r;
    }
  }
  const S scale = S(1) / attn_sqrt(static_cast<S>(dh));
  S* dqc = dQ + a.col(s, q) * P;
  for (int h = 0; h < a.H; ++h) {
    for (int j = 0; j < dh; ++j) dqc[h * dh + j] = S(0);
    for (int k = 0; k < nk; ++k) {
      const S g = dS[a.att(s, h, q, k)] * scale;
      const S* kk = K + a.col(s, k) * P + h * dh;
      for (int j = 0; j < dh; ++j) dqc[h * dh + j] += g * kk[j];
    }
  }
}

/// Index (s, k), backward, second pass (after backward_query for every query of sequence s): the
/// key and value gradients of token k, summed over the queries that see it, in query order.
///   dk_h = sum_q dS_hqk q_h(x_q) / sqrt(dh)
///   dv_h = sum_q a_hqk du_hq (linear value network)  |  sum_q a_hqk dz_qk (HYLA)
template <class S>
MOELAB_HD void backward_key(const Dims& a, const S* dU, const S* A, const S* Q, const S* dS, const S* dZ, int s, int k, S* dK,
                            S* dV) {
  const int P = a.P(), dh = a.dh;
  const S scale = S(1) / attn_sqrt(static_cast<S>(dh));
  S* dkc = dK + a.col(s, k) * P;
  S* dvc = dV + a.col(s, k) * P;
  for (int i = 0; i < P; ++i) dkc[i] = S(0), dvc[i] = S(0);
  for (int q = a.first_query(k); q < a.T; ++q) {
    const S* qc = Q + a.col(s, q) * P;
    for (int h = 0; h < a.H; ++h) {
      const S g = dS[a.att(s, h, q, k)] * scale;
      const S w = A[a.att(s, h, q, k)];
      const S* src = a.kind == Kind::hyla ? dZ + a.pair(s, q, k) * dh : dU + a.col(s, q) * P + h * dh;
      for (int j = 0; j < dh; ++j) {
        dkc[h * dh + j] += g * qc[h * dh + j];
        dvc[h * dh + j] += w * src[j];
      }
    }
  }
}

/// Index i (one token column of length d): pre-norm LayerNorm (Ba et al. 2016, as torch's
/// nn.LayerNorm over the feature dimension, biased variance):
///   xhat = (x - mean(x)) / sqrt(var(x) + eps),  y = gamma . xhat + beta.
/// Writes xhat, y and rstd = 1 / sqrt(var + eps).
template <class S>
MOELAB_HD void layernorm_token(int d, const S* x, const S* gamma, const S* beta, S eps, S* xhat, S* rstd, S* y) {
  S mean = 0;
  for (int j = 0; j < d; ++j) mean += x[j];
  mean /= static_cast<S>(d);
  S var = 0;
  for (int j = 0; j < d; ++j) var += (x[j] - mean) * (x[j] - mean);
  var /= static_cast<S>(d);
  const S r = S(1) / attn_sqrt(var + eps);
  *rstd = r;
  for (int j = 0; j < d; ++j) {
    xhat[j] = (x[j] - mean) * r;
    y[j] = gamma[j] * xhat[j] + beta[j];
  }
}

/// Index i, backward: dx += rstd (g - mean(g) - xhat mean(g . xhat)), g = gamma . dy (the Jacobian
/// of the centring and of the scaling by the token's own standard deviation).
template <class S>
MOELAB_HD void layernorm_token_backward(int d, const S* dy, const S* xhat, S rstd, const S* gamma, S* dx) {
  S mg = 0, mgx = 0;
  for (int j = 0; j < d; ++j) {
    const S g = gamma[j] * dy[j];
    mg += g;
    mgx += g * xhat[j];
  }
  mg /= static_cast<S>(d);
  mgx /= static_cast<S>(d);
  for (int j = 0; j < d; ++j) dx[j] += rstd * (gamma[j] * dy[j] - mg - xhat[j] * mgx);
}

}  // namespace moelab::moe::attn
