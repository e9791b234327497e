#include "moelab/moe/granularity_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/moe/ensemble.hpp"
#include "moelab/moe/ensemble_cuda.hpp"

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

TrainConfig granularity_config(const GranularitySpec& spec, const RngKey& key, std::int64_t trial, double lr) {
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
  cfg.opt.lr = lr;
  cfg.opt.total_steps = cfg.steps;  // the cosine over the whole run (as every trainer sets it)
  return cfg;
}

namespace {

/// The best over learning rates, in the order given (a later rate must be strictly better).
struct BestOf {
  GranularityRun best;
  BestOf() { best.best_nmse = std::numeric_limits<double>::infinity(); }
  void add(double lr, double init, double final_nmse, double last_loss) {
    best.init_nmse = init;  // the same student seed for every lr
    if (final_nmse < best.best_nmse) best.best_nmse = final_nmse, best.best_lr = lr, best.final_train_loss = last_loss;
  }
};

/// Jobs on the device, as few ensembles as possible (moe/ensemble_cuda.hpp): every learning rate of
/// every job one run, the jobs of one ensemble_cuda_key in one ensemble. `done(j)` per job when its
/// ensemble has finished. Progress on stderr about every 5% of the steps of a long ensemble.
/// With a state path, each ensemble's state is saved there about once a minute and on an interrupt,
/// and restored by a later call with the same runs (a resumed run continues with the same bytes).
template <class S>
void run_cuda_jobs(std::span<const GranularityJob> jobs, const std::vector<std::size_t>& which, std::vector<GranularityRun>& out,
                   const std::function<void(std::size_t, const GranularityRun&)>& done, const std::string& state_path) {
  std::map<std::string, std::vector<std::size_t>> sets;
  for (std::size_t j : which) {
    const GranularitySpec& sp = *jobs[j].spec;
    MOELAB_EXPECT(!sp.learning_rates.empty(), "run_granularity_trial: no learning rate");
    sets[ensemble_cuda_key(granularity_config(sp, jobs[j].key, jobs[j].trial, sp.learning_rates.front()))].push_back(j);
  }
  int set_index = 0;
  for (const auto& [key, js] : sets) {
    const std::string state = state_path.empty() ? std::string() : state_path + std::to_string(set_index++);
    std::vector<TrainConfig> cfgs;
    for (std::size_t j : js)
      for (double lr : jobs[j].spec->learning_rates) cfgs.push_back(granularity_config(*jobs[j].spec, jobs[j].key, jobs[j].trial, lr));
    EnsembleCuda<S> ens(cfgs);
    const std::vector<double> init = ens.test_nmse();  // of the initial students (before any restore)
    if (!state.empty() && ens.load(state))
      std::fprintf(stderr, "moelab: device ensemble of %zu runs: resumed at step %lld from '%s'\n", cfgs.size(), static_cast<long long>(ens.step()),
                   state.c_str());
    const std::int64_t steps = ens.steps(), chunk = std::max<std::int64_t>(1, steps / 20);
    const double flops = static_cast<double>(steps) * [&] {
      double f = 0.0;
      for (const auto& c : cfgs) f += step_flops(c);
      return f;
    }();
    const auto start = std::chrono::steady_clock::now();
    auto saved = start;
    const std::int64_t first = ens.step();
    for (std::int64_t s = first; s < steps;) {
      s = std::min(steps, s + chunk);
      try {
        ens.train_until(s);
        check_interrupted();
      } catch (const Interrupted&) {
        if (!state.empty()) ens.save(state);  // the steps done so far are kept for --resume
        throw;
      }
      const auto now = std::chrono::steady_clock::now();
      if (!state.empty() && s < steps && now - saved > std::chrono::seconds(60)) ens.save(state), saved = now;
      const double secs = std::chrono::duration<double>(now - start).count();
      if (steps >= 1000)
        std::fprintf(stderr, "moelab: device ensemble of %zu runs: step %lld / %lld, %.0f s, %.0f useful GFLOP/s\n", cfgs.size(),
                     static_cast<long long>(s), static_cast<long long>(steps), secs, flops * static_cast<double>(s - first) / static_cast<double>(steps) / secs / 1e9);
    }
    const std::vector<double> fin = ens.test_nmse();
    if (!state.empty()) std::remove(state.c_str());  // its points are journaled below
    std::size_t r = 0;
    for (std::size_t j : js) {
      BestOf best;
      for (double lr : jobs[j].spec->learning_rates) best.add(lr, init[r], fin[r], ens.losses(r).back()), ++r;
      out[j] = best.best;
      done(j, out[j]);
    }
  }
}

/// One job on the CPU: its learning rates as one data group (moe/ensemble.hpp), stepped together.
/// With a state path (`state` + ".lr<i>" per learning rate: TeacherStudent checkpoints), the runs are
/// saved on an interrupt and about once a minute, restored by a later call of the same job (a
/// checkpoint of another configuration is ignored with a note), and removed when the job is done; a
/// restored job finishes with the bytes of an uninterrupted one.
template <class S>
GranularityRun run_group(const GranularitySpec& spec, const RngKey& key, std::int64_t trial, const std::string& state = "") {
  const auto data = std::make_shared<const TeacherData<S>>(granularity_config(spec, key, trial, spec.learning_rates.front()));
  std::vector<std::unique_ptr<TeacherStudent<S>>> runs;
  std::vector<TeacherStudent<S>*> ptrs;
  std::vector<double> init;
  const auto fresh = [&] {
    runs.clear(), ptrs.clear();
    for (double lr : spec.learning_rates) {
      runs.push_back(std::make_unique<TeacherStudent<S>>(granularity_config(spec, key, trial, lr), data));
      ptrs.push_back(runs.back().get());
    }
  };
  fresh();
  for (const auto& r : runs) init.push_back(r->test_nmse());
  const auto file = [&](std::size_t i) { return state + ".lr" + std::to_string(i); };
  if (!state.empty() && std::filesystem::exists(file(0))) {
    try {
      for (std::size_t i = 0; i < runs.size(); ++i) runs[i]->load(file(i));
    } catch (const InputError& e) {
      std::fprintf(stderr, "moelab: not resuming from '%s' (%s); training from the start\n", file(0).c_str(), e.what());
      fresh();
    }
  }
  const auto save = [&] {
    for (std::size_t i = 0; i < runs.size(); ++i) runs[i]->save(file(i));
  };
  const std::int64_t steps = spec.steps(), chunk = std::max<std::int64_t>(1, steps / 100);
  auto saved = std::chrono::steady_clock::now();
  for (std::int64_t s = runs.front()->step(); s < steps;) {
    s = std::min(steps, s + chunk);
    step_group<S>(*data, std::span<TeacherStudent<S>* const>(ptrs), s);
    if (state.empty()) continue;
    try {
      check_interrupted();
    } catch (const Interrupted&) {
      save();  // the steps done so far are kept for --resume
      throw;
    }
    if (std::chrono::steady_clock::now() - saved > std::chrono::seconds(60)) save(), saved = std::chrono::steady_clock::now();
  }
  if (!state.empty())
    for (std::size_t i = 0; i < runs.size(); ++i) std::filesystem::remove(file(i));
  BestOf best;
  for (std::size_t i = 0; i < runs.size(); ++i) best.add(spec.learning_rates[i], init[i], runs[i]->test_nmse(), runs[i]->losses().back());
  return best.best;
}

GranularityRun run_job(const GranularitySpec& spec, const RngKey& key, std::int64_t trial, const std::string& state = "") {
  MOELAB_EXPECT(!spec.learning_rates.empty(), "run_granularity_trial: no learning rate");
  const bool f32 = spec.precision == Precision::float32;
  if (spec.backend == Backend::cuda) {
    const GranularityJob job{&spec, key, trial};
    std::vector<GranularityRun> out(1);
    const std::vector<std::size_t> which{0};
    const auto keep = [](std::size_t, const GranularityRun&) {};
    if (f32) run_cuda_jobs<float>(std::span<const GranularityJob>(&job, 1), which, out, keep, "");
    else run_cuda_jobs<double>(std::span<const GranularityJob>(&job, 1), which, out, keep, "");
    return out[0];
  }
  return f32 ? run_group<float>(spec, key, trial, state) : run_group<double>(spec, key, trial, state);
}

}  // namespace

