// Small top-k Mixture-of-Experts layers and their hand-written forward and backward passes
// (granularity paper, Sec. 2, Eqs. 2.1-2.2 and App. D; noisy paper, "correctly routed"
// models). An (m, k, w, d)-MoE (granularity paper's naming, `16e8a` = 16 experts, 8 active) maps
// x in R^d to
//     f(x) = sum_{j in S(x)} g_j(x) E_j(x),   S(x) = the k largest logits of R x (+ b_R),
// with E_j(x) = W2_j relu(W1_j x + b1_j) + b2_j (two-layer ReLU expert of width w) or
// E_j(x) = W_j x + b_j (linear expert), and g_j one of
//     softmax   a gate computed from the router's logits z (the `Gate` below; default: softmax over
//               the k selected logits, the public teacher-student script),
//     equal     1/k (the theorems, Eq. 2.2 up to the constant),
//     oracle    weight 1 on a given expert per input (k = 1, no router; the noisy paper's correctly
//               routed MoE).
// Top-k ties are broken towards the lower expert index (a measure-zero event for continuous inputs).
//
// Gates (Weighting::softmax; z = R x (+ b_R), S(x) the selected experts):
//     softmax_selected  g_j = exp(z_j) / sum_{l in S} exp(z_l): renormalised over S. With k = 1 the
//                       weight is identically 1 and the router gets no gradient.
//     softmax_all       g_j = p_j = exp(z_j) / sum_{l = 1..m} exp(z_l), j in S, NOT renormalised: the
//                       Switch Transformer's gate (Fedus, Zoph, Shazeer, JMLR 2022, Sec. 2.1, Eqs. 1-2:
//                       p_i(x) = softmax over all N experts' logits, y = sum_{i in T} p_i(x) E_i(x)
//                       with T the top-k set, k = 1 in Switch), so a top-1 router is trained through
//                       p_i of its selected expert.
//     sigmoid           g_j = 1 / (1 + exp(-z_j)), j in S: each selected expert gated independently.
// Routing (which experts form S):
//     top_k      the k largest logits (every gate; the softmax and the sigmoid are increasing, so the
//                set is the same under each).
//     top_p      adaptive: the fewest experts, in decreasing p, whose softmax-over-all mass reaches
//                top_p (at least 1, at most k: set k = m for no cap): the selection rule of top-p
//                ("dynamic") routing, Huang et al., "Harder Tasks Need More Experts: Dynamic Routing in
//                MoE Models", ACL 2024. Weights: the selected p_j NOT renormalised, the Switch gate's
//                convention (so the gate is softmax_all; the router gets a gradient at any |S|, and a
//                confident router, mass near 1 on few experts, gives weights near those of a
//                renormalised gate). We chose it; we did not check which convention that paper's
//                code uses.
//     threshold  adaptive: every expert with p_j >= threshold (at least the top one, at most k); the
//                weights the selected p_j, not renormalised (as top_p).
// The selection is piecewise constant in the parameters; backward differentiates the weights only.
//
// All parameters live in one flat Eigen vector (layout below) so that the optimizer, the
// checkpoint and the finite-difference tests see one array; the accessors are Eigen::Maps into it.
// Templated on the scalar (float and double are instantiated).
//
// Initialisation law (init_pytorch): every weight and bias of a layer with fan-in f is drawn
// U(-1/sqrt(f), 1/sqrt(f)), PyTorch's nn.Linear default: router (fan-in d), first expert layer
// (fan-in d), second expert layer (fan-in w), linear experts (fan-in d). Draw j of the flat vector
// is uniform(j) of RandomStream(seed, StreamTag::moe_init, 0), drawn in double and rounded to the
// scalar, so a float and a double model of one seed agree to float rounding.
//
// Only the active experts are computed: inputs are grouped by expert (in input order) and each
// expert runs one GEMM per layer on its group. Experts run in parallel (parallel_for over experts;
// each writes only its own outputs and gradient slice) and every reduction has a fixed order, so
// outputs and gradients are bit-identical for any thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace moelab::moe {

enum class Weighting { softmax, equal, oracle };
enum class ExpertKind { linear, mlp };
/// The gate of Weighting::softmax (header comment): which function of the logits weights S(x).
enum class Gate { softmax_selected, softmax_all, sigmoid };
/// How S(x) is chosen (header comment): a fixed k, or adaptive per input.
enum class Routing { top_k, top_p, threshold };

const char* to_string(Weighting w);
const char* to_string(ExpertKind e);
const char* to_string(Gate g);
const char* to_string(Routing r);
/// The gate / routing named `name` ("softmax_selected", "softmax_all", "sigmoid"; "top_k", "top_p",
/// "threshold"); false when no such name.
bool parse_gate(const std::string& name, Gate& out);
bool parse_routing(const std::string& name, Routing& out);

