// Many teacher-student runs at once on a CUDA device: moe/ensemble.hpp's work (R independent runs,
// possibly of different shapes, grouped by data) with the device ensemble of
// detail/ensemble_driver.hpp (kernels/moe_layer.cu): the runs of one student shape stacked, every
// expert evaluated densely and gated, so that each layer product of a whole class is one batched
// GEMM, and each step one recorded CUDA graph. No host synchronisation between evaluations.
//
// Each run is what TeacherStudent computes for its configuration (teacher_student.hpp, online mode):
// the same initial parameters (init_pytorch on the host), the same Philox addresses for every batch
// and the test set, the same AdamW scalars. Results agree with the CPU trainer to float rounding
// (TF32 off), not byte for byte: cuBLAS and the dense layer sum in other orders. A run's numbers do not
// depend on which other runs share the ensemble on the CPU emulation (bytes); on the device cuBLAS
// may pick another kernel for another batch count, which moves the last bits only.
//
// Requirements (dense_plan_refusal): every run online, MLP experts, no oracle routing, one d, batch,
// step count and test size. The cost is m/k times the active experts' flops (2x at the paper's m = 2k).
// The CUDA implementation of EnsembleTrainer (ensemble_trainer.hpp) wraps it; studies, benchmarks and
// the CPU tests get it from make_ensemble_trainer(Backend::cuda, ...).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "moelab/moe/teacher_student.hpp"

namespace moelab::cuda {
template <class S>
class EnsembleDevice;
}

namespace moelab::moe {

/// Why `runs` cannot train as one device ensemble ("" when they can).
std::string ensemble_cuda_refusal(const std::vector<TrainConfig>& runs);
/// Runs with equal keys may share one device ensemble (the sizes it requires to be equal).
std::string ensemble_cuda_key(const TrainConfig& run);

template <class S>
class EnsembleCuda {
 public:
  using Vec = typename MoeModel<S>::Vec;
  /// Builds and uploads every run (teachers, students, AdamW scalars of every step), step 0.
  /// `tf32`: float32 GEMMs in TF32 (products rounded to 10 mantissa bits), off by default.
  /// RuntimeFailure without CUDA, without a device, or when the device lacks the memory (refused
  /// before any allocation); a precondition failure naming the reason when ensemble_cuda_refusal is not empty.
  explicit EnsembleCuda(const std::vector<TrainConfig>& runs, bool tf32 = false);
  ~EnsembleCuda();
  EnsembleCuda(const EnsembleCuda&) = delete;
  EnsembleCuda& operator=(const EnsembleCuda&) = delete;

  std::size_t size() const { return runs_.size(); }
  const TrainConfig& config(std::size_t r) const { return runs_[r]; }
  std::size_t groups() const { return groups_; }
  std::int64_t step() const { return step_; }
  std::int64_t steps() const { return steps_; }
  /// Trains every run until step `last` (at most steps()); returns when the device has finished
  /// and the new losses are on the host.
  void train_until(std::int64_t last);
  /// Training loss of every step taken, run r.
  const std::vector<double>& losses(std::size_t r) const { return losses_[r]; }
  /// Normalised test MSE of every run now (test MSE x d_out / E||teacher(x)||^2, teacher_student.cpp's).
  std::vector<double> test_nmse();
  /// Run r's student parameters (ParamLayout order).
  Vec student_params(std::size_t r) const;
  /// Run r's gradient of the last step taken (ParamLayout order).
  Vec last_gradient(std::size_t r) const;

  /// The state of every run (step, packed parameters, AdamW moments, losses) written atomically to
  /// `path`, under a fingerprint of every run's configuration and the scalar type.
  void save(const std::string& path) const;
  /// Restores a state written by save() for the same runs; false (nothing changed) when `path` does
  /// not exist or holds another ensemble's state; InputError naming the file when it is damaged.
  /// Training continues from the restored step with the bytes an uninterrupted run computes.
  bool load(const std::string& path);

 private:
  std::vector<TrainConfig> runs_;
  std::vector<int> group_of_;
  std::vector<std::uint64_t> data_seeds_;  // per group (its fixed training set's epoch orders)
  std::size_t groups_ = 0;
  std::int64_t step_ = 0, steps_ = 0, test_size_ = 0, batch_ = 0, train_size_ = 0;
  std::vector<double> energy_;  // per group
  std::vector<std::vector<double>> losses_;
  std::unique_ptr<cuda::EnsembleDevice<S>> dev_;
};

}  // namespace moelab::moe
