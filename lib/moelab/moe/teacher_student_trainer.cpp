// The CPU reference of the teacher-student trainer interface (teacher_student_trainer.hpp: an
// adapter over TeacherStudent) and the factory. The CUDA sibling is TeacherStudentCuda
// (teacher_student_cuda.cpp, the only file of the topic's trainer that includes kernels/moe_layer.cuh).
#include "moelab/moe/teacher_student_trainer.hpp"

#include <utility>

#include "moelab/core/backend_factory.hpp"
#include "moelab/moe/detail/cuda_teacher_student.hpp"

namespace moelab::moe {

namespace {

template <class S>
class CpuTeacherStudentTrainer final : public TeacherStudentTrainer<S> {
 public:
  using Vec = typename TeacherStudentTrainer<S>::Vec;
  explicit CpuTeacherStudentTrainer(TrainConfig cfg) : run_(std::move(cfg)) {}
  Backend backend() const override { return Backend::cpu; }
  void train_until(std::int64_t last) override { run_.train_until(last); }
  std::int64_t step() const override { return run_.step(); }
  const std::vector<double>& losses() const override { return run_.losses(); }
  double test_mse() const override { return run_.test_mse(); }
  double test_nmse() const override { return run_.test_nmse(); }
  double teacher_energy() const override { return run_.teacher_energy(); }
  Vec student_params() const override { return run_.student().params(); }
  const TrainConfig& config() const override { return run_.config(); }

 private:
  TeacherStudent<S> run_;
};

}  // namespace

template <class S>
std::unique_ptr<TeacherStudentTrainer<S>> make_teacher_student_trainer(Backend backend, TrainConfig cfg, bool tf32) {
  if (backend == Backend::cpu) return std::make_unique<CpuTeacherStudentTrainer<S>>(std::move(cfg));
  require_cuda_backend("make_teacher_student_trainer");
  return detail::make_cuda_teacher_student_trainer<S>(std::move(cfg), tf32);
}

template std::unique_ptr<TeacherStudentTrainer<float>> make_teacher_student_trainer<float>(Backend, TrainConfig, bool);
template std::unique_ptr<TeacherStudentTrainer<double>> make_teacher_student_trainer<double>(Backend, TrainConfig, bool);

}  // namespace moelab::moe
