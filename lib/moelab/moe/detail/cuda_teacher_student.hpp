// Internal: the CUDA sibling's constructor, defined in teacher_student_cuda.cpp (the file that includes
// the kernels' launcher header); make_teacher_student_trainer calls it. Not installed.
#pragma once

#include <memory>

#include "moelab/moe/teacher_student_trainer.hpp"

namespace moelab::moe::detail {
/// A TeacherStudentCuda<S>; throws RuntimeFailure in a build without CUDA (its constructor).
template <class S>
std::unique_ptr<TeacherStudentTrainer<S>> make_cuda_teacher_student_trainer(TrainConfig cfg, bool tf32);
}
