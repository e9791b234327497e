// The CUDA MoE trainer (kernels/moe_layer.cu) emulated on the CPU: lib/moelab/moe/detail/moe_layer_driver.hpp's
// step sequence run with a CPU executor (every device kernel = the same moe_layer_hd.hpp functor in a
// loop, cuBLAS = Eigen on the same pointers and leading dimensions, CUB's stable radix sort =
// std::stable_sort), so the grouping, layouts and index arithmetic the device runs are tested here
// before any device runs them. Checked against the CPU trainer (moe_model.cpp, adamw.cpp,
// teacher_student.cpp) on the same parameters and batches, and against central finite differences
// in double. Buffers are poisoned (NaN / -1) whenever they grow, so a step that reads what no step
// wrote shows up as NaN or an out-of-range index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/moe/detail/moe_layer_driver.hpp"
#include "moelab/moe/detail/moe_layer_host.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moe/host_executor.hpp"

using namespace moelab;
using namespace moelab::moe;

namespace {

using test::HostExec;

template <class S>
using Mat = typename MoeModel<S>::Mat;
template <class S>
using Vec = typename MoeModel<S>::Vec;

/// The device's loss_and_gradient (kernels/moe_layer.cu, moe_device_loss_and_gradient) step for
/// step on the CPU executor.
template <class S>
double emulated_loss_and_gradient(HostExec& ex, const MoeShape& shape, const Vec<S>& theta, const Mat<S>& X, const Mat<S>& T,
                                  const std::vector<int>* oracle, Mat<S>& Y, Vec<S>& grad, std::vector<int>* group_sizes = nullptr) {
  const hd::LayerDims L = layer_dims(shape);
  const std::int64_t n = X.cols();
  Y.setConstant(shape.d_out, n, std::numeric_limits<S>::quiet_NaN());
  grad.setConstant(L.total, std::numeric_limits<S>::quiet_NaN());
  Mat<S> dY = Mat<S>::Constant(shape.d_out, n, std::numeric_limits<S>::quiet_NaN());
  std::vector<double> cols(static_cast<std::size_t>(n), std::nan("")), loss(1, std::nan(""));
  hd::LayerRunner<S, HostExec> layer(ex, L);
  layer.forward(theta.data(), X.data(), oracle ? oracle->data() : nullptr, n, Y.data());
  hd::mse_on<S>(ex, Y.data(), T.data(), shape.d_out, n, dY.data(), cols.data(), loss.data());
  layer.backward(theta.data(), dY.data(), grad.data());
  if (group_sizes) {
    group_sizes->clear();
    for (int j = 0; j < shape.m; ++j) group_sizes->push_back(layer.group_size(j));
  }
  return loss[0];
}

template <class S>
double rel(const Eigen::MatrixBase<S>& a, const Eigen::MatrixBase<S>& b) {
  const double den = std::max(static_cast<double>(b.norm()), 1e-300);
  return static_cast<double>((a - b).norm()) / den;
}

std::vector<MoeShape> shapes() {
  std::vector<MoeShape> out;
  for (auto kind : {ExpertKind::mlp, ExpertKind::linear})
    for (bool eb : {false, true})
      for (auto wt : {Weighting::softmax, Weighting::equal, Weighting::oracle})
        for (bool rb : {false, true}) {
          if (wt == Weighting::oracle && rb) continue;
          MoeShape s;
          s.m = wt == Weighting::oracle ? 5 : (rb ? 8 : 6);
          s.k = wt == Weighting::oracle ? 1 : (rb ? 3 : 2);
          s.w = 7, s.d = 9, s.d_out = 5;
          s.expert = kind, s.expert_bias = eb, s.router_bias = rb, s.weighting = wt;
          out.push_back(s);
        }
  MoeShape one;  // a single expert: no router
  one.m = one.k = 1, one.w = 6, one.d = 4, one.d_out = 3, one.weighting = Weighting::equal, one.expert_bias = true;
  out.push_back(one);
  MoeShape all;  // k = m: every expert active
  all.m = all.k = 4, all.w = 3, all.d = 6, all.d_out = 6;
  out.push_back(all);
  return out;
}

template <class S>
void random_problem(const MoeShape& s, std::uint64_t seed, int n, MoeModel<S>& model, Mat<S>& X, Mat<S>& T, std::vector<int>& oracle) {
  init_pytorch(model, seed);
  X = gaussian_inputs<S>(s.d, n, seed, StreamTag::moe_train_data, 1);
  T = gaussian_inputs<S>(s.d_out, n, seed, StreamTag::moe_train_data, 2);
  const RandomStream rs(seed, StreamTag::moe_shuffle, 7);
  oracle.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) oracle[static_cast<std::size_t>(i)] = static_cast<int>(rs.uniform(static_cast<std::uint64_t>(i)) * s.m) % s.m;
}

}  // namespace