/// The architecture of one MoE layer.
struct MoeShape {
  int m = 1;      // experts
  int k = 1;      // active experts per input
  int w = 1;      // hidden width of an MLP expert (unused for linear experts)
  int d = 1;      // input dimension
  int d_out = 1;  // output dimension (the granularity paper: d_out = d)
  ExpertKind expert = ExpertKind::mlp;
  bool expert_bias = false;  // biases in the experts' layers (the granularity paper: none)
  bool router_bias = false;  // a trainable bias on the routing logits (granularity Fig. 3)
  Weighting weighting = Weighting::softmax;
  Gate gate = Gate::softmax_selected;  // used with Weighting::softmax and a router
  Routing routing = Routing::top_k;    // top_p / threshold: Weighting::softmax, Gate::softmax_all
  double top_p = 1.0;                  // Routing::top_p: the mass to reach, in (0, 1]
  double threshold = 0.0;              // Routing::threshold: the least probability kept, in [0, 1]

  /// The router exists unless routing is given (oracle) or there is one expert.
  bool has_router() const { return weighting != Weighting::oracle && m > 1; }
  /// The number of selected experts varies per input (top_p / threshold with a router).
  bool adaptive() const { return routing != Routing::top_k && has_router(); }
  /// "16e8a" (the granularity paper's shorthand).
  std::string name() const;
  /// "16e8a w=32 d=256 mlp softmax" (everything that defines the architecture; a gate or routing
  /// other than the defaults is appended, so the default's string is unchanged).
  std::string describe() const;
  /// Internal consistency (1 <= k <= m, oracle needs k = 1, positive sizes, adaptive routing needs the
  /// softmax_all gate and top_p in (0, 1] / threshold in [0, 1]); MOELAB_EXPECT.
  void validate() const;
  /// Throws (MOELAB_EXPECT, naming `who`) unless the layer is one the device path computes: the
  /// default gate (softmax over the selected logits, or equal / oracle weights) and top-k routing.
  void expect_device_gate(const char* who) const;
};

/// Offsets into the flat parameter vector:
///   [router W (m x d, column-major) | router b (m) | expert 0 | expert 1 | ... | expert m-1]
/// expert j (MLP):    [W1 (w x d) | b1 (w) | W2 (d_out x w) | b2 (d_out)]
/// expert j (linear): [W (d_out x d) | b (d_out)]
/// Absent parts (no router, no biases) take no space.
struct ParamLayout {
  explicit ParamLayout(const MoeShape& s);
  std::int64_t router_w = 0, router_b = 0, router_size = 0;
  std::int64_t experts = 0;      // offset of expert 0
  std::int64_t expert_size = 0;  // parameters per expert
  // Offsets inside one expert block.
  std::int64_t w1 = 0, b1 = 0, w2 = 0, b2 = 0;
  std::int64_t total = 0;
  std::int64_t expert(int j) const { return experts + expert_size * j; }
};

/// Total parameter count of the shape (router included).
std::int64_t parameter_count(const MoeShape& s);
/// Parameters used on one input: router + k experts.
std::int64_t active_parameter_count(const MoeShape& s);

/// The dense baseline at (approximately) equal parameter count: one expert (m = k = 1, no router),
/// an MLP whose width W is the largest with parameter_count <= that of `s` (iso-parameter, as in the
/// noisy paper). For linear experts the dense model is the single linear map (d_out x d + bias),
/// which cannot match a larger count: the caller reports both counts.
MoeShape dense_baseline(const MoeShape& s);

template <class S>
class MoeModel {
 public:
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using MatMap = Eigen::Map<Mat>;
  using CMatMap = Eigen::Map<const Mat>;
  using VecMap = Eigen::Map<Vec>;
  using CVecMap = Eigen::Map<const Vec>;

  explicit MoeModel(const MoeShape& shape);  // all parameters zero

  const MoeShape& shape() const { return shape_; }
  const ParamLayout& layout() const { return layout_; }
  Vec& params() { return theta_; }
  const Vec& params() const { return theta_; }

  // Views of a flat vector with this model's layout (the parameters, or a gradient).
  CMatMap router_w(const Vec& v) const { return {v.data() + layout_.router_w, shape_.m, shape_.d}; }
  CVecMap router_b(const Vec& v) const { return {v.data() + layout_.router_b, shape_.m}; }
  /// MLP: W1 (w x d); linear: W (d_out x d).
  CMatMap w1(const Vec& v, int j) const {
    return {v.data() + layout_.expert(j) + layout_.w1, shape_.expert == ExpertKind::mlp ? shape_.w : shape_.d_out, shape_.d};
  }
  CVecMap b1(const Vec& v, int j) const {
    return {v.data() + layout_.expert(j) + layout_.b1, shape_.expert == ExpertKind::mlp ? shape_.w : shape_.d_out};
  }
  CMatMap w2(const Vec& v, int j) const { return {v.data() + layout_.expert(j) + layout_.w2, shape_.d_out, shape_.w}; }
  CVecMap b2(const Vec& v, int j) const { return {v.data() + layout_.expert(j) + layout_.b2, shape_.d_out}; }