GranularityRun run_granularity_trial(const GranularitySpec& spec, const RngKey& key, std::int64_t trial) {
  return run_job(spec, key, trial);
}

std::string granularity_job_state(const std::string& state_path, const GranularityJob& job) {
  // A function of the job's key, trial and precision, so that a later run of the same job finds it.
  const std::uint64_t id = job.key.with("state", job.trial).seed() ^ (job.spec->precision == Precision::float64 ? 1u : 0u);
  return fmt::format("{}.cpu.{:016x}", state_path, id);
}

double granularity_job_flops(const GranularitySpec& spec) {
  // Per step: every learning rate's student forward + backward (6 flops per active parameter and
  // sample), the teacher's forward once for the group (2); the test set through the teacher once and
  // through each student twice (before and after training).
  const double steps = static_cast<double>(spec.steps()), batch = static_cast<double>(spec.batch);
  const double lrs = static_cast<double>(spec.learning_rates.size()), test = static_cast<double>(spec.test_size);
  const double act_t = static_cast<double>(active_parameter_count(spec.teacher));
  const double act_s = static_cast<double>(active_parameter_count(spec.student));
  return steps * batch * (6.0 * lrs * act_s + 2.0 * act_t) + 2.0 * test * (act_t + 2.0 * lrs * act_s);
}

