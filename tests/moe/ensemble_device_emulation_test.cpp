// The device ensemble (lib/moelab/moe/detail/ensemble_driver.hpp, run by kernels/moe_ensemble.cu)
// emulated on the CPU: the same step sequence with the CPU executor (every kernel = the same
// ensemble_hd.hpp functor in a loop, the batched GEMM = one Eigen GEMM per entry on the same pointers
// and leading dimensions). Checked against the CPU trainer (teacher_student.cpp) run alone on the same
// configuration: the inputs are the same Philox draws, the layer is evaluated densely over all
// experts instead of per active expert, so in double the losses, parameters and test error agree to
// rounding. Buffers are poisoned (NaN / -1) when they grow, so a read of what no step wrote shows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/moe/detail/ensemble_driver.hpp"
#include "moelab/moe/detail/ensemble_plan.hpp"
#include "moelab/moe/detail/moe_layer_host.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moe/host_executor.hpp"

using namespace moelab;
using namespace moelab::moe;
using test::HostExec;

namespace {

MoeShape mlp(int m, int k, int w, int d) {
  MoeShape s;
  s.m = m, s.k = k, s.w = w, s.d = d, s.d_out = d;
  return s;
}

/// Runs of every kind the packed layout covers: softmax and equal weights, router and expert biases,
/// k = m, a single expert without a router; two teachers, two data seeds, two learning rates.
std::vector<TrainConfig> mixed_runs(std::int64_t steps, std::int64_t train_size = 0) {
  const int d = 9;
  MoeShape t1 = mlp(6, 3, 4, d), t2 = mlp(4, 2, 5, d);
  t2.expert_bias = true;
  std::vector<MoeShape> students;
  MoeShape s = mlp(4, 2, 6, d);
  s.router_bias = true;
  students.push_back(s);
  s = mlp(8, 2, 3, d);
  s.expert_bias = true;
  students.push_back(s);
  s = mlp(6, 3, 2, d);
  s.weighting = Weighting::equal;
  students.push_back(s);
  s = mlp(3, 3, 4, d);  // k = m
  s.expert_bias = s.router_bias = true;
  students.push_back(s);
  s = mlp(1, 1, 7, d);  // one expert, no router
  s.weighting = Weighting::equal, s.expert_bias = true;
  students.push_back(s);
  std::vector<TrainConfig> out;
  std::uint64_t seed = 100;
  for (std::size_t i = 0; i < students.size(); ++i)
    for (double lr : {1e-2, 3e-3}) {
      TrainConfig c;
      c.teacher = i % 2 == 0 ? t1 : t2;
      c.student = students[i];
      c.teacher_seed = i % 2 == 0 ? 11 : 12;
      c.data_seed = i % 2 == 0 ? 21 : 22;
      c.student_seed = ++seed;
      c.steps = steps, c.batch = 40, c.test_size = 100;  // 100 = 2 full chunks of 40 + one of 20
      c.train_size = train_size;
      c.opt.lr = lr, c.opt.weight_decay = 0.01;
      out.push_back(c);
    }
  return out;
}

template <class S>
struct Emulated {
  HostExec ex;
  DensePlan<S> plan;
  std::unique_ptr<hd::DenseEnsembleCore<S, HostExec>> core;
  explicit Emulated(const std::vector<TrainConfig>& cfgs) : plan(dense_plan<S>(cfgs)) {
    core = std::make_unique<hd::DenseEnsembleCore<S, HostExec>>(ex, plan.groups, plan.runs, plan.batch, plan.steps, plan.train_size);
    load_plan(ex, *core, plan);
  }
  /// Steps from .. to - 1 as EnsembleCuda issues them (epoch orders set between epochs).
  void train(std::int64_t from, std::int64_t to) {
    std::vector<std::uint64_t> seeds;
    for (const auto& g : plan.groups) seeds.push_back(g.data_seed);
    for_epoch_spans(
        seeds, plan.train_size, plan.batch, from, to, [&](const std::vector<int>& order) { core->set_epoch_order(order); },
        [&](std::int64_t a, std::int64_t b) {
          for (std::int64_t t = a; t < b; ++t) core->step();
        });
  }
  std::vector<S> student(int r) {
    const hd::LayerDims& L = plan.runs[static_cast<std::size_t>(r)].student;
    std::vector<S> theta(static_cast<std::size_t>(L.total));
    unpack_params(L, core->student_params(r), theta.data());
    return theta;
  }
  std::vector<S> gradient(int r) {
    const hd::LayerDims& L = plan.runs[static_cast<std::size_t>(r)].student;
    std::vector<S> g(static_cast<std::size_t>(L.total));
    unpack_params(L, core->gradient(r), g.data());
    return g;
  }
};

template <class V, class W>
double rel_diff(const V& a, const W& b) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(b.size()); ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    num += (x - y) * (x - y), den += y * y;
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

}  // namespace

