// The granularity paper's teacher-student experiment (Sec. 4, Figs. 2-5, App. D): one training run
// per (teacher, student, seed), best of a few learning rates, normalized test MSE. Shared by the
// study moe.teacher_student and the claim moe.granularity.trained_separation.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/moe/teacher_student.hpp"

namespace moelab::moe {

enum class Precision { float32, float64 };

struct GranularitySpec {
  MoeShape teacher, student;
  std::vector<double> learning_rates;  // the best final test error over these is reported (App. D)
  std::int64_t samples = 1 << 20;      // training samples per run (steps = ceil(samples / batch))
  std::int64_t batch = 256;
  std::int64_t train_size = 0;         // 0: online
  std::int64_t test_size = 8192;
  double weight_decay = 0.0;
  Precision precision = Precision::float32;
  /// cuda: the runs on the device ensemble (ensemble_cuda.hpp; experimental, online only, MLP experts).
  Backend backend = Backend::cpu;
  std::int64_t steps() const { return (samples + batch - 1) / batch; }
};

struct GranularityRun {
  double best_nmse = 0.0;   // normalized test MSE at the end of training, best learning rate
  double best_lr = 0.0;
  double init_nmse = 0.0;   // the student before training
  double final_train_loss = 0.0;  // last training-batch MSE of the best run
};

/// The run of (trial, lr): teacher, student and data seeds from key.with("teacher" | "student" |
/// "data", trial), steps, batch, sizes, weight decay and lr from the spec.
TrainConfig granularity_config(const GranularitySpec& spec, const RngKey& key, std::int64_t trial, double lr);

/// Trial `trial` of the experiment: teacher, student and data seeds from
/// key.with("teacher" | "student" | "data", trial); the same seeds for every learning rate.
GranularityRun run_granularity_trial(const GranularitySpec& spec, const RngKey& key, std::int64_t trial);

/// One trial of one point, for run_granularity_ensemble.
struct GranularityJob {
  const GranularitySpec* spec = nullptr;
  RngKey key;
  std::int64_t trial = 0;
};

/// Every job's run_granularity_trial, with the same bytes, each ensemble through
/// make_ensemble_trainer (moe/ensemble_trainer.hpp) for the backend the job's spec names. On the CPU
/// each job is an ensemble of its own (its learning rates one data group: they share the teacher, the
/// test set and every batch) and the jobs run in parallel, largest first; on the device as few
/// ensembles as possible (every learning rate of every job one run; one ensemble per precision, d,
/// batch, steps, test and training-set size), one after another. `done(j, run)` is called once per
/// job as it completes, one call at a time (under a lock, on any thread); an exception it throws ends
/// the ensemble. `state_path` (RunContext::state_path): where the ensembles keep their mid-run state
/// (EnsembleTrainer::save: a CPU job's learning rates' checkpoints, a device ensemble's state file),
/// saved on an interrupt and about once a minute, restored by a later run of the same jobs (a state
/// that cannot be used is ignored with a note), removed once they are done.
std::vector<GranularityRun> run_granularity_ensemble(std::span<const GranularityJob> jobs,
                                                     const std::function<void(std::size_t, const GranularityRun&)>& done,
                                                     const std::string& state_path = "");

/// The file prefix of a CPU job's state under `state_path` (its learning rate i's TeacherStudent
/// checkpoint is this + ".lr<i>").
std::string granularity_job_state(const std::string& state_path, const GranularityJob& job);

/// Bytes one running job holds (teacher, test set, every learning rate's student with its gradient,
/// AdamW moments and step workspace, loss histories), and its flops; for the cost models.
double granularity_job_bytes(const GranularitySpec& spec);
double granularity_job_flops(const GranularitySpec& spec);

/// The paper's Fig. 2 family: an (m, k, w = round(kw / k), d) MoE with ReLU experts, no biases, softmax weights.
MoeShape granularity_shape(int m, int k, int active_neurons, int d, bool router_bias);

}  // namespace moelab::moe
