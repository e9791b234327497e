// The device training step of the transformer block (lib/moelab/moe/detail/transformer_driver.hpp,
// instantiated with the CUDA executor in kernels/moe_layer.cu) emulated on the CPU: the same runner
// with the CPU executor of tests/moe/host_executor.hpp (every kernel = the same transformer_hd.hpp /
// moe_layer_hd.hpp / attention_kernels.hpp functor in a loop over its indices in reverse order,
// cuBLAS = Eigen on the same pointers and leading dimensions, CUB's sort = std::stable_sort), its
// buffers poisoned (NaN / -1) when they grow. Checked against the CPU sequence classifier
// (moe/transformer.hpp: sequence_loss, train_step) on the same parameters and batches: losses over
// several AdamW steps, the first step's gradient, and the parameters after the steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/moe/detail/transformer_driver.hpp"
#include "moelab/moe/detail/transformer_host.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/moe/transformer.hpp"
#include "moe/host_executor.hpp"

using namespace moelab;
using namespace moelab::moe;

namespace {

using test::HostExec;

struct Case {
  AttentionKind attention;
  BlockNorm norm;
  int experts, k;
  bool causal;
  std::string name() const {
    return fmt::format("{} attention, norm {}, k = {} of {} experts{}", to_string(attention), to_string(norm), k, experts,
                       causal ? ", causal" : "");
  }
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (auto a : {AttentionKind::softmax, AttentionKind::linear, AttentionKind::hyla})
    for (auto nm : {BlockNorm::none, BlockNorm::layernorm})
      for (int k : {2, 4}) out.push_back({a, nm, 4, k, false});  // k < T and k = T (every expert active)
  out.push_back({AttentionKind::softmax, BlockNorm::layernorm, 4, 1, true});
  out.push_back({AttentionKind::hyla, BlockNorm::none, 3, 2, true});
  return out;
}

template <class S>
SequenceClassifier<S> make_model(const Case& c, std::uint64_t seed) {
  SequenceShape sh;
  sh.block.d = 6, sh.block.heads = 2, sh.block.d_head = 3;
  sh.block.attention = c.attention, sh.block.norm = c.norm, sh.block.causal = c.causal;
  auto& f = sh.block.ffn;
  f.m = c.experts, f.k = c.k, f.w = 5, f.expert = ExpertKind::mlp, f.expert_bias = true, f.router_bias = false;
  f.weighting = Weighting::softmax, f.gate = Gate::softmax_selected;
  sh.out_heads = 2, sh.classes = 3;
  SequenceClassifier<S> model(sh);
  init_pytorch(model, seed);
  return model;
}

/// Batch `step`: n sequences of T tokens with N(0, 1) features, labels uniform.
template <class S>
SequenceBatch<S> make_batch(const SequenceClassifier<S>& model, int T, int n, std::uint64_t seed, std::int64_t step) {
  SequenceBatch<S> b;
  b.T = T;
  b.X = gaussian_inputs<S>(model.shape().block.d, static_cast<Eigen::Index>(T) * n, seed, StreamTag::moe_train_data,
                           static_cast<std::uint64_t>(step));
  const RandomStream rs(seed, StreamTag::moe_shuffle, static_cast<std::uint64_t>(step));
  const int heads = model.shape().out_heads, V = model.shape().classes;
  for (int i = 0; i < n * heads; ++i) b.labels.push_back(std::min(V - 1, static_cast<int>(rs.uniform(static_cast<std::uint64_t>(i)) * V)));
  return b;
}

double rel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
  return std::sqrt(num) / std::max(std::sqrt(den), 1e-300);  // NaN in a stays NaN
}

template <class S>
std::vector<double> widen(const std::vector<S>& v) {
  return {v.begin(), v.end()};
}

/// What one run of `steps` AdamW steps gives on each side.
struct Trace {
  std::vector<double> losses, first_gradient, params, eval_logits;
  double eval_loss = 0.0;
};

/// The CPU reference: train_step on each batch; the gradient of step 0 from sequence_loss.
template <class S>
Trace cpu_run(SequenceClassifier<S> model, const std::vector<SequenceBatch<S>>& batches, const AdamWConfig& cfg) {
  Trace t;
  SequenceTrainState<S> st;
  {
    SequenceTrainState<S> probe;
    SequenceGradient<S> g;
    sequence_loss(model, batches[0], probe, &g);
    for (const auto* v : {&g.block.params, &g.block.ffn, &g.readout}) t.first_gradient.insert(t.first_gradient.end(), v->data(), v->data() + v->size());
  }
  for (const auto& b : batches) t.losses.push_back(train_step(model, b, cfg, st));
  t.params = widen(pack_sequence_params(model));
  t.eval_loss = sequence_loss<S>(model, batches[0], st, nullptr);
  t.eval_logits.assign(st.logits.data(), st.logits.data() + st.logits.size());
  return t;
}