TEST_CASE("device top-k equals a full sort with ties to the lower index, any k <= m", "[moe][device]") {
  // Logits on a coarse grid (0.25 steps in [-1, 1]) so that ties are frequent.
  const RandomStream rs(11, StreamTag::moe_shuffle, 0);
  std::uint64_t draw = 0;
  int ties_seen = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int m = 1 + static_cast<int>(rs.uniform(draw++) * 40), k = 1 + static_cast<int>(rs.uniform(draw++) * m);
    std::vector<double> z(static_cast<std::size_t>(m));
    for (auto& v : z) v = std::round(8.0 * rs.uniform(draw++) - 4.0) / 4.0;
    std::vector<int> idx(static_cast<std::size_t>(m));
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return z[static_cast<std::size_t>(a)] > z[static_cast<std::size_t>(b)]; });
    std::vector<int> e(static_cast<std::size_t>(k), -1);
    std::vector<double> g(static_cast<std::size_t>(k));
    hd::route_sample(z.data(), m, k, hd::Weights::softmax, e.data(), g.data());
    for (int r = 0; r < k; ++r) REQUIRE(e[static_cast<std::size_t>(r)] == idx[static_cast<std::size_t>(r)]);
    if (k < m && z[static_cast<std::size_t>(idx[static_cast<std::size_t>(k - 1)])] == z[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])]) ++ties_seen;
    // softmax over the selected logits: sums to 1, ratios exp(z_a - z_b)
    double sum = 0.0;
    for (double x : g) sum += x;
    REQUIRE(std::abs(sum - 1.0) < 1e-15 * k + 1e-15);  // k additions of numbers <= 1, each rounded (eps/2 each)
    for (int r = 1; r < k; ++r)
      REQUIRE(std::abs(g[static_cast<std::size_t>(r)] / g[0] - std::exp(z[static_cast<std::size_t>(e[static_cast<std::size_t>(r)])] - z[static_cast<std::size_t>(e[0])])) <
              1e-14);  // a quotient and an exp, a few ulps
  }
  REQUIRE(ties_seen > 20);  // the boundary case (a tie at the k-th place) was exercised
}

