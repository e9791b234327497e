#include "moelab/moe/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/linalg/lapack.hpp"

namespace moelab::moe {

const char* to_string(AttentionKind a) {
  switch (a) {
    case AttentionKind::softmax: return "softmax";
    case AttentionKind::linear: return "linear";
    case AttentionKind::hyla: return "hyla";
  }
  return "?";
}

const char* to_string(BlockNorm n) { return n == BlockNorm::layernorm ? "layernorm" : "none"; }

void BlockShape::validate() const {
  MOELAB_EXPECT(d >= 1 && heads >= 1 && d_head >= 1, "BlockShape: d, heads and d_head must be positive");
  MOELAB_EXPECT(rms_eps > 0.0 && ln_eps > 0.0, "BlockShape: rms_eps and ln_eps must be positive");
  MOELAB_EXPECT(ffn.weighting == Weighting::softmax || ffn.weighting == Weighting::equal,
                "BlockShape: the FFN's weighting must be softmax or equal (a token has no oracle expert)");
}

namespace {

MoeShape ffn_shape(const BlockShape& s) {
  s.validate();
  MoeShape f = s.ffn;
  f.d = s.d;
  f.d_out = s.d;
  f.validate();
  return f;
}

attn::Kind kernel_kind(AttentionKind a) {
  switch (a) {
    case AttentionKind::softmax: return attn::Kind::softmax;
    case AttentionKind::linear: return attn::Kind::linear;
    case AttentionKind::hyla: return attn::Kind::hyla;
  }
  return attn::Kind::softmax;
}

/// C = op(a) op(b) + beta C for column-major Eigen matrices or maps (C sized by the caller): one
/// lapack::gemm call, whose summation order depends only on the shapes.
template <class A, class B, class C>
void gemm(const A& a, bool ta, const B& b, bool tb, C&& c, typename std::decay_t<C>::Scalar beta = 0) {
  const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols(), n = tb ? b.rows() : b.cols();
  MOELAB_EXPECT(c.rows() == m && c.cols() == n && (tb ? b.cols() : b.rows()) == k, "gemm: sizes do not match");
  using S = typename std::decay_t<C>::Scalar;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    c *= beta;
    return;
  }
  lapack::gemm(ta, tb, m, n, k, S(1), a.data(), std::max<Eigen::Index>(1, a.outerStride()), b.data(),
               std::max<Eigen::Index>(1, b.outerStride()), beta, c.data(), std::max<Eigen::Index>(1, c.outerStride()));
}

}  // namespace

template <class S>
TransformerBlock<S>::TransformerBlock(const BlockShape& shape) : shape_(shape), ffn_(ffn_shape(shape)) {
  shape_.ffn = ffn_.shape();
  theta_.setZero(param_size());
}

template <class S>
attn::Dims TransformerBlock<S>::dims(int T, int n) const {
  attn::Dims a;
  a.T = T, a.n = n, a.H = shape_.heads, a.dh = shape_.d_head, a.kind = kernel_kind(shape_.attention), a.causal = shape_.causal;
  a.rms_eps = shape_.rms_eps;
  return a;
}

template <class S>
void init_pytorch(TransformerBlock<S>& block, std::uint64_t seed) {
  const RandomStream rs(seed, StreamTag::moe_init, 1);
  auto& theta = block.params();
  auto fill = [&](std::int64_t begin, std::int64_t end, int fan_in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    for (std::int64_t j = begin; j < end; ++j) theta[j] = static_cast<S>((2.0 * rs.uniform(static_cast<std::uint64_t>(j)) - 1.0) * bound);
  };
  fill(block.wq_offset(), block.wo_offset(), block.shape().d);            // Wq, Wk, Wv: nn.Linear(d, P)
  fill(block.wo_offset(), block.attention_size(), block.shape().P());     // Wo: nn.Linear(P, d)
  if (block.shape().norm == BlockNorm::layernorm) {
    const int d = block.shape().d;
    for (int t = 0; t < 2; ++t) {
      theta.segment(block.norm_offset(t), d).setOnes();   // nn.LayerNorm: gain 1
      theta.segment(block.norm_offset(t) + d, d).setZero();  // bias 0
    }
  }
  init_pytorch(block.ffn(), seed);
}