/// The device's step sequence on the CPU executor: TransformerRunner::step per batch, AdamW scalars
/// from adamw_scalars (the host computes them per step, as the CUDA trainer does).
template <class S>
Trace emulated_run(const SequenceClassifier<S>& model, const std::vector<SequenceBatch<S>>& batches, const AdamWConfig& cfg) {
  Trace t;
  HostExec ex;
  const hd::BlockDims B = block_dims(model);
  hd::TransformerRunner<S, HostExec> run(ex, B);
  std::vector<S> theta = pack_sequence_params(model);
  REQUIRE(static_cast<std::int64_t>(theta.size()) == B.total);
  std::vector<S> m(theta.size(), S(0)), v(theta.size(), S(0)), grad = test::poisoned<S>(theta.size());
  std::vector<double> loss = test::poisoned<double>(1);
  for (std::size_t s = 0; s < batches.size(); ++s) {
    const auto& b = batches[s];
    const std::vector<S> X(b.X.data(), b.X.data() + b.X.size());
    run.step(theta.data(), m.data(), v.data(), grad.data(), X.data(), b.labels.data(), b.T, b.sequences(),
             adamw_scalars<S>(cfg, static_cast<std::int64_t>(s)), loss.data());
    t.losses.push_back(loss[0]);
    if (s == 0) t.first_gradient = widen(grad);
    std::fill(grad.begin(), grad.end(), test::poison_value<S>());  // every step must write every entry again
  }
  t.params = widen(theta);
  const auto& b0 = batches[0];
  const std::vector<S> X(b0.X.data(), b0.X.data() + b0.X.size());
  run.forward(theta.data(), X.data(), b0.T, b0.sequences());
  run.loss(b0.labels.data(), false, loss.data());
  t.eval_loss = loss[0];
  const auto C = static_cast<std::size_t>(B.C()) * static_cast<std::size_t>(b0.sequences());
  t.eval_logits.assign(run.logits(), run.logits() + C);
  return t;
}

constexpr int kSteps = 6;

template <class S>
std::vector<SequenceBatch<S>> batches_for(const SequenceClassifier<S>& model, int T, int n, std::uint64_t seed) {
  std::vector<SequenceBatch<S>> out;
  for (int s = 0; s < kSteps; ++s) out.push_back(make_batch(model, T, n, seed, s));
  return out;
}

AdamWConfig config() {
  AdamWConfig cfg;
  cfg.lr = 1e-2, cfg.weight_decay = 0.01, cfg.total_steps = kSteps;
  return cfg;
}

}  // namespace

TEST_CASE("emulated device transformer step equals the CPU classifier's losses, gradient and AdamW parameters in double",
          "[moe][device][transformer]") {
  // Double precision: the two sides run the same operations on the same values and differ only in
  // summation order (GEMM blocking in lapack::gemm vs Eigen; the MoE's input gradient summed per
  // input over its slots instead of per expert; the loss per sequence, then over sequences), each
  // a few ulps (~1e-16) per entry. Through 6 AdamW steps the moments' ratio m / (sqrt(v) + eps)
  // amplifies a gradient entry's relative error by at most ~1 (not by 1/|g|: eps = 1e-8 and the
  // entries are ~1e-3 .. 1), so 1e-10 relative on the parameters and the losses leaves a margin of
  // ~1e5 over rounding while a 1e-6 change of the learning rate (the control below) moves them by
  // ~1e-8.
  const AdamWConfig cfg = config();
  double worst_loss = 0.0, worst_grad = 0.0, worst_params = 0.0, worst_logits = 0.0;
  for (const Case& c : cases()) {
    CAPTURE(c.name());
    const auto model = make_model<double>(c, 21);
    const auto batches = batches_for(model, 5, 7, 33);
    const Trace cpu = cpu_run(model, batches, cfg);
    const Trace emu = emulated_run(model, batches, cfg);
    REQUIRE(emu.losses.size() == cpu.losses.size());
    for (std::size_t s = 0; s < cpu.losses.size(); ++s) {
      CAPTURE(s, emu.losses[s], cpu.losses[s]);
      const double e = std::abs(emu.losses[s] - cpu.losses[s]) / cpu.losses[s];
      REQUIRE(e <= 1e-12);
      worst_loss = std::max(worst_loss, e);
    }
    const double eg = rel(emu.first_gradient, cpu.first_gradient), ep = rel(emu.params, cpu.params);
    CHECK(eg < 1e-12);
    CHECK(ep < 1e-10);
    CHECK(std::abs(emu.eval_loss - cpu.eval_loss) <= 1e-10 * cpu.eval_loss);
    const double ez = rel(emu.eval_logits, cpu.eval_logits);
    CHECK(ez < 1e-10);
    worst_grad = std::max(worst_grad, eg), worst_params = std::max(worst_params, ep), worst_logits = std::max(worst_logits, ez);
    // The run trains (the comparison is not between two frozen models): the loss of batch 0 fell.
    CHECK(cpu.eval_loss < cpu.losses[0]);
  }
  WARN(fmt::format("double, {} shapes x {} steps: worst relative difference of a loss {:.2e}, of the first gradient {:.2e}, "
                   "of the parameters after the steps {:.2e}, of the trained model's logits {:.2e}",
                   cases().size(), kSteps, worst_loss, worst_grad, worst_params, worst_logits));
}