TEST_CASE("emulated device forward and backward equal the CPU trainer's on the same parameters and batch", "[moe][device]") {
  for (const MoeShape& s : shapes()) {
    CAPTURE(s.describe());
    for (int n : {1, 37}) {
      CAPTURE(n);
      // double: the only differences are summation orders of sums of at most n k + d terms: relative
      // errors of order 1e-15; 1e-12 leaves a factor 1000 and still rejects any wrong term.
      {
        MoeModel<double> model(s);
        Mat<double> X, T, Y, Ycpu, dY;
        std::vector<int> oracle;
        random_problem(s, 5, n, model, X, T, oracle);
        ForwardCache<double> cache;
        forward(model, X, &oracle, cache, Ycpu);
        const double loss_cpu = mse_loss<double>(Ycpu, T, &dY);
        Vec<double> g_cpu, g_emu;
        backward(model, cache, dY, g_cpu);
        HostExec ex;
        std::vector<int> sizes;
        const double loss_emu = emulated_loss_and_gradient<double>(ex, s, model.params(), X, T, &oracle, Y, g_emu, &sizes);
        REQUIRE(rel(Y, Ycpu) < 1e-12);
        REQUIRE(std::abs(loss_emu - loss_cpu) <= 1e-12 * loss_cpu);
        REQUIRE(rel(g_emu, g_cpu) < 1e-12);
        REQUIRE(!g_emu.hasNaN());
        // The grouping: the same group sizes as the CPU's `members`, and one GEMM per active expert
        // and layer (forward: 1 or 2, backward: 1 or 3), plus the router's two.
        int active = 0;
        for (int j = 0; j < s.m; ++j) {
          REQUIRE(sizes[static_cast<std::size_t>(j)] == static_cast<int>(cache.members[static_cast<std::size_t>(j)].size()));
          active += sizes[static_cast<std::size_t>(j)] > 0;
        }
        const int per_expert = s.expert == ExpertKind::mlp ? 5 : 2;
        const int router = s.has_router() ? (s.weighting == Weighting::softmax ? 2 : 1) : 0;
        REQUIRE(ex.gemms == active * per_expert + router);
      }
      // float: both sides round every GEMM entry and sum (at most d + n k = 120 terms here) in float:
      // relative differences up to about 120 eps ~ 1e-5 in the worst entry, far less in norm; 2e-5.
      {
        MoeModel<float> model(s);
        Mat<float> X, T, Y, Ycpu, dY;
        std::vector<int> oracle;
        random_problem(s, 6, n, model, X, T, oracle);
        ForwardCache<float> cache;
        forward(model, X, &oracle, cache, Ycpu);
        const double loss_cpu = mse_loss<float>(Ycpu, T, &dY);
        Vec<float> g_cpu, g_emu;
        backward(model, cache, dY, g_cpu);
        HostExec ex;
        const double loss_emu = emulated_loss_and_gradient<float>(ex, s, model.params(), X, T, &oracle, Y, g_emu);
        REQUIRE(rel(Y, Ycpu) < 2e-5);
        REQUIRE(std::abs(loss_emu - loss_cpu) <= 2e-5 * loss_cpu);
        REQUIRE(rel(g_emu, g_cpu) < 2e-5);
      }
    }
  }
}

TEST_CASE("emulated device gradient equals central finite differences in double, every parameter type", "[moe][device][grad]") {
  // Central differences with h = 1e-6: truncation O(h^2 L''') ~ 1e-12, cancellation ~ eps |L| / h ~
  // 1e-10 absolute. Per parameter type (router W, router b, W1, b1, W2, b2 over all experts) the
  // relative error ||fd - g|| / ||g|| must be <= 1e-6 (the criterion of moe_model_test.cpp);
  // a router whose weights do not depend on it (equal, oracle) must have g = 0 exactly and fd ~ 0.
  // A top-k set that changed inside [-h, h] would break the derivative; the router weights are scaled
  // by 3 (weights far from uniform) and the smallest k-th / (k+1)-th logit gap is checked >> h |x|.
  for (const MoeShape& s : shapes()) {
    CAPTURE(s.describe());
    MoeModel<double> model(s);
    Mat<double> X, T, Y;
    std::vector<int> oracle;
    random_problem(s, 9, 12, model, X, T, oracle);
    if (s.has_router()) {
      model.router_w(model.params()) *= 3.0;
      Mat<double> Z = model.router_w(model.params()) * X;
      double gap = INFINITY;
      for (Eigen::Index i = 0; i < Z.cols(); ++i) {
        std::vector<double> z(Z.col(i).data(), Z.col(i).data() + s.m);
        std::sort(z.begin(), z.end(), std::greater<>());
        if (s.k < s.m) gap = std::min(gap, z[static_cast<std::size_t>(s.k - 1)] - z[static_cast<std::size_t>(s.k)]);
      }
      REQUIRE(gap > 1e-4);  // a step of 1e-6 in one weight moves a logit by <= 1e-6 |x_c| < 1e-5
    }
    HostExec ex;
    Vec<double> g, gdummy;
    emulated_loss_and_gradient<double>(ex, s, model.params(), X, T, &oracle, Y, g);
    const hd::LayerDims L = layer_dims(s);
    struct Block {
      std::string name;
      std::vector<std::int64_t> index;
    };
    std::vector<Block> blocks;
    auto add = [&](const std::string& name, std::int64_t b, std::int64_t e) {
      if (e <= b) return;
      auto it = std::find_if(blocks.begin(), blocks.end(), [&](const Block& x) { return x.name == name; });
      if (it == blocks.end()) blocks.push_back({name, {}}), it = blocks.end() - 1;
      for (std::int64_t p = b; p < e; ++p) it->index.push_back(p);
    };
    if (L.has_router) add("router W", L.router_w, L.router_w + static_cast<std::int64_t>(L.m) * L.d);
    if (L.router_bias) add("router b", L.router_b, L.router_b + L.m);
    for (int j = 0; j < L.m; ++j) {
      const std::int64_t e = L.expert(j);
      add("W1", e + L.w1, e + L.b1);
      add("b1", e + L.b1, e + L.w2);
      add("W2", e + L.w2, e + L.b2);
      add("b2", e + L.b2, e + L.expert_size);
    }
    const double h = 1e-6;
    for (const Block& b : blocks) {
      double num = 0.0, den = 0.0;
      for (std::int64_t p : b.index) {
        Vec<double> th = model.params();
        th[p] += h;
        const double up = emulated_loss_and_gradient<double>(ex, s, th, X, T, &oracle, Y, gdummy);
        th[p] -= 2 * h;
        const double down = emulated_loss_and_gradient<double>(ex, s, th, X, T, &oracle, Y, gdummy);
        const double fd = (up - down) / (2 * h);
        num += (fd - g[p]) * (fd - g[p]);
        den += g[p] * g[p];
      }
      CAPTURE(b.name, std::sqrt(num), std::sqrt(den));
      if (b.name.rfind("router", 0) == 0 && s.weighting != Weighting::softmax) {
        REQUIRE(den == 0.0);
        REQUIRE(std::sqrt(num) < 1e-8);
        continue;
      }
      REQUIRE(den > 0.0);
      REQUIRE(std::sqrt(num / den) <= 1e-6);
    }
  }
}