namespace {

/// N = LN_t(X) token by token (attention_kernels.hpp's layernorm_token), keeping xhat and rstd.
template <class S>
void layernorm_forward(const TransformerBlock<S>& block, int t, const typename TransformerBlock<S>::Mat& X,
                       typename TransformerBlock<S>::Mat& N, typename TransformerBlock<S>::Mat& xhat,
                       typename TransformerBlock<S>::Vec& rstd) {
  const int d = block.shape().d;
  const S* gamma = block.params().data() + block.norm_offset(t);
  N.resize(d, X.cols()), xhat.resize(d, X.cols()), rstd.resize(X.cols());
  for (Eigen::Index i = 0; i < X.cols(); ++i)
    attn::layernorm_token<S>(d, X.col(i).data(), gamma, gamma + d, static_cast<S>(block.shape().ln_eps), xhat.col(i).data(),
                             rstd.data() + i, N.col(i).data());
}

/// dX += LN_t's input gradient of dN; the gain's and bias's gradients into grad (params() layout):
/// dgamma = sum_i dN_i . xhat_i, dbeta = sum_i dN_i (tokens in column order).
template <class S>
void layernorm_backward(const TransformerBlock<S>& block, int t, const typename TransformerBlock<S>::Mat& dN,
                        const typename TransformerBlock<S>::Mat& xhat, const typename TransformerBlock<S>::Vec& rstd,
                        typename TransformerBlock<S>::Mat& dX, typename TransformerBlock<S>::Vec& grad) {
  const int d = block.shape().d;
  const S* gamma = block.params().data() + block.norm_offset(t);
  auto dgamma = grad.segment(block.norm_offset(t), d);
  auto dbeta = grad.segment(block.norm_offset(t) + d, d);
  dgamma.setZero(), dbeta.setZero();
  for (Eigen::Index i = 0; i < dN.cols(); ++i) {
    dgamma += dN.col(i).cwiseProduct(xhat.col(i));
    dbeta += dN.col(i);
    attn::layernorm_token_backward<S>(d, dN.col(i).data(), xhat.col(i).data(), rstd[i], gamma, dX.col(i).data());
  }
}

}  // namespace

template <class S>
void block_forward(const TransformerBlock<S>& block, const typename TransformerBlock<S>::Mat& X, int T, BlockCache<S>& c,
                   typename TransformerBlock<S>::Mat& Y) {
  const BlockShape& sh = block.shape();
  MOELAB_EXPECT(T >= 1 && X.rows() == sh.d && X.cols() % T == 0, "block_forward: X must be d x (T n)");
  const int n = static_cast<int>(X.cols() / T), P = sh.P();
  const Eigen::Index cols = X.cols();
  const auto& th = block.params();
  c.dims = block.dims(T, n);
  const attn::Dims& a = c.dims;
  c.X = X;
  const bool ln = sh.norm == BlockNorm::layernorm;
  if (ln) {
    layernorm_forward(block, 0, X, c.N1, c.Xhat1, c.rstd1);
  } else {
    c.N1 = X;
  }
  c.Q.resize(P, cols), c.K.resize(P, cols), c.V.resize(P, cols), c.U.resize(P, cols);
  gemm(block.wq(th), false, c.N1, false, c.Q);
  gemm(block.wk(th), false, c.N1, false, c.K);
  gemm(block.wv(th), false, c.N1, false, c.V);
  const std::int64_t att_size = static_cast<std::int64_t>(n) * a.H * T * T, pairs = static_cast<std::int64_t>(n) * T * T;
  c.A.resize(att_size);
  c.rnorm.resize(a.kind == attn::Kind::softmax ? 0 : pairs);
  c.Z.resize(a.kind == attn::Kind::hyla ? pairs * a.dh : 0);
  // Index (s, q), in order: independent pieces (attention_kernels.hpp).
  for (int s = 0; s < n; ++s)
    for (int q = 0; q < T; ++q) attn::weights_query<S>(a, c.Q.data(), c.K.data(), s, q, c.A.data(), c.rnorm.data());
  for (int s = 0; s < n; ++s)
    for (int q = 0; q < T; ++q) attn::values_query<S>(a, c.A.data(), c.V.data(), s, q, c.U.data(), c.Z.data());
  c.H1 = X;
  gemm(block.wo(th), false, c.U, false, c.H1, S(1));  // H1 = X + Wo U
  if (ln) {
    layernorm_forward(block, 1, c.H1, c.N2, c.Xhat2, c.rstd2);
  } else {
    c.N2 = c.H1;
  }
  forward(block.ffn(), c.N2, nullptr, c.moe, c.F);
  Y = c.H1 + c.F;
}

