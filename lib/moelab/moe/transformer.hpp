// One transformer block with an MoE feed-forward layer, and a last-token classifier trained by
// AdamW: the sequence model of the compositional paper's SRAVEN experiments (Zhao et al.,
// arXiv:2410.13964, Sec. 3.1: decoder-only transformers whose FFN is a top-k MoE of 8 two-layer MLP
// experts; App. A.2.1, Figs. 4-5: the same with hypernetwork linear attention, HYLA), at the size
// of one block.
//
// Layout: a batch of n sequences of T tokens of dimension d is ONE d x (T n) column-major matrix,
// sequence s in columns s T .. s T + T - 1 (its tokens contiguous, in order), so the token-wise
// pieces (projections, the MoE, the residuals) are single products over all T n tokens and only
// the attention looks inside a sequence.
//
// The block, pre-norm optional (`norm`):
//     none:       H1 = X + Wo Attn(X),          Y = H1 + MoE(H1)
//     layernorm:  H1 = X + Wo Attn(LN1(X)),     Y = H1 + MoE(LN2(H1))
// (attention, residual, then the MoE FFN on every token, residual; LN = LayerNorm over the token's
// features with a learned gain and bias, the pre-norm placement of GPT-2-style decoders)
// with Attn one of (equations in attention_kernels.hpp):
//   softmax  multi-head softmax attention, A_h = softmax over keys of K_h' Q_h / sqrt(dh);
//   linear   multi-head linear attention without softmax, the scores normalised over the heads by
//            RMSHead (Schug et al. 2024, arXiv:2406.05816, Sec. 3), value network linear;
//   hyla     hypernetwork linear attention (Schug et al. Sec. 3): RMSHead scores, and the value
//            network made nonlinear: u_hq = sum_k a_hqk relu(sum_h' a_h'qk Wv_h' x_k).
// Causal masking is optional (key k visible to query q iff k <= q; a decoder-only model's mask);
// default off: the last-token read-out below sees every token either way, and the test covers both.
// No positional encoding inside the block (the paper's models use relative position encodings):
// the task puts position features into the tokens.
//
// The default is `none`, plain residuals: one block on inputs of a controlled scale (one-hot or
// N(0, 1) features) trains without a norm, and RMSHead already normalises the linear kinds' scores;
// `layernorm` is there for the paper's standard block and for stacking blocks. Both are checked by
// finite differences.
//
// The MoE is moe::MoeModel (forward/backward of moe_model.hpp, unchanged) applied to the d x (T n)
// token matrix, d_out = d. Its public backward gives the parameter gradient only; the input
// gradient that the residual stream needs is computed here from its ForwardCache
// (`moe_input_gradient`). Weightings: softmax (every gate of moe_model.hpp: softmax over the selected
// logits, softmax over all, sigmoid; top-k routing) and equal; oracle routing is refused (a token has
// no given expert), and so is adaptive routing (its variable slot counts are not written here).
//
// Parameters: the block's flat vector [Wq (P x d) | Wk (P x d) | Wv (P x d) | Wo (d x P) | gamma1 (d)
// | beta1 (d) | gamma2 (d) | beta2 (d)] (the norms' part only with `layernorm`), P = heads x d_head,
// column-major; the MoE's own vector (moe_model.hpp's layout). Initialisation (init_pytorch):
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as nn.Linear, draw j = uniform(j) of RandomStream(seed,
// moe_init, 1) (the MoE draws trial 0 of the same seed through moe::init_pytorch; the read-out
// trial 2); gains 1 and biases 0 as nn.LayerNorm.
//
// Everything per step lives in caller-owned caches and workspaces that keep their storage from step
// to step (the MoE's own forward allocates its groups as moe_model.cpp does). The attention's
// per-index pieces are in attention_kernels.hpp, run here in plain loops in index order.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/moe/adamw.hpp"
#include "moelab/moe/attention_kernels.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::moe {

enum class AttentionKind { softmax, linear, hyla };
const char* to_string(AttentionKind a);
enum class BlockNorm { none, layernorm };
const char* to_string(BlockNorm n);

struct BlockShape {
  int d = 4;       // token dimension (the residual stream)
  int heads = 2;   // H
  int d_head = 2;  // dh: per-head dimension of queries, keys and values
  AttentionKind attention = AttentionKind::softmax;
  bool causal = false;
  double rms_eps = 1e-6;  // RMSHead's epsilon (linear, hyla)
  BlockNorm norm = BlockNorm::none;
  double ln_eps = 1e-5;   // LayerNorm's epsilon (nn.LayerNorm's default)
  /// The FFN: ffn.d and ffn.d_out are set to d by the block; weighting softmax or equal.
  MoeShape ffn;

  int P() const { return heads * d_head; }
  /// Internal consistency (positive sizes, the FFN's weighting); MOELAB_EXPECT.
  void validate() const;
};

template <class S>
class TransformerBlock {
 public:
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using MatMap = Eigen::Map<Mat>;
  using CMatMap = Eigen::Map<const Mat>;

  explicit TransformerBlock(const BlockShape& shape);  // all parameters zero

  const BlockShape& shape() const { return shape_; }
  /// The block's own parameters (attention and norms); the MoE's are in ffn().
  Vec& params() { return theta_; }
  const Vec& params() const { return theta_; }
  MoeModel<S>& ffn() { return ffn_; }
  const MoeModel<S>& ffn() const { return ffn_; }

  /// Offsets of Wq, Wk, Wv, Wo and of the norms' gains and biases in params(), and its size.
  std::int64_t wq_offset() const { return 0; }
  std::int64_t wk_offset() const { return static_cast<std::int64_t>(shape_.P()) * shape_.d; }
  std::int64_t wv_offset() const { return 2 * wk_offset(); }
  std::int64_t wo_offset() const { return 3 * wk_offset(); }
  std::int64_t attention_size() const { return 4 * wk_offset(); }
  /// Norm t (0: before the attention, 1: before the MoE): gain at norm_offset(t), bias d later.
  std::int64_t norm_offset(int t) const { return attention_size() + 2 * static_cast<std::int64_t>(t) * shape_.d; }
  std::int64_t param_size() const { return attention_size() + (shape_.norm == BlockNorm::layernorm ? 4 * shape_.d : 0); }

  // Views of a vector with the attention's layout (the parameters or a gradient).
  CMatMap wq(const Vec& v) const { return {v.data() + wq_offset(), shape_.P(), shape_.d}; }
  CMatMap wk(const Vec& v) const { return {v.data() + wk_offset(), shape_.P(), shape_.d}; }
  CMatMap wv(const Vec& v) const { return {v.data() + wv_offset(), shape_.P(), shape_.d}; }
  CMatMap wo(const Vec& v) const { return {v.data() + wo_offset(), shape_.d, shape_.P()}; }
  MatMap wq(Vec& v) const { return {v.data() + wq_offset(), shape_.P(), shape_.d}; }
  MatMap wk(Vec& v) const { return {v.data() + wk_offset(), shape_.P(), shape_.d}; }
  MatMap wv(Vec& v) const { return {v.data() + wv_offset(), shape_.P(), shape_.d}; }
  MatMap wo(Vec& v) const { return {v.data() + wo_offset(), shape_.d, shape_.P()}; }

  /// The kernels' dimensions for n sequences of T tokens.
  attn::Dims dims(int T, int n) const;

 private:
  BlockShape shape_;
  Vec theta_;
  MoeModel<S> ffn_;
};

/// PyTorch-style initialisation of the attention (the law in the header comment) and of the MoE
/// (moe::init_pytorch with the same seed).
template <class S>
void init_pytorch(TransformerBlock<S>& block, std::uint64_t seed);

/// What the backward pass needs from the forward pass (buffers keep their storage between calls).
template <class S>
struct BlockCache {
  using Vec = typename TransformerBlock<S>::Vec;
  using Mat = typename TransformerBlock<S>::Mat;
  attn::Dims dims;
  Mat X;         // d x T n: the input
  Mat N1, Xhat1; // d x T n: LN1(X) and its normalised tokens (layernorm; N1 = X without a norm)
  Vec rstd1;     // T n: 1 / sqrt(var + eps) of every token (layernorm)
  Mat Q, K, V;   // P x T n
  Vec A;         // n H T T: attention weights (attention_kernels.hpp's layout)
  Vec rnorm;     // n T T: RMSHead denominators (linear, hyla)
  Vec Z;         // n T T dh: HYLA's value-network pre-activations
  Mat U;         // P x T n: the heads' outputs before Wo
  Mat H1;        // d x T n: X + Wo U
  Mat N2, Xhat2; // d x T n: LN2(H1), as N1 (N2 = H1 without a norm)
  Vec rstd2;
  ForwardCache<S> moe;
  Mat F;         // d x T n: MoE(H1)
};

/// Scratch of moe_input_gradient, kept between calls.
template <class S>
struct MoeInputScratch {
  std::vector<S> dg;                            // dL/dg of every slot
  typename MoeModel<S>::Mat dout, dpre, dxj;    // per expert, reused
};

/// Gradient buffers of the backward pass, exposed so that tests can read the intermediate
/// gradients (dA: of the attention weights before the score Jacobian) and reused between steps.
template <class S>
struct BlockWorkspace {
  using Vec = typename TransformerBlock<S>::Vec;
  using Mat = typename TransformerBlock<S>::Mat;
  Mat dH1, dN, dU, dQ, dK, dV;  // d x T n (dN: of a norm's output), then P x T n
  Vec dA, dS, dZ;           // the attention layouts of A, A, Z
  MoeInputScratch<S> moe;
};

template <class S>
struct BlockGradient {
  typename TransformerBlock<S>::Vec params;     // params()'s layout
  typename TransformerBlock<S>::Vec ffn;        // the MoE's layout
  typename TransformerBlock<S>::Mat input;      // dL/dX, d x T n
};

/// Y = block(X) for X = d x (T n) (n = X.cols() / T sequences). Fills `cache`.
template <class S>
void block_forward(const TransformerBlock<S>& block, const typename TransformerBlock<S>::Mat& X, int T, BlockCache<S>& cache,
                   typename TransformerBlock<S>::Mat& Y);

/// dL/d(every parameter) and dL/dX from dY = dL/dY for the forward pass in `cache`. The MoE's top-k
/// selection and the ReLUs are piecewise: their derivatives are taken away from switches.
template <class S>
void block_backward(const TransformerBlock<S>& block, const BlockCache<S>& cache, const typename TransformerBlock<S>::Mat& dY,
                    BlockWorkspace<S>& ws, BlockGradient<S>& grad);

/// dX += J' dY for the MoE layer's forward pass recorded in `cache` (X -> f(X), the Jacobian with
/// the routing held fixed): the experts' input gradients weighted by g, plus, for softmax weights,
/// the router's part R' dz with dz_r = g_r (dg_r - sum_t g_t dg_t), dg_r = <dY_i, E_j(x_i)> (the
/// same softmax Jacobian as moe::backward; softmax_all and sigmoid gates their own Jacobians, as
/// moe::backward). Softmax and equal weights with top-k routing; oracle and adaptive routing refused.
template <class S>
void moe_input_gradient(const MoeModel<S>& model, const ForwardCache<S>& cache, const typename MoeModel<S>::Mat& dY,
                        typename MoeModel<S>::Mat& dX, MoeInputScratch<S>& scratch);

// ---------------------------------------------------------------------------------------------
// A sequence classifier: the block, then a linear read-out of the LAST token of every sequence into
// `out_heads` groups of `classes` logits, each group a softmax cross-entropy. This is what SRAVEN
// needs (the model sees the context panels and a query token and must give every one of the M
// entries of the final panel, each one of V values: out_heads = M, classes = V; the
// compositional paper's Sec. 3.1 and App. A.1); a per-sequence MSE target is the special case of
// regression, not needed here. Loss = mean over sequences and heads.

struct SequenceShape {
  BlockShape block;
  int out_heads = 1;
  int classes = 2;
};

template <class S>
class SequenceClassifier {
 public:
  using Vec = typename TransformerBlock<S>::Vec;
  using Mat = typename TransformerBlock<S>::Mat;
  explicit SequenceClassifier(const SequenceShape& shape);
  const SequenceShape& shape() const { return shape_; }
  TransformerBlock<S>& block() { return block_; }
  const TransformerBlock<S>& block() const { return block_; }
  /// [Wr (C x d) | br (C)], C = out_heads x classes, column-major.
  Vec& readout() { return readout_; }
  const Vec& readout() const { return readout_; }
  int outputs() const { return shape_.out_heads * shape_.classes; }

 private:
  SequenceShape shape_;
  TransformerBlock<S> block_;
  Vec readout_;
};

template <class S>
void init_pytorch(SequenceClassifier<S>& model, std::uint64_t seed);

/// One batch: X (d x T n) and labels[i * out_heads + j] in [0, classes) for sequence i, head j.
template <class S>
struct SequenceBatch {
  typename TransformerBlock<S>::Mat X;
  int T = 1;
  std::vector<int> labels;
  int sequences() const { return static_cast<int>(X.cols()) / T; }
};

template <class S>
struct SequenceGradient {
  BlockGradient<S> block;
  typename TransformerBlock<S>::Vec readout;
};

/// Everything one step keeps between steps (caches, workspaces, AdamW moments of the three vectors).
template <class S>
struct SequenceTrainState {
  BlockCache<S> cache;
  BlockWorkspace<S> ws;
  SequenceGradient<S> grad;
  typename TransformerBlock<S>::Mat Y, dY, last, dlast, logits, dlogits;
  AdamWState<S> opt_attention, opt_ffn, opt_readout;
};

/// Mean cross-entropy over sequences and heads of the last-token logits and the exact-match
/// accuracy (every head right); sets the gradient of the loss w.r.t. every parameter in `grad`
/// when it is not null. Summed in double, in sequence order.
template <class S>
double sequence_loss(const SequenceClassifier<S>& model, const SequenceBatch<S>& batch, SequenceTrainState<S>& st,
                     SequenceGradient<S>* grad, double* accuracy = nullptr);

/// One AdamW step on the batch (all three vectors, the same step count); returns the loss before
/// the step.
template <class S>
double train_step(SequenceClassifier<S>& model, const SequenceBatch<S>& batch, const AdamWConfig& cfg, SequenceTrainState<S>& st);

}  // namespace moelab::moe