TEST_CASE("control: a router gradient without the softmax centring is rejected by the same comparison", "[moe][device]") {
  // The nearest plausible wrong backward: dz_r = g_r dg_r (forgetting - sum_t g_t dg_t). The check
  // above must see it: the router block of the emulated gradient then differs from the CPU's by far
  // more than the 1e-12 tolerance.
  MoeShape s;
  s.m = 6, s.k = 3, s.w = 5, s.d = 7, s.d_out = 4, s.router_bias = true;
  MoeModel<double> model(s);
  Mat<double> X, T, Y, Ycpu, dY;
  std::vector<int> oracle;
  random_problem(s, 3, 20, model, X, T, oracle);
  ForwardCache<double> cache;
  forward(model, X, nullptr, cache, Ycpu);
  mse_loss<double>(Ycpu, T, &dY);
  Vec<double> g_cpu;
  backward(model, cache, dY, g_cpu);
  // The wrong variant, computed from the emulation's own per-slot pieces.
  const hd::LayerDims L = layer_dims(s);
  HostExec ex;
  hd::LayerRunner<double, HostExec> layer(ex, L);
  Mat<double> Yd(s.d_out, X.cols());
  layer.forward(model.params().data(), X.data(), nullptr, X.cols(), Yd.data());
  std::vector<double> dg(static_cast<std::size_t>(X.cols() * s.k));
  Mat<double> dlog = Mat<double>::Zero(s.m, X.cols());
  for (Eigen::Index i = 0; i < X.cols(); ++i)
    for (int r = 0; r < s.k; ++r) {
      const int slot = static_cast<int>(i) * s.k + r, e = layer.slot_expert()[slot];
      const double gw = layer.slot_weight()[slot];
      const Vec<double> out = model.w2(model.params(), e) * (model.w1(model.params(), e) * X.col(i)).cwiseMax(0.0);
      dlog(e, i) = gw * dY.col(i).dot(out);  // no centring
    }
  const Mat<double> wrong = dlog * X.transpose();
  const Mat<double> right = model.router_w(g_cpu);
  CAPTURE(rel(wrong, right));
  REQUIRE(rel(wrong, right) > 1e-3);  // 1e9 times the tolerance of the real check
}