template <class S>
void moe_input_gradient(const MoeModel<S>& model, const ForwardCache<S>& c, const typename MoeModel<S>::Mat& dY,
                        typename MoeModel<S>::Mat& dX, MoeInputScratch<S>& scratch) {
  const MoeShape& s = model.shape();
  MOELAB_EXPECT(s.weighting == Weighting::softmax || s.weighting == Weighting::equal,
                "moe_input_gradient: softmax or equal weights only");
  // Slots at i k + r: top-k routing (adaptive routing's variable slot counts are not written here);
  // every gate's Jacobian below (the same as moe::backward's router gradient).
  MOELAB_EXPECT(s.routing == Routing::top_k, "moe_input_gradient: top-k routing only");
  const int n = c.n, k = s.k;
  MOELAB_EXPECT(dY.rows() == s.d_out && dY.cols() == n && dX.rows() == s.d && dX.cols() == n, "moe_input_gradient: shapes");
  const auto& th = model.params();
  const bool router = s.has_router() && s.weighting == Weighting::softmax;
  std::vector<S>& dg = scratch.dg;
  dg.assign(router ? static_cast<std::size_t>(n) * k : 0, S(0));
  auto& dout = scratch.dout;
  auto& dpre = scratch.dpre;
  auto& dxj = scratch.dxj;
  // Experts in index order, each group's columns scattered back in input order: a fixed order.
  for (int j = 0; j < s.m; ++j) {
    const auto& mem = c.members[static_cast<std::size_t>(j)];
    const auto nj = static_cast<Eigen::Index>(mem.size());
    if (nj == 0) continue;
    dout.resize(s.d_out, nj);
    for (Eigen::Index p = 0; p < nj; ++p) {
      const auto slot = static_cast<std::size_t>(mem[static_cast<std::size_t>(p)]);
      const auto i = static_cast<Eigen::Index>(slot / static_cast<std::size_t>(k));
      dout.col(p) = c.slot_weight[slot] * dY.col(i);
      if (router) dg[slot] = dY.col(i).dot(c.out[static_cast<std::size_t>(j)].col(p));
    }
    dxj.resize(s.d, nj);
    if (s.expert == ExpertKind::mlp) {
      dpre.resize(s.w, nj);
      gemm(model.w2(th, j), true, dout, false, dpre);
      dpre = (c.pre[static_cast<std::size_t>(j)].array() > S(0)).select(dpre, S(0));
      gemm(model.w1(th, j), true, dpre, false, dxj);
    } else {
      gemm(model.w1(th, j), true, dout, false, dxj);
    }
    for (Eigen::Index p = 0; p < nj; ++p)
      dX.col(static_cast<Eigen::Index>(static_cast<std::size_t>(mem[static_cast<std::size_t>(p)]) / static_cast<std::size_t>(k))) +=
          dxj.col(p);
  }
  if (!router) return;
  // The router's part: logits z = R x (+ b), dX_i += R' dz_i with dz of the gate (moe_model.hpp):
  //   softmax_selected  dz_r = g_r (dg_r - sum_t g_t dg_t) on the selected logits;
  //   softmax_all       dz_l = p_l (dg_l [l in S] - sum_{j in S} p_j dg_j) on every logit;
  //   sigmoid           dz_r = dg_r g_r (1 - g_r) on the selected logits.
  const auto R = model.router_w(th);
  for (int i = 0; i < n; ++i) {
    const std::size_t base = static_cast<std::size_t>(i) * k;
    S mean = 0;
    for (int r = 0; r < k; ++r) mean += c.slot_weight[base + r] * dg[base + r];
    if (s.gate == Gate::softmax_all) {
      for (int l = 0; l < s.m; ++l) dX.col(i) -= (mean * c.probs(l, i)) * R.row(l).transpose();
      for (int r = 0; r < k; ++r) dX.col(i) += (c.slot_weight[base + r] * dg[base + r]) * R.row(c.slot_expert[base + r]).transpose();
      continue;
    }
    for (int r = 0; r < k; ++r) {
      const S g = c.slot_weight[base + r];
      const S dz = s.gate == Gate::sigmoid ? dg[base + r] * g * (S(1) - g) : g * (dg[base + r] - mean);
      dX.col(i) += dz * R.row(c.slot_expert[base + r]).transpose();
    }
  }
}