TEST_CASE("emulated device transformer step agrees with the CPU classifier in float", "[moe][device][transformer]") {
  // float: the same operations in float32, summation orders differing as in double; rounding is
  // ~6e-8 per operation and grows with the products' length (<= T n = 35 terms here) and through
  // the softmax and LayerNorm Jacobians: 1e-5 relative on the losses, the first gradient and the
  // parameters after 6 steps (the MoE emulation test's float bound is 2e-5). Measured (the WARN
  // below): at most 1.4e-7 (losses), 9.6e-7 (gradient), 1.8e-7 (parameters), so the bound leaves
  // a margin of 10 to 50 for an AdamW update whose gradient entry is near rounding level (its sign
  // can differ: the update is ~lr sign(g) for |g| >> eps).
  const AdamWConfig cfg = config();
  double worst_loss = 0.0, worst_grad = 0.0, worst_params = 0.0, worst_logits = 0.0;
  for (const Case& c : cases()) {
    CAPTURE(c.name());
    const auto model = make_model<float>(c, 21);
    const auto batches = batches_for(model, 5, 7, 33);
    const Trace cpu = cpu_run(model, batches, cfg);
    const Trace emu = emulated_run(model, batches, cfg);
    CHECK(std::abs(emu.losses[0] - cpu.losses[0]) <= 1e-5 * cpu.losses[0]);
    const double eg = rel(emu.first_gradient, cpu.first_gradient), ep = rel(emu.params, cpu.params);
    CHECK(eg < 1e-5);
    for (std::size_t s = 0; s < cpu.losses.size(); ++s) {
      const double e = std::abs(emu.losses[s] - cpu.losses[s]) / cpu.losses[s];
      CHECK(e <= 1e-5);
      worst_loss = std::max(worst_loss, e);
    }
    CHECK(ep < 1e-5);
    const double ez = rel(emu.eval_logits, cpu.eval_logits);
    CHECK(ez < 1e-5);
    worst_grad = std::max(worst_grad, eg), worst_params = std::max(worst_params, ep), worst_logits = std::max(worst_logits, ez);
  }
  WARN(fmt::format("float, {} shapes x {} steps: worst relative difference of a loss {:.2e}, of the first gradient {:.2e}, "
                   "of the parameters after the steps {:.2e}, of the trained model's logits {:.2e}",
                   cases().size(), kSteps, worst_loss, worst_grad, worst_params, worst_logits));
}

TEST_CASE("control: a perturbed learning rate on the emulated side is rejected by the same comparison", "[moe][device][transformer]") {
  // lr (1 + 1e-6): every update moves by 1e-6 of itself, ~1e-8 of the parameters' norm after 6
  // steps of lr 1e-2; the comparison's bound is 1e-10.
  const Case c{AttentionKind::hyla, BlockNorm::layernorm, 4, 2, false};
  const auto model = make_model<double>(c, 21);
  const auto batches = batches_for(model, 5, 7, 33);
  const AdamWConfig cfg = config();
  AdamWConfig wrong = cfg;
  wrong.lr *= 1.0 + 1e-6;
  const Trace cpu = cpu_run(model, batches, cfg);
  const Trace emu = emulated_run(model, batches, wrong);
  const double gap = rel(emu.params, cpu.params);
  CAPTURE(gap);
  REQUIRE(gap > 1e-9);  // 10 x the tolerance of the real check
  REQUIRE(std::abs(emu.losses[0] - cpu.losses[0]) <= 1e-12 * cpu.losses[0]);  // step 0's loss precedes any update
}

TEST_CASE("the device transformer step refuses the gates its MoE layer does not compute", "[moe][device][transformer]") {
  // LayerRunner computes the softmax over the selected logits (and equal weights); softmax_all and
  // sigmoid gates run on the CPU only, and block_dims says so instead of training another model.
  for (Gate g : {Gate::softmax_all, Gate::sigmoid}) {
    SequenceShape sh;
    sh.block.d = 4, sh.block.ffn.m = 4, sh.block.ffn.k = 2, sh.block.ffn.gate = g;
    const SequenceClassifier<float> model(sh);
    CAPTURE(to_string(g));
    REQUIRE_THROWS_WITH(block_dims(model), Catch::Contains("softmax over the selected logits") && Catch::Contains("--backend cpu"));
  }
}