double granularity_job_bytes(const GranularitySpec& sp) {
  // Teacher parameters, test inputs and targets (d x test_samples each, drawn through a double
  // buffer), a fixed training set likewise with its shuffle order; per learning rate the student's
  // parameters, gradient and AdamW moments (4x), its loss history (one double per step, grown by
  // doubling) and its step workspace: the forward cache of a batch (per input k slots of d inputs, w
  // pre-activations and activations and d outputs, the m routing logits, the batch input), Y and
  // dY; the batch (X, T) and the evaluation of a 4096-sample chunk once for the group.
  const double S = sp.precision == Precision::float64 ? 8.0 : 4.0, d = sp.teacher.d;
  const double test = static_cast<double>(sp.test_size), train = static_cast<double>(sp.train_size);
  const double steps = static_cast<double>(sp.steps()), batch = static_cast<double>(sp.batch);
  const double lrs = static_cast<double>(sp.learning_rates.size());
  const auto cache = [&](const MoeShape& sh, double n) {
    return n * (sh.k * (sh.d + 2.0 * sh.w + sh.d_out) + sh.m + sh.d + 4.0 * sh.d_out) * S + n * sh.k * 12.0;
  };
  const double inputs = (8.0 + 2.0 * S) * d * test + (train > 0 ? (8.0 + 2.0 * S) * d * train + 8.0 * train : 0.0);
  const double per_lr = S * 4.0 * static_cast<double>(parameter_count(sp.student)) + 16.0 * steps + cache(sp.student, batch);
  return S * static_cast<double>(parameter_count(sp.teacher)) + inputs + lrs * per_lr + 2.0 * S * d * batch +
         std::max(cache(sp.student, 4096.0), cache(sp.teacher, std::max(batch, 4096.0)));
}

std::vector<GranularityRun> run_granularity_ensemble(std::span<const GranularityJob> jobs,
                                                     const std::function<void(std::size_t, const GranularityRun&)>& done,
                                                     const std::string& state_path) {
  std::vector<GranularityRun> out(jobs.size());
  std::vector<std::size_t> cpu, cuda;
  for (std::size_t j = 0; j < jobs.size(); ++j) (jobs[j].spec->backend == Backend::cuda ? cuda : cpu).push_back(j);
  // Largest first (dynamic schedule), so that the last group to finish is a small one.
  std::stable_sort(cpu.begin(), cpu.end(),
                   [&](std::size_t a, std::size_t b) { return granularity_job_flops(*jobs[a].spec) > granularity_job_flops(*jobs[b].spec); });
  std::mutex lock;
  const auto body = [&](std::size_t i) {
    const std::size_t j = cpu[i];
    out[j] = run_job(*jobs[j].spec, jobs[j].key, jobs[j].trial, state_path.empty() ? state_path : granularity_job_state(state_path, jobs[j]));
    const std::lock_guard<std::mutex> hold(lock);
    done(j, out[j]);
  };
  // One group: the products parallelise inside the run instead (moe_model.cpp's expert loops).
  if (cpu.size() > 1 && num_threads() > 1)
    parallel_for(cpu.size(), body);
  else
    for (std::size_t i = 0; i < cpu.size(); ++i) body(i);
  // The device jobs as ensembles, one per precision (and per d, batch, steps and test size).
  std::vector<std::size_t> f32, f64;
  for (std::size_t j : cuda) (jobs[j].spec->precision == Precision::float32 ? f32 : f64).push_back(j);
  const auto done_locked = [&](std::size_t j, const GranularityRun& r) { done(j, r); };
  if (!f32.empty()) run_cuda_jobs<float>(jobs, f32, out, done_locked, state_path.empty() ? state_path : state_path + ".f32.");
  if (!f64.empty()) run_cuda_jobs<double>(jobs, f64, out, done_locked, state_path.empty() ? state_path : state_path + ".f64.");
  return out;
}

}  // namespace moelab::moe