template <class S>
void block_backward(const TransformerBlock<S>& block, const BlockCache<S>& c, const typename TransformerBlock<S>::Mat& dY,
                    BlockWorkspace<S>& ws, BlockGradient<S>& g) {
  const BlockShape& sh = block.shape();
  const attn::Dims& a = c.dims;
  const int P = sh.P(), n = a.n, T = a.T;
  const Eigen::Index cols = c.X.cols();
  MOELAB_EXPECT(dY.rows() == sh.d && dY.cols() == cols, "block_backward: dY must be d x (T n)");
  const auto& th = block.params();
  const bool ln = sh.norm == BlockNorm::layernorm;
  g.params.setZero(block.param_size());
  // Y = H1 + MoE(N2), N2 = LN2(H1) or H1: the MoE's parameters from dY, and dH1 = dY + (through
  // the norm) J' dY.
  backward(block.ffn(), c.moe, dY, g.ffn);
  ws.dH1 = dY;
  if (ln) {
    ws.dN.setZero(sh.d, cols);
    moe_input_gradient(block.ffn(), c.moe, dY, ws.dN, ws.moe);
    layernorm_backward(block, 1, ws.dN, c.Xhat2, c.rstd2, ws.dH1, g.params);
  } else {
    moe_input_gradient(block.ffn(), c.moe, dY, ws.dH1, ws.moe);
  }
  // H1 = X + Wo U.
  gemm(ws.dH1, false, c.U, true, block.wo(g.params));
  ws.dU.resize(P, cols);
  gemm(block.wo(th), true, ws.dH1, false, ws.dU);
  // The attention: per (s, q), then per (s, k) (attention_kernels.hpp).
  ws.dA.resize(c.A.size()), ws.dS.resize(c.A.size()), ws.dZ.resize(c.Z.size());
  ws.dQ.resize(P, cols), ws.dK.resize(P, cols), ws.dV.resize(P, cols);
  for (int s = 0; s < n; ++s)
    for (int q = 0; q < T; ++q)
      attn::backward_query<S>(a, ws.dU.data(), c.A.data(), c.V.data(), c.K.data(), c.Z.data(), c.rnorm.data(), s, q, ws.dA.data(),
                              ws.dS.data(), ws.dZ.data(), ws.dQ.data());
  for (int s = 0; s < n; ++s)
    for (int k = 0; k < T; ++k)
      attn::backward_key<S>(a, ws.dU.data(), c.A.data(), c.Q.data(), ws.dS.data(), ws.dZ.data(), s, k, ws.dK.data(), ws.dV.data());
  gemm(ws.dQ, false, c.N1, true, block.wq(g.params));
  gemm(ws.dK, false, c.N1, true, block.wk(g.params));
  gemm(ws.dV, false, c.N1, true, block.wv(g.params));
  // dX = dH1 (residual) + (through LN1 when there is one) Wq' dQ + Wk' dK + Wv' dV.
  g.input = ws.dH1;
  typename TransformerBlock<S>::Mat& dN1 = ln ? ws.dN : g.input;
  if (ln) ws.dN.setZero(sh.d, cols);
  gemm(block.wq(th), true, ws.dQ, false, dN1, S(1));
  gemm(block.wk(th), true, ws.dK, false, dN1, S(1));
  gemm(block.wv(th), true, ws.dV, false, dN1, S(1));
  if (ln) layernorm_backward(block, 0, ws.dN, c.Xhat1, c.rstd1, g.input, g.params);
}