TEST_CASE("packed layout: a permutation of the parameters, W1 rows and W2 columns of expert j in block j", "[moe][device][ensemble]") {
  for (const auto& c : mixed_runs(1))
    for (const MoeShape* s : {&c.teacher, &c.student}) {
      const hd::LayerDims L = layer_dims(*s);
      const auto to = packed_positions(L);
      REQUIRE(static_cast<std::int64_t>(to.size()) == L.total);
      REQUIRE(hd::packed_dims(L).total == L.total);
      const std::set<std::int64_t> seen(to.begin(), to.end());
      REQUIRE(static_cast<std::int64_t>(seen.size()) == L.total);  // one-to-one
      REQUIRE(*seen.begin() == 0);
      REQUIRE(*seen.rbegin() == L.total - 1);
      // Entry (a, c) of W1_j is entry (j w + a, c) of the stacked W1, and W2_j's column a is column j w + a.
      const hd::PackedDims P = hd::packed_dims(L);
      const int j = L.m - 1, a = L.w - 1, col = L.d - 1;
      CHECK(to[static_cast<std::size_t>(L.expert(j) + L.w1 + static_cast<std::int64_t>(col) * L.w + a)] ==
            P.w1 + static_cast<std::int64_t>(col) * P.mw() + static_cast<std::int64_t>(j) * L.w + a);
      CHECK(to[static_cast<std::size_t>(L.expert(j) + L.w2 + static_cast<std::int64_t>(a) * L.d_out)] ==
            P.w2 + (static_cast<std::int64_t>(j) * L.w + a) * L.d_out);
      std::vector<double> theta(static_cast<std::size_t>(L.total));
      std::iota(theta.begin(), theta.end(), 0.0);
      const auto packed = pack_params<double>(L, theta.data());
      std::vector<double> back(theta.size(), -1.0);
      unpack_params<double>(L, packed.data(), back.data());
      CHECK(back == theta);
    }
}

TEST_CASE("emulated device ensemble trains every run as the CPU trainer trains it alone (double)", "[moe][device][ensemble]") {
  // Each run against TeacherStudent<double> (the reference trainer, itself checked against finite
  // differences and torch's AdamW): the same batches (Philox addresses), teacher, initial student and
  // AdamW scalars; only the summation order of the dense layer differs (unselected experts add exact
  // zeros; the GEMMs' inner sums run over all experts' units). Tolerance 1e-10: double rounding
  // (1e-16) amplified by 12 AdamW steps (each entry's step is normalised, so a relative gradient
  // error e moves a parameter by about e lr) stays below 1e-12 here; any error in a piece of the
  // step (a gate, a bias gradient, a moment) moves the loss by more than 1e-4 within two steps.
  const std::int64_t steps = 12;
  const std::int64_t train_size = GENERATE(0, 120);  // online; a fixed set of 3 batches (4 epochs in 12 steps)
  const auto cfgs = mixed_runs(steps, train_size);
  INFO("train_size " << train_size);
  Emulated<double> emu(cfgs);
  REQUIRE(emu.core->groups() == 2);
  REQUIRE(emu.core->classes() == 2 + 5);  // two teacher shapes, five student shapes (two learning rates each)
  emu.train(0, steps);
  const std::vector<double> mse = emu.core->test_mse(cfgs.front().test_size);
  const std::vector<double> energy = emu.core->teacher_energy(cfgs.front().test_size);
  for (std::size_t r = 0; r < cfgs.size(); ++r) {
    INFO("run " << r);
    TeacherStudent<double> cpu(cfgs[r]);
    cpu.train_until(steps);
    const double* losses = emu.core->losses(static_cast<int>(r));
    std::vector<double> l(losses, losses + steps);
    CAPTURE(l.front(), l.back(), cpu.losses().front(), cpu.losses().back());
    CHECK(rel_diff(l, cpu.losses()) <= 1e-10);
    CHECK(rel_diff(emu.gradient(static_cast<int>(r)), cpu.last_gradient()) <= 1e-10);
    CHECK(rel_diff(emu.student(static_cast<int>(r)), cpu.student().params()) <= 1e-10);
    CHECK(std::abs(mse[r] - cpu.test_mse()) <= 1e-10 * cpu.test_mse());
    const int g = emu.plan.runs[r].group;
    CHECK(std::abs(energy[static_cast<std::size_t>(g)] - cpu.teacher_energy()) <= 1e-12 * cpu.teacher_energy());
    // The runs moved (the comparison is not between two stalled runs): 12 AdamW steps at lr >= 3e-3
    // move each parameter by about lr per step.
    const auto& p0 = emu.plan.student_params[r];
    std::vector<double> now = emu.student(static_cast<int>(r)), start(p0.size());
    unpack_params(emu.plan.runs[r].student, p0.data(), start.data());
    CHECK(rel_diff(now, start) > 1e-3);
  }
}