  MatMap router_w(Vec& v) const { return {v.data() + layout_.router_w, shape_.m, shape_.d}; }
  VecMap router_b(Vec& v) const { return {v.data() + layout_.router_b, shape_.m}; }
  MatMap w1(Vec& v, int j) const {
    return {v.data() + layout_.expert(j) + layout_.w1, shape_.expert == ExpertKind::mlp ? shape_.w : shape_.d_out, shape_.d};
  }
  VecMap b1(Vec& v, int j) const {
    return {v.data() + layout_.expert(j) + layout_.b1, shape_.expert == ExpertKind::mlp ? shape_.w : shape_.d_out};
  }
  MatMap w2(Vec& v, int j) const { return {v.data() + layout_.expert(j) + layout_.w2, shape_.d_out, shape_.w}; }
  VecMap b2(Vec& v, int j) const { return {v.data() + layout_.expert(j) + layout_.b2, shape_.d_out}; }

 private:
  MoeShape shape_;
  ParamLayout layout_;
  Vec theta_;
};

/// PyTorch-style initialisation (the law in the header comment), addressed by `seed`.
template <class S>
void init_pytorch(MoeModel<S>& model, std::uint64_t seed);

/// What the backward pass needs from the forward pass. Inputs are columns (X is d x n).
template <class S>
struct ForwardCache {
  using Mat = typename MoeModel<S>::Mat;
  int n = 0;
  Mat input;                             // X, kept when the router has a gradient (softmax weights)
  Mat logits;                            // m x n (empty without a router)
  Mat probs;                             // m x n: softmax over all logits (softmax_all gate only)
  // Slots: input i owns slots slot_begin[i] .. slot_begin[i + 1] - 1 (rank order); with top-k
  // routing slot_begin[i] = i k, so slot s = i k + r as before.
  std::vector<int> slot_begin;           // n + 1
  std::vector<int> slot_input;           // per slot: its input i
  std::vector<int> slot_expert;          // per slot: its expert (rank order within the input)
  std::vector<int> slot_position;        // per slot: its column in that expert's group
  std::vector<S> slot_weight;            // per slot: g
  /// The mean number of active experts per input over the batch (k for top-k routing).
  double mean_k() const { return n > 0 ? static_cast<double>(slot_expert.size()) / n : 0.0; }
  std::vector<std::vector<int>> members; // per expert: the slots routed to it, in input order
  std::vector<Mat> x;                    // per expert: gathered inputs (d x n_j)
  std::vector<Mat> pre;                  // per expert: pre-activations W1 x + b1 (w x n_j; MLP only)
  std::vector<Mat> act;                  // per expert: relu(pre) (w x n_j; MLP only)
  std::vector<Mat> out;                  // per expert: expert outputs E_j(x) (d_out x n_j)
};

/// Y = f(X) (d_out x n). `oracle`: the expert of each input (size n), used only when the shape's
/// weighting is oracle. Fills `cache` for backward (pass nullptr-free: the cache is always filled).
template <class S>
void forward(const MoeModel<S>& model, const typename MoeModel<S>::Mat& X, const std::vector<int>* oracle,
             ForwardCache<S>& cache, typename MoeModel<S>::Mat& Y);

/// Y = f(X) without keeping what backward needs beyond the call (evaluation).
template <class S>
typename MoeModel<S>::Mat evaluate(const MoeModel<S>& model, const typename MoeModel<S>::Mat& X,
                                   const std::vector<int>* oracle = nullptr);

/// grad = dL/dtheta given dY = dL/dY (d_out x n), for the forward pass recorded in `cache`.
/// The top-k selection is piecewise constant: its derivative is taken as 0 (exact away from ties).
template <class S>
void backward(const MoeModel<S>& model, const ForwardCache<S>& cache, const typename MoeModel<S>::Mat& dY,
              typename MoeModel<S>::Vec& grad);

/// Mean-squared error over all entries, sum (Y - T)^2 / (n d_out) (PyTorch's MSELoss), summed in
/// double in column order; sets dY = dL/dY = 2 (Y - T) / (n d_out).
template <class S>
double mse_loss(const typename MoeModel<S>::Mat& Y, const typename MoeModel<S>::Mat& T, typename MoeModel<S>::Mat* dY);

}  // namespace moelab::moe