// ---------------------------------------------------------------------------------------------

template <class S>
SequenceClassifier<S>::SequenceClassifier(const SequenceShape& shape) : shape_(shape), block_(shape.block) {
  MOELAB_EXPECT(shape.out_heads >= 1 && shape.classes >= 2, "SequenceShape: out_heads >= 1 and classes >= 2");
  shape_.block = block_.shape();
  readout_.setZero(static_cast<Eigen::Index>(outputs()) * (shape_.block.d + 1));
}

template <class S>
void init_pytorch(SequenceClassifier<S>& model, std::uint64_t seed) {
  init_pytorch(model.block(), seed);
  const RandomStream rs(seed, StreamTag::moe_init, 2);
  const double bound = 1.0 / std::sqrt(static_cast<double>(model.shape().block.d));  // nn.Linear(d, C)
  auto& r = model.readout();
  for (Eigen::Index j = 0; j < r.size(); ++j) r[j] = static_cast<S>((2.0 * rs.uniform(static_cast<std::uint64_t>(j)) - 1.0) * bound);
}

template <class S>
double sequence_loss(const SequenceClassifier<S>& model, const SequenceBatch<S>& batch, SequenceTrainState<S>& st,
                     SequenceGradient<S>* grad, double* accuracy) {
  using Mat = typename TransformerBlock<S>::Mat;
  const int T = batch.T, n = batch.sequences(), d = model.shape().block.d, C = model.outputs();
  const int heads = model.shape().out_heads, V = model.shape().classes;
  MOELAB_EXPECT(static_cast<int>(batch.labels.size()) == n * heads, "sequence_loss: one label per sequence and head");
  block_forward(model.block(), batch.X, T, st.cache, st.Y);
  st.last.resize(d, n);
  for (int i = 0; i < n; ++i) st.last.col(i) = st.Y.col(static_cast<Eigen::Index>(i) * T + T - 1);
  const Eigen::Map<const Mat> Wr(model.readout().data(), C, d);
  st.logits.resize(C, n);
  gemm(Wr, false, st.last, false, st.logits);
  st.logits.colwise() += Eigen::Map<const typename TransformerBlock<S>::Vec>(model.readout().data() + static_cast<Eigen::Index>(C) * d, C);
  // Softmax cross-entropy per head, log-sum-exp in double; dlogits = (softmax - onehot) / (n heads).
  st.dlogits.resize(C, n);
  double loss = 0.0;
  int correct = 0;
  const double norm = 1.0 / (static_cast<double>(n) * heads);
  for (int i = 0; i < n; ++i) {
    bool all = true;
    for (int h = 0; h < heads; ++h) {
      const int label = batch.labels[static_cast<std::size_t>(i) * heads + h];
      MOELAB_EXPECT(label >= 0 && label < V, "sequence_loss: label out of range");
      const S* z = st.logits.data() + static_cast<Eigen::Index>(i) * C + h * V;
      int arg = 0;
      double top = z[0];
      for (int v = 1; v < V; ++v)
        if (z[v] > top) top = z[v], arg = v;
      double sum = 0.0;
      for (int v = 0; v < V; ++v) sum += std::exp(static_cast<double>(z[v]) - top);
      loss += (std::log(sum) + top - static_cast<double>(z[label])) * norm;
      all = all && arg == label;
      S* dz = st.dlogits.data() + static_cast<Eigen::Index>(i) * C + h * V;
      for (int v = 0; v < V; ++v)
        dz[v] = static_cast<S>((std::exp(static_cast<double>(z[v]) - top) / sum - (v == label ? 1.0 : 0.0)) * norm);
    }
    correct += all ? 1 : 0;
  }
  if (accuracy) *accuracy = static_cast<double>(correct) / n;
  if (!grad) return loss;
  // Read-out: dWr = dlogits last', dbr = row sums; the last tokens get Wr' dlogits, the others 0.
  grad->readout.resize(model.readout().size());
  Eigen::Map<Mat> gWr(grad->readout.data(), C, d);
  gemm(st.dlogits, false, st.last, true, gWr);
  grad->readout.tail(C) = st.dlogits.rowwise().sum();
  st.dY.setZero(d, batch.X.cols());
  st.dlast.resize(d, n);
  gemm(Wr, true, st.dlogits, false, st.dlast);
  for (int i = 0; i < n; ++i) st.dY.col(static_cast<Eigen::Index>(i) * T + T - 1) = st.dlast.col(i);
  block_backward(model.block(), st.cache, st.dY, st.ws, grad->block);
  return loss;
}

