// One teacher-student run (granularity paper, Sec. 4: a top-k MoE student trained online on a top-k
// MoE teacher's outputs) behind one interface, with the CPU reference and the CUDA sibling (STYLE.md,
// "CUDA beside host code"; docs/gpu.md, "One shape"). make_teacher_student_trainer picks the
// implementation for a resolved Backend: Backend::cpu is TeacherStudent (teacher_student.hpp);
// Backend::cuda is TeacherStudentCuda (teacher_student_cuda.hpp: every step on the device through
// kernels/moe_layer.cu, its per-sample code shared with the CPU emulation through
// detail/moe_layer_hd.hpp and detail/moe_layer_driver.hpp). Same configuration, initial parameters and
// Philox addresses, so the device run agrees with the CPU run to float rounding.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/moe/teacher_student.hpp"

namespace moelab::moe {

template <class S>
class TeacherStudentTrainer {
 public:
  using Vec = typename MoeModel<S>::Vec;
  virtual ~TeacherStudentTrainer() = default;
  virtual Backend backend() const = 0;
  /// Trains until step() reaches `last` (at most config().steps); returns when the steps are done.
  virtual void train_until(std::int64_t last) = 0;
  virtual std::int64_t step() const = 0;
  /// Training loss (batch MSE before the update) of every step taken, in order.
  virtual const std::vector<double>& losses() const = 0;
  /// Test MSE per entry, and normalized by E||teacher(x)||^2 / d_out of the test set.
  virtual double test_mse() const = 0;
  virtual double test_nmse() const = 0;
  virtual double teacher_energy() const = 0;
  /// The student's parameters (the CUDA trainer downloads them).
  virtual Vec student_params() const = 0;
  virtual const TrainConfig& config() const = 0;
};

/// The trainer for a resolved backend. `tf32`: the CUDA trainer's float32 GEMMs in TF32 (the CPU
/// ignores it). Backend::cuda where the CUDA backend cannot run throws RuntimeFailure naming the
/// reason and `--backend` (core/backend_factory.hpp); the CUDA trainer is online only (train_size = 0,
/// else a precondition error).
template <class S>
std::unique_ptr<TeacherStudentTrainer<S>> make_teacher_student_trainer(Backend backend, TrainConfig cfg, bool tf32 = false);

}  // namespace moelab::moe
