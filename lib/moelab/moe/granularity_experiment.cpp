#include "moelab/moe/granularity_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/error.hpp"
#include "moelab/moe/teacher_student_cuda.hpp"

namespace moelab::moe {

MoeShape granularity_shape(int m, int k, int active_neurons, int d, bool router_bias) {
  MOELAB_EXPECT(k >= 1 && active_neurons >= 1, "granularity_shape: sizes must be positive");
  MoeShape s;
  // w = round(kw / k): the paper's k in {6, 10, 12, 14} do not divide 256 or 320.
  s.m = m, s.k = k, s.w = std::max(1, static_cast<int>(std::lround(static_cast<double>(active_neurons) / k))), s.d = d, s.d_out = d;
  s.expert = ExpertKind::mlp;
  s.expert_bias = false;
  s.router_bias = router_bias;
  s.weighting = Weighting::softmax;
  return s;
}

namespace {

template <class S>
GranularityRun run_typed(const GranularitySpec& spec, const RngKey& key, std::int64_t trial) {
  TrainConfig cfg;
  cfg.teacher = spec.teacher;
  cfg.student = spec.student;
  cfg.teacher_seed = key.with("teacher", trial).seed();
  cfg.student_seed = key.with("student", trial).seed();
  cfg.data_seed = key.with("data", trial).seed();
  cfg.steps = spec.steps();
  cfg.batch = spec.batch;
  cfg.train_size = spec.train_size;
  cfg.test_size = spec.test_size;
  cfg.opt.weight_decay = spec.weight_decay;
  GranularityRun best;
  best.best_nmse = std::numeric_limits<double>::infinity();
  for (double lr : spec.learning_rates) {
    cfg.opt.lr = lr;
    const auto once = [&](auto& ts) {
      best.init_nmse = ts.test_nmse();  // same student seed for every lr
      ts.train_until(cfg.steps);
      const double e = ts.test_nmse();
      if (e < best.best_nmse) best.best_nmse = e, best.best_lr = lr, best.final_train_loss = ts.losses().back();
    };
    if (spec.backend == Backend::cuda) {
      TeacherStudentCuda<S> ts(cfg);  // the device trainer (experimental; issue 18 W4)
      once(ts);
    } else {
      TeacherStudent<S> ts(cfg);
      once(ts);
    }
  }
  return best;
}

}  // namespace

GranularityRun run_granularity_trial(const GranularitySpec& spec, const RngKey& key, std::int64_t trial) {
  MOELAB_EXPECT(!spec.learning_rates.empty(), "run_granularity_trial: no learning rate");
  return spec.precision == Precision::float32 ? run_typed<float>(spec, key, trial) : run_typed<double>(spec, key, trial);
}

}  // namespace moelab::moe
