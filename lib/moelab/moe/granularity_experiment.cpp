#include "moelab/moe/granularity_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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
#include "moelab/moe/ensemble_trainer.hpp"

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

/// The jobs `js` (one backend, precision S) trained as one ensemble through make_ensemble_trainer
/// (moe/ensemble_trainer.hpp): every learning rate of every job one run, a job's learning rates one
/// data group. `done(j)` per job when the ensemble has finished. With a state path the ensemble's
/// state is saved there (EnsembleTrainer::save) on an interrupt and about once a minute, restored by a
/// later call with the same runs (one that cannot be used is ignored with a note, training from the
/// start), and removed when done; a resumed ensemble finishes with the bytes of an uninterrupted one.
/// The CPU trains one job per ensemble, many at a time (run_granularity_ensemble), so it steps in
/// finer chunks (a prompt interrupt) and quietly; the device trains its ensembles one after another
/// and reports progress on stderr about every 5% of the steps of a long one.
template <class S>
void train_jobs(Backend backend, std::span<const GranularityJob> jobs, const std::vector<std::size_t>& js, const std::string& state,
                const std::function<void(std::size_t, const GranularityRun&)>& done) {
  std::vector<TrainConfig> cfgs;
  for (std::size_t j : js) {
    MOELAB_EXPECT(!jobs[j].spec->learning_rates.empty(), "run_granularity_trial: no learning rate");
    for (double lr : jobs[j].spec->learning_rates) cfgs.push_back(granularity_config(*jobs[j].spec, jobs[j].key, jobs[j].trial, lr));
  }
  const bool report = backend == Backend::cuda;
  auto ens = make_ensemble_trainer<S>(backend, cfgs);
  const std::vector<double> init = ens->test_nmse();  // of the initial students (before any restore)
  if (!state.empty()) {
    try {
      if (ens->load(state) && report)
        std::fprintf(stderr, "moelab: device ensemble of %zu runs: resumed at step %lld from '%s'\n", cfgs.size(), static_cast<long long>(ens->step()),
                     state.c_str());
    } catch (const InputError& e) {
      std::fprintf(stderr, "moelab: not resuming from '%s' (%s); training from the start\n", state.c_str(), e.what());
      ens = make_ensemble_trainer<S>(backend, cfgs);
    }
  }
  const std::int64_t steps = ens->steps(), chunk = std::max<std::int64_t>(1, steps / (backend == Backend::cuda ? 20 : 100));
  const double flops = static_cast<double>(steps) * [&] {
    double f = 0.0;
    for (const auto& c : cfgs) f += step_flops(c);
    return f;
  }();
  const auto start = std::chrono::steady_clock::now();
  auto saved = start;
  const std::int64_t first = ens->step();
  for (std::int64_t s = first; s < steps;) {
    s = std::min(steps, s + chunk);
    try {
      ens->train_until(s);
      check_interrupted();
    } catch (const Interrupted&) {
      if (!state.empty()) ens->save(state);  // the steps done so far are kept for --resume
      throw;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!state.empty() && s < steps && now - saved > std::chrono::seconds(60)) ens->save(state), saved = now;
    const double secs = std::chrono::duration<double>(now - start).count();
    if (report && steps >= 1000)
      std::fprintf(stderr, "moelab: device ensemble of %zu runs: step %lld / %lld, %.0f s, %.0f useful GFLOP/s\n", cfgs.size(),
                   static_cast<long long>(s), static_cast<long long>(steps), secs, flops * static_cast<double>(s - first) / static_cast<double>(steps) / secs / 1e9);
  }
  const std::vector<double> fin = ens->test_nmse();
  if (!state.empty()) ens->remove_saved(state);  // its points are journaled by `done`
  std::size_t r = 0;
  for (std::size_t j : js) {
    BestOf best;
    for (double lr : jobs[j].spec->learning_rates) best.add(lr, init[r], fin[r], ens->losses(r).back()), ++r;
    done(j, best.best);
  }
}

/// Jobs trained as one ensemble (train_jobs): on the CPU one job (run_granularity_ensemble runs many
/// such sets at once), on the device every job of one precision and ensemble_cuda_key.
struct JobSet {
  Backend backend = Backend::cpu;
  Precision precision = Precision::float32;
  std::vector<std::size_t> jobs;
  std::string state;  // where its state is kept ("": nowhere)
};

void train_set(const JobSet& set, std::span<const GranularityJob> jobs, const std::function<void(std::size_t, const GranularityRun&)>& done) {
  if (set.precision == Precision::float32)
    train_jobs<float>(set.backend, jobs, set.jobs, set.state, done);
  else
    train_jobs<double>(set.backend, jobs, set.jobs, set.state, done);
}

}  // namespace

GranularityRun run_granularity_trial(const GranularitySpec& spec, const RngKey& key, std::int64_t trial) {
  const GranularityJob job{&spec, key, trial};
  GranularityRun out;
  train_set(JobSet{spec.backend, spec.precision, {0}, ""}, std::span<const GranularityJob>(&job, 1), [&](std::size_t, const GranularityRun& r) { out = r; });
  return out;
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
  // On the CPU each job is a set of its own (its learning rates one data group) and the sets run in
  // parallel, at most one job per thread (the memory estimate's assumption); on the device as few
  // sets as possible, one per precision and ensemble_cuda_key (d, batch, steps, test and training-set
  // sizes), trained one after another. Each set keeps its state under its own name.
  std::vector<JobSet> cpu;
  std::map<std::pair<int, std::string>, JobSet> device;  // float32 (0) before float64 (1)
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const GranularitySpec& sp = *jobs[j].spec;
    if (sp.backend == Backend::cpu) {
      cpu.push_back(JobSet{Backend::cpu, sp.precision, {j}, state_path.empty() ? state_path : granularity_job_state(state_path, jobs[j])});
      continue;
    }
    MOELAB_EXPECT(!sp.learning_rates.empty(), "run_granularity_trial: no learning rate");
    JobSet& set = device[{sp.precision == Precision::float32 ? 0 : 1,
                          ensemble_cuda_key(granularity_config(sp, jobs[j].key, jobs[j].trial, sp.learning_rates.front()))}];
    set.backend = Backend::cuda, set.precision = sp.precision, set.jobs.push_back(j);
  }
  // Largest first (dynamic schedule), so that the last set to finish is a small one.
  const auto flops = [&](const JobSet& s) { return granularity_job_flops(*jobs[s.jobs.front()].spec); };
  std::stable_sort(cpu.begin(), cpu.end(), [&](const JobSet& a, const JobSet& b) { return flops(a) > flops(b); });
  std::mutex lock;
  const auto keep = [&](std::size_t j, const GranularityRun& r) {
    out[j] = r;
    const std::lock_guard<std::mutex> hold(lock);
    done(j, r);
  };
  const auto body = [&](std::size_t i) { train_set(cpu[i], jobs, keep); };
  // One set: the products parallelise inside the run instead (moe_model.cpp's expert loops).
  if (cpu.size() > 1 && num_threads() > 1)
    parallel_for(cpu.size(), body);
  else
    for (std::size_t i = 0; i < cpu.size(); ++i) body(i);
  int index[2] = {0, 0};
  for (auto& [key, set] : device) {
    if (!state_path.empty()) set.state = state_path + (key.first == 0 ? ".f32." : ".f64.") + std::to_string(index[key.first]++);
    train_set(set, jobs, keep);
  }
  return out;
}

}  // namespace moelab::moe
