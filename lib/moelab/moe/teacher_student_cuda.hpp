// Teacher-student training on the device (W4): TeacherStudent's online mode
// (teacher_student.hpp) with every step on a CUDA device (kernels/moe_layer.cu). Same configuration,
// same initial parameters (init_pytorch on the host, uploaded), the same Philox addresses for the
// batches and the test set (drawn on the device by the shared RandomStream), the same loss, gradient,
// AdamW and cosine: the CPU trainer is the reference, and results agree with it to float rounding
// (TF32 off) -- not byte for byte (cuBLAS sums in another order).
// Experimental (docs/gpu.md: run on hardware only by tests/gpu/moe_gpu_main.cpp). Online only: a fixed
// training set (train_size > 0) and checkpoints are CPU-only for now. The CUDA implementation of
// TeacherStudentTrainer (teacher_student_trainer.hpp): take it from make_teacher_student_trainer.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "moelab/moe/teacher_student.hpp"
#include "moelab/moe/teacher_student_trainer.hpp"

namespace moelab::cuda {
template <class S>
class MoeDeviceTrainer;
}

namespace moelab::moe {

/// True when moelab was built with the CUDA backend (the device trainer exists).
bool moe_cuda_built();

template <class S>
class TeacherStudentCuda final : public TeacherStudentTrainer<S> {
 public:
  using Vec = typename MoeModel<S>::Vec;
  /// `tf32`: float32 GEMMs in TF32 (faster, products rounded to 10 mantissa bits); off by default.
  /// Throws RuntimeFailure when built without CUDA or with no device; train_size > 0 is a precondition error.
  TeacherStudentCuda(TrainConfig cfg, bool tf32 = false);
  ~TeacherStudentCuda();
  TeacherStudentCuda(const TeacherStudentCuda&) = delete;
  TeacherStudentCuda& operator=(const TeacherStudentCuda&) = delete;

  /// Trains until `step()` reaches `last` (at most cfg.steps); returns after the device finished.
  Backend backend() const override { return Backend::cuda; }
  void train_until(std::int64_t last) override;
  std::int64_t step() const override { return step_; }
  const std::vector<double>& losses() const override { return losses_; }
  double test_mse() const override;
  double test_nmse() const override;
  double teacher_energy() const override { return teacher_energy_; }
  /// The student's parameters (downloaded).
  Vec student_params() const override;
  const TrainConfig& config() const override { return cfg_; }

 private:
  TrainConfig cfg_;
  bool tf32_;
  std::unique_ptr<cuda::MoeDeviceTrainer<S>> dev_;
  std::int64_t step_ = 0;
  std::vector<double> losses_;
  double teacher_energy_ = 0.0;
};

}  // namespace moelab::moe