TEST_CASE("emulated device training follows the CPU trainer's loss curve, parameters and test error", "[moe][device][train]") {
  // Online teacher-student training (teacher_student.cpp) vs the emulated device trainer
  // (TrainerCore: batch from NormalInputs at the CPU's addresses, teacher forward, student
  // forward/backward, MSE in double, AdamW from adamw_scalars) on the same seeds.
  MoeShape teacher = MoeShape{};
  teacher.m = 8, teacher.k = 4, teacher.w = 6, teacher.d = 12, teacher.d_out = 12;
  MoeShape student = teacher;
  student.m = 4, student.k = 2, student.w = 15, student.router_bias = true;
  TrainConfig cfg;
  cfg.teacher = teacher, cfg.student = student;
  cfg.teacher_seed = 21, cfg.student_seed = 22, cfg.data_seed = 23;
  cfg.steps = 30, cfg.batch = 64, cfg.test_size = 300;
  cfg.opt.lr = 1e-2, cfg.opt.weight_decay = 0.01;
  auto run = [&](auto tag, double tol_loss, double tol_params) {
    using S = decltype(tag);
    TeacherStudent<S> cpu(cfg);
    cpu.train_until(cfg.steps);
    HostExec ex;
    hd::TrainerCore<S, HostExec> emu(ex, layer_dims(teacher), layer_dims(student));
    MoeModel<S> t(teacher), st(student);
    init_pytorch(t, cfg.teacher_seed);
    init_pytorch(st, cfg.student_seed);
    ex.upload(emu.teacher_params(), t.params().data(), t.params().size());
    ex.upload(emu.student_params(), st.params().data(), st.params().size());
    emu.make_test_set(cfg.data_seed, cfg.test_size, 128);  // chunks of 128 (the CPU's are 4096): the weighted mean is the same
    emu.reserve_losses(cfg.steps);
    AdamWConfig opt = cfg.opt;
    opt.total_steps = cfg.steps;
    for (std::int64_t k = 0; k < cfg.steps; ++k) emu.step(cfg.data_seed, k, cfg.batch, adamw_scalars<S>(opt, k));
    std::vector<double> losses(static_cast<std::size_t>(cfg.steps));
    ex.download(losses.data(), emu.losses(), cfg.steps);
    // Step 0 sees identical inputs, targets and parameters.
    REQUIRE(std::abs(losses[0] - cpu.losses()[0]) <= tol_loss * cpu.losses()[0]);
    double worst = 0.0;
    for (std::size_t k = 0; k < losses.size(); ++k) worst = std::max(worst, std::abs(losses[k] - cpu.losses()[k]) / cpu.losses()[k]);
    CAPTURE(worst, losses.back(), cpu.losses().back(), cpu.losses().front());
    REQUIRE(worst <= tol_loss);
    Vec<S> p(st.params().size());
    ex.download(p.data(), emu.student_params(), p.size());
    CAPTURE(rel(p, cpu.student().params()));
    REQUIRE(rel(p, cpu.student().params()) <= tol_params);
    const double mse = emu.test_mse();
    REQUIRE(std::abs(mse - cpu.test_mse()) <= tol_loss * cpu.test_mse());
    REQUIRE(losses.back() < 0.5 * losses.front());  // it trains (the comparison is not between two stalled runs)
  };
  // double: AdamW normalises each gradient entry, so a relative gradient difference of 1e-15 moves a
  // parameter by about 1e-15 lr per step; 30 steps at lr 1e-2 stay far below 1e-10 in the loss.
  run(double{}, 1e-10, 1e-10);
  // float: the same, with float's 6e-8 gradient rounding amplified by AdamW where |m| ~ sqrt(v) eps
  // (entries with tiny gradients move by up to lr per step whatever their sign); measured well under
  // 1e-3 over 30 steps here; 1e-3 rejects any step-level error (a wrong lr, moment or sign moves
  // the loss by more than 1e-2 within a few steps).
  run(float{}, 1e-3, 1e-3);
}