TEST_CASE("control: the comparison tells a run from its neighbour and from one step more", "[moe][device][ensemble]") {
  // The tolerance above is tight enough to reject a run's parameters one AdamW step off, and the
  // losses of another learning rate.
  const std::int64_t steps = 4;
  const auto cfgs = mixed_runs(steps);
  Emulated<double> emu(cfgs);
  for (std::int64_t t = 0; t < steps; ++t) emu.core->step();
  TeacherStudent<double> short_run(cfgs[0]);
  short_run.train_until(steps - 1);
  CHECK(rel_diff(emu.student(0), short_run.student().params()) > 1e-6);
  const double* a = emu.core->losses(0);
  const double* b = emu.core->losses(1);  // same student shape and data, lr 3e-3 instead of 1e-2
  CHECK(rel_diff(std::vector<double>(a + 1, a + steps), std::vector<double>(b + 1, b + steps)) > 1e-6);
}

TEST_CASE("emulated device ensemble: a run's bytes do not depend on which runs share the ensemble", "[moe][device][ensemble]") {
  // float: the run alone and the run among nine others, bytes of losses, parameters and moments.
  const std::int64_t steps = 6;
  const auto cfgs = mixed_runs(steps);
  Emulated<float> all(cfgs);
  for (std::int64_t t = 0; t < steps; ++t) all.core->step();
  for (int r : {0, 3, 9}) {
    INFO("run " << r);
    Emulated<float> alone(std::vector<TrainConfig>{cfgs[static_cast<std::size_t>(r)]});
    for (std::int64_t t = 0; t < steps; ++t) alone.core->step();
    const auto P = static_cast<std::size_t>(all.plan.runs[static_cast<std::size_t>(r)].student.total);
    CHECK(std::memcmp(all.core->losses(r), alone.core->losses(0), sizeof(double) * static_cast<std::size_t>(steps)) == 0);
    CHECK(std::memcmp(all.core->student_params(r), alone.core->student_params(0), sizeof(float) * P) == 0);
    CHECK(std::memcmp(all.core->adam_v(r), alone.core->adam_v(0), sizeof(float) * P) == 0);
    CHECK(all.core->test_mse(cfgs.front().test_size)[static_cast<std::size_t>(r)] == alone.core->test_mse(cfgs.front().test_size)[0]);
  }
}

TEST_CASE("a device ensemble step allocates nothing and exchanges nothing with the host", "[moe][device][ensemble]") {
  // What makes a step recordable as a CUDA graph: a fixed call list, the step number read from
  // executor memory (the counter advances by itself), no buffer growth, no upload or download.
  const auto cfgs = mixed_runs(5);
  Emulated<float> emu(cfgs);
  const std::int64_t growths = HostExec::growths(), transfers = emu.ex.transfers;
  const std::int64_t launches0 = emu.ex.for_each_launches;
  emu.core->step();
  const std::int64_t per_step = emu.ex.for_each_launches - launches0;
  for (int t = 1; t < 5; ++t) emu.core->step();
  CHECK(HostExec::growths() == growths);
  CHECK(emu.ex.transfers == transfers);
  CHECK(emu.ex.for_each_launches - launches0 == 5 * per_step);  // the same call list every step
  CHECK(*emu.core->step_counter() == 5);
  // Each step's loss landed at its own step's slot (no slot left at the poison value).
  for (int r = 0; r < emu.core->runs(); ++r)
    for (int t = 0; t < 5; ++t) CHECK(std::isfinite(emu.core->losses(r)[t]));
}

TEST_CASE("device ensemble plans refuse what the batched path cannot run, with the reason", "[moe][device][ensemble]") {
  auto cfgs = mixed_runs(3);
  CHECK(dense_plan_refusal(cfgs).empty());
  auto bad = cfgs;
  bad[1].student.expert = ExpertKind::linear;
  CHECK(dense_plan_refusal(bad).find("linear experts") != std::string::npos);
  bad = cfgs;
  bad[2].batch = 41;
  CHECK(dense_plan_refusal(bad).find("different d, batch") != std::string::npos);
  bad = cfgs;
  bad[4].student.gate = Gate::sigmoid;
  CHECK(dense_plan_refusal(bad).find("another gate") != std::string::npos);
  bad = cfgs;
  bad[0].train_size = 1000;
  CHECK(dense_plan_refusal(bad).find("different training-set sizes") != std::string::npos);
  CHECK_THROWS(dense_plan<float>(bad));
  bad = mixed_runs(3, 100);  // 2.5 batches of 40
  CHECK(dense_plan_refusal(bad).find("not a multiple of the batch") != std::string::npos);
  CHECK(dense_plan_refusal(mixed_runs(3, 120)).empty());
}