template <class S>
double train_step(SequenceClassifier<S>& model, const SequenceBatch<S>& batch, const AdamWConfig& cfg, SequenceTrainState<S>& st) {
  auto& blk = model.block();
  if (st.opt_attention.m.size() != blk.params().size()) st.opt_attention.reset(blk.params().size());
  if (st.opt_ffn.m.size() != blk.ffn().params().size()) st.opt_ffn.reset(blk.ffn().params().size());
  if (st.opt_readout.m.size() != model.readout().size()) st.opt_readout.reset(model.readout().size());
  const double loss = sequence_loss(model, batch, st, &st.grad);
  adamw_update(blk.params(), st.grad.block.params, st.opt_attention, cfg);
  adamw_update(blk.ffn().params(), st.grad.block.ffn, st.opt_ffn, cfg);
  adamw_update(model.readout(), st.grad.readout, st.opt_readout, cfg);
  return loss;
}

#define MOELAB_TRANSFORMER_INSTANTIATE(S)                                                                                      \
  template class TransformerBlock<S>;                                                                                          \
  template class SequenceClassifier<S>;                                                                                        \
  template void init_pytorch<S>(TransformerBlock<S>&, std::uint64_t);                                                          \
  template void init_pytorch<S>(SequenceClassifier<S>&, std::uint64_t);                                                        \
  template void block_forward<S>(const TransformerBlock<S>&, const TransformerBlock<S>::Mat&, int, BlockCache<S>&,             \
                                 TransformerBlock<S>::Mat&);                                                                   \
  template void block_backward<S>(const TransformerBlock<S>&, const BlockCache<S>&, const TransformerBlock<S>::Mat&,           \
                                  BlockWorkspace<S>&, BlockGradient<S>&);                                                      \
  template void moe_input_gradient<S>(const MoeModel<S>&, const ForwardCache<S>&, const MoeModel<S>::Mat&, MoeModel<S>::Mat&,  \
                                      MoeInputScratch<S>&);                                                                    \
  template double sequence_loss<S>(const SequenceClassifier<S>&, const SequenceBatch<S>&, SequenceTrainState<S>&,              \
                                   SequenceGradient<S>*, double*);                                                             \
  template double train_step<S>(SequenceClassifier<S>&, const SequenceBatch<S>&, const AdamWConfig&, SequenceTrainState<S>&);
MOELAB_TRANSFORMER_INSTANTIATE(float)
MOELAB_TRANSFORMER_INSTANTIATE(double)
#undef MOELAB_TRANSFORMER_INSTANTIATE

}  // namespace moelab::moe
