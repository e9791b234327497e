#include "moelab/config.hpp"
#include "moelab/moe/teacher_student_cuda.hpp"

#include <fmt/format.h>

#include "moelab/core/backend.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/detail/cuda_teacher_student.hpp"
#include "moelab/moe/detail/moe_layer_host.hpp"

#if MOELAB_HAVE_CUDA
#include "kernels/moe_layer.cuh"
#else
// The forward-declared device type needs a definition for unique_ptr's deleter in this build.
namespace moelab::cuda {
template <class S>
class MoeDeviceTrainer {};
}  // namespace moelab::cuda
#endif

namespace moelab::moe {

namespace {
}

bool moe_cuda_built() {
#if MOELAB_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

#if MOELAB_HAVE_CUDA

template <class S>
TeacherStudentCuda<S>::TeacherStudentCuda(TrainConfig cfg, bool tf32) : cfg_(std::move(cfg)), tf32_(tf32) {
  MOELAB_EXPECT(cfg_.teacher.d == cfg_.student.d && cfg_.teacher.d_out == cfg_.student.d_out,
                "TeacherStudentCuda: teacher and student need the same input and output dimensions");
  MOELAB_EXPECT(cfg_.teacher.weighting != Weighting::oracle && cfg_.student.weighting != Weighting::oracle,
                "TeacherStudentCuda: oracle routing needs labels; the teacher-student setting has none");
  MOELAB_EXPECT(cfg_.steps >= 1 && cfg_.batch >= 1 && cfg_.test_size >= 1, "TeacherStudentCuda: sizes");
  MOELAB_EXPECT(cfg_.train_size == 0, "TeacherStudentCuda: the device trainer is online only (train_size = 0)");
  if (!cuda_backend_available()) throw RuntimeFailure("TeacherStudentCuda: no usable CUDA device");
  cfg_.opt.total_steps = cfg_.steps;
  MoeModel<S> teacher(cfg_.teacher), student(cfg_.student);
  init_pytorch(teacher, cfg_.teacher_seed);
  init_pytorch(student, cfg_.student_seed);
  dev_ = std::make_unique<cuda::MoeDeviceTrainer<S>>(layer_dims(cfg_.teacher), layer_dims(cfg_.student), tf32_);
  dev_->upload(teacher.params().data(), student.params().data());
  std::vector<S> targets(static_cast<std::size_t>(cfg_.teacher.d_out) * static_cast<std::size_t>(cfg_.test_size));
  dev_->make_test_set(cfg_.data_seed, cfg_.test_size, kEvalChunk, targets.data());
  // E||teacher(x)||^2 in teacher_student.cpp's order (columns, then rows, in double).
  double energy = 0.0;
  for (std::int64_t i = 0; i < cfg_.test_size; ++i) {
    double col = 0.0;
    for (int r = 0; r < cfg_.teacher.d_out; ++r) {
      const double t = static_cast<double>(targets[static_cast<std::size_t>(i * cfg_.teacher.d_out + r)]);
      col += t * t;
    }
    energy += col;
  }
  teacher_energy_ = energy / static_cast<double>(cfg_.test_size);
  dev_->reserve_losses(cfg_.steps);
}

template <class S>
TeacherStudentCuda<S>::~TeacherStudentCuda() = default;

template <class S>
void TeacherStudentCuda<S>::train_until(std::int64_t last) {
  last = std::min(last, cfg_.steps);
  const std::int64_t first = step_;
  for (; step_ < last; ++step_) dev_->step(cfg_.data_seed, step_, cfg_.batch, adamw_scalars<S>(cfg_.opt, step_));
  if (last > first) {
    losses_.resize(static_cast<std::size_t>(last));
    dev_->download_losses(losses_.data() + first, first, last - first);
  }
  dev_->synchronize();
}

template <class S>
double TeacherStudentCuda<S>::test_mse() const {
  return dev_->test_mse();
}

template <class S>
double TeacherStudentCuda<S>::test_nmse() const {
  return test_mse() * cfg_.teacher.d_out / teacher_energy_;
}

template <class S>
typename TeacherStudentCuda<S>::Vec TeacherStudentCuda<S>::student_params() const {
  Vec p(parameter_count(cfg_.student));
  dev_->download_student(p.data(), nullptr, nullptr);
  return p;
}

#else  // built without CUDA: the type exists, constructing it is an error

template <class S>
TeacherStudentCuda<S>::TeacherStudentCuda(TrainConfig cfg, bool tf32) : cfg_(std::move(cfg)), tf32_(tf32) {
  throw RuntimeFailure("TeacherStudentCuda: moelab was built without the CUDA backend (configure with -DMOELAB_CUDA=ON)");
}
template <class S>
TeacherStudentCuda<S>::~TeacherStudentCuda() = default;
template <class S>
void TeacherStudentCuda<S>::train_until(std::int64_t) {}
template <class S>
double TeacherStudentCuda<S>::test_mse() const { return 0.0; }
template <class S>
double TeacherStudentCuda<S>::test_nmse() const { return 0.0; }
template <class S>
typename TeacherStudentCuda<S>::Vec TeacherStudentCuda<S>::student_params() const { return {}; }

#endif

template class TeacherStudentCuda<float>;
template class TeacherStudentCuda<double>;

namespace detail {
template <class S>
std::unique_ptr<TeacherStudentTrainer<S>> make_cuda_teacher_student_trainer(TrainConfig cfg, bool tf32) {
  return std::make_unique<TeacherStudentCuda<S>>(std::move(cfg), tf32);
}
template std::unique_ptr<TeacherStudentTrainer<float>> make_cuda_teacher_student_trainer<float>(TrainConfig, bool);
template std::unique_ptr<TeacherStudentTrainer<double>> make_cuda_teacher_student_trainer<double>(TrainConfig, bool);
}  // namespace detail

}  // namespace moelab::moe
