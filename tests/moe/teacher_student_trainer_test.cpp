// The teacher-student trainer's factory (teacher_student_trainer.hpp) over every backend present: the
// CPU trainer is TeacherStudent (the same bytes: losses, test errors, parameters), the CUDA trainer
// exists only where the CUDA backend can run, and elsewhere the factory refuses naming --backend.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/moe/teacher_student_trainer.hpp"

using namespace moelab;
using namespace moelab::moe;

namespace {

TrainConfig tiny_config() {
  TrainConfig c;
  c.teacher.m = 4, c.teacher.k = 2, c.teacher.w = 8, c.teacher.d = 8, c.teacher.d_out = 8;
  c.student = c.teacher;
  c.student.w = 10;
  c.teacher_seed = 5, c.student_seed = 6, c.data_seed = 7;
  c.steps = 20;
  c.batch = 32;
  c.test_size = 256;
  c.opt.lr = 1e-2;
  return c;
}

}  // namespace

TEST_CASE("the CPU teacher-student trainer is TeacherStudent, byte for byte", "[moe][backend]") {
  const TrainConfig cfg = tiny_config();
  const auto trainer = make_teacher_student_trainer<double>(Backend::cpu, cfg);
  REQUIRE(trainer->backend() == Backend::cpu);
  TeacherStudent<double> ref(cfg);
  CHECK(trainer->test_nmse() == ref.test_nmse());  // before any step
  trainer->train_until(12);
  ref.train_until(12);
  CHECK(trainer->step() == 12);
  CHECK(trainer->losses() == ref.losses());
  CHECK(trainer->test_mse() == ref.test_mse());
  CHECK(trainer->teacher_energy() == ref.teacher_energy());
  CHECK(trainer->student_params() == ref.student().params());
  CHECK(trainer->config().steps == cfg.steps);
  // Control: training further moves the student.
  trainer->train_until(cfg.steps);
  CHECK(trainer->student_params() != ref.student().params());
}

TEST_CASE("make_teacher_student_trainer refuses the cuda backend where CUDA cannot run, naming --backend", "[moe][backend]") {
  if (moelab::test::backend_present(Backend::cuda)) {
    CHECK(make_teacher_student_trainer<float>(Backend::cuda, tiny_config())->backend() == Backend::cuda);
    return;
  }
  CHECK_THROWS_WITH(make_teacher_student_trainer<float>(Backend::cuda, tiny_config()),
                    Catch::Matchers::Contains("make_teacher_student_trainer(cuda)") && Catch::Matchers::Contains("--backend cpu"));
}
