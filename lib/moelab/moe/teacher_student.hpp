// Teacher-student training (granularity paper, Sec. 4 and App. D): a random teacher MoE
// (PyTorch-style init), inputs x ~ N(0, I_d), targets teacher(x); a student MoE trained on the MSE
// by AdamW with cosine decay, on fresh samples every step (online) or on a fixed training set
// reshuffled every epoch; the normalized test MSE = sum ||student(x) - teacher(x)||^2 /
// sum ||teacher(x)||^2 over a fixed test set (the paper's "test MSE / E||teacher(x)||^2").
//
// Every draw is Philox-addressed: teacher and student parameters by their seeds (StreamTag::moe_init),
// online batch t by (data seed, moe_train_data, trial t), the fixed training set by (data seed,
// moe_train_data, trial 0) and its epoch-e order by (data seed, moe_shuffle, trial e), the test set by
// (data seed, moe_test_data, 0). A run's bytes therefore depend only on its configuration: the loss
// trajectory is identical for any thread count, and a run saved at step t and resumed reproduces
// the uninterrupted one exactly.
//
// Checkpoint (binary, native little-endian, written atomically):
//   "MOELABCK" | u32 version (1) | u32 sizeof(scalar) | u64 fingerprint of the configuration |
//   i64 step | i64 P | P scalars: student parameters | P: AdamW m | P: AdamW v | i64 L | L doubles:
//   the training loss of every step taken.
// The teacher and the data are not stored: they are functions of the configuration's seeds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "moelab/core/stream_tags.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::moe {

/// Test or training samples per forward pass when a run evaluates its loss (bounds the memory of one pass).
inline constexpr std::int64_t kEvalChunk = 4096;

struct TrainConfig {
  MoeShape teacher;
  MoeShape student;
  std::uint64_t teacher_seed = 1;
  std::uint64_t student_seed = 2;
  std::uint64_t data_seed = 3;
  std::int64_t steps = 1000;      // optimizer steps (the cosine runs over all of them)
  std::int64_t batch = 256;       // samples per step
  std::int64_t train_size = 0;    // 0: online (fresh samples every step); else a fixed training set
  std::int64_t test_size = 4096;  // test samples for the normalized test MSE
  AdamWConfig opt;                // opt.total_steps is set to `steps`
  /// Canonical text of every field (the checkpoint's fingerprint is its hash).
  std::string canonical(int scalar_bytes) const;
};

/// The order in which epoch `epoch` visits a fixed training set of `train_size` samples: a
/// Fisher-Yates shuffle drawn from (data_seed, moe_shuffle, epoch). Shared by TeacherData and the
/// device ensemble, so both visit the same samples at every step.
std::vector<std::int64_t> epoch_order(std::uint64_t data_seed, std::int64_t epoch, std::int64_t train_size);

/// The data side of a run: the teacher, the test set and its targets, the fixed training set, and
/// the batch of every step. A function of `data_key(cfg)` only (teacher shape and seed, data seed,
/// batch, training- and test-set sizes), so runs that differ in the student or the optimizer (the
/// learning rates of one seed: the ensemble's data groups, moe/ensemble.hpp) share one: the batch
/// is drawn and the teacher evaluated once per step for all of them, with the bytes each would
/// compute alone. Not thread-safe (the epoch order of a fixed training set is cached): one thread
/// steps a data group at a time.
template <class S>
class TeacherData {
 public:
  using Mat = typename MoeModel<S>::Mat;
  explicit TeacherData(const TrainConfig& cfg);
  /// The canonical text of the configuration fields the data depend on.
  static std::string data_key(const TrainConfig& cfg);
  const std::string& key() const { return key_; }
  /// Inputs and teacher targets of step t (online: fresh; fixed set: epoch order).
  void batch_for_step(std::int64_t t, Mat& X, Mat& T) const;
  const MoeModel<S>& teacher() const { return teacher_; }
  const Mat& test_x() const { return test_x_; }
  const Mat& test_t() const { return test_t_; }
  double teacher_energy() const { return teacher_energy_; }
  /// Bytes held (teacher, test and training sets, the shuffle order).
  double bytes() const;

 private:
  std::string key_;
  TrainConfig cfg_;
  MoeModel<S> teacher_;
  Mat test_x_, test_t_;
  double teacher_energy_ = 0.0;
  Mat train_x_, train_t_;  // fixed training set (empty online)
  mutable std::int64_t order_epoch_ = -1;  // the epoch whose order is cached
  mutable std::vector<std::int64_t> order_;
  // The teacher's forward workspace, kept from step to step: a fresh one per step (evaluate) cost a
  // third of a quick-Fig. 2 run's CPU time in page faults (glibc returning the freed heap top to the
  // kernel and faulting it back in, zeroed, the next step; measured with perf).
  mutable ForwardCache<S> cache_;
};

template <class S>
class TeacherStudent {
 public:
  using Mat = typename MoeModel<S>::Mat;
  using Vec = typename MoeModel<S>::Vec;

  /// Teacher and student initialised, the test set (and training set) drawn; step 0.
  explicit TeacherStudent(TrainConfig cfg);
  /// The same run on data shared with other runs: `data` must be of this configuration's
  /// data_key (InputError-free internal check: MOELAB_EXPECT).
  TeacherStudent(TrainConfig cfg, std::shared_ptr<const TeacherData<S>> data);

  /// Trains until `step()` reaches `last` (at most cfg.steps).
  void train_until(std::int64_t last);
  /// One step on the batch (X, T) of step `step()` (TeacherData::batch_for_step): forward, loss,
  /// backward, AdamW. train_until is this after batch_for_step; the ensemble draws the batch once
  /// for all runs of a data group.
  void step_on(const Mat& X, const Mat& T);
  bool finished() const { return opt_.step >= cfg_.steps; }
  /// The gradient of the last step taken (empty before the first).
  const Vec& last_gradient() const { return grad_; }
  std::int64_t step() const { return opt_.step; }
  /// Training loss (batch MSE before the update) of every step taken, in order.
  const std::vector<double>& losses() const { return losses_; }
  /// Normalized test MSE of the current student.
  double test_nmse() const;
  /// Test MSE per entry and E||teacher(x)||^2 / d_out of the test set.
  double test_mse() const;
  double teacher_energy() const { return data_->teacher_energy(); }

  const MoeModel<S>& teacher() const { return data_->teacher(); }
  const TeacherData<S>& data() const { return *data_; }
  const MoeModel<S>& student() const { return student_; }
  const TrainConfig& config() const { return cfg_; }

  /// Writes the checkpoint (format in the header comment) atomically.
  void save(const std::string& path) const;
  /// Restores a checkpoint written by a run of the same configuration (InputError naming the file
  /// otherwise: wrong magic, version, scalar, configuration or size).
  void load(const std::string& path);

 private:
  TrainConfig cfg_;
  std::shared_ptr<const TeacherData<S>> data_;
  MoeModel<S> student_;
  AdamWState<S> opt_;
  std::vector<double> losses_;
  // Step workspace, kept between steps (no allocation once the group sizes have been seen).
  ForwardCache<S> cache_;
  Mat Y_, dY_;
  Vec grad_;
};

/// Gaussian inputs N(0, I_d) as columns: column i, coordinate c is normal(i d + c) of the stream.
template <class S>
typename MoeModel<S>::Mat gaussian_inputs(int d, std::int64_t n, std::uint64_t seed, StreamTag tag, std::uint64_t trial);

}  // namespace moelab::moe
