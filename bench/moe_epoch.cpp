// One "epoch" (a fixed number of optimizer steps) of the granularity paper's Fig. 2 setting in moelab
// (teacher 16e8a and student 8e4a, d = 256, teacher kw = 256, student k'w' = 320,
// ReLU experts without biases, softmax over the selected logits), batch 2048, float32, online samples,
// AdamW + cosine. Per step: draw the batch, the teacher's forward (targets), the student's forward
// and backward over its active experts only, the AdamW update. Prints one line per measurement for
// bench/moe_side_by_side.sh, and the single-thread Eigen float GEMM rate (the peak the useful flops
// are compared with).
//   bench_moe_epoch --threads T --steps S [--warmup W]
// --device cuda runs the same steps on the device trainer (kernels/moe_layer.cu, teacher_student_cuda.hpp;
// W4): batch drawn on the device at the same Philox addresses, float32 GEMMs with TF32 off
// unless --tf32; the time covers the steps up to the device's completion (the losses' copy back).
//   bench_moe_epoch --device cuda --steps S [--warmup W] [--tf32]
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>

#include "bench_common.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/moe/granularity_experiment.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/moe/teacher_student_trainer.hpp"

using namespace moelab;
using moelab::bench::Clock;
using moelab::bench::seconds_since;

int main(int argc, char** argv) {
  CLI::App app{"moelab: one epoch of the granularity Fig. 2 setting (teacher 16e8a, student 8e4a, d = 256, batch 2048)"};
  int threads = 1, steps = 20, warmup = 2, d = 256, batch = 2048, kw = 0, teacher_k = 8, student_k = 4, student_m = 0;
  app.add_option("--threads", threads, "threads")->check(CLI::PositiveNumber);
  app.add_option("--steps", steps, "timed optimizer steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--d", d, "dimension")->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "batch")->check(CLI::PositiveNumber);
  app.add_option("--kw", kw, "teacher active neurons (default d; the student gets 1.25 kw)")->check(CLI::NonNegativeNumber);
  app.add_option("--teacher-k", teacher_k, "teacher active experts (m = 2k)")->check(CLI::PositiveNumber);
  app.add_option("--student-k", student_k, "student active experts")->check(CLI::PositiveNumber);
  app.add_option("--student-m", student_m, "student experts (default 2 student_k)")->check(CLI::NonNegativeNumber);
  std::string device = "cpu";
  bool tf32 = false;
  app.add_option("--device", device, "cpu (moelab's CPU trainer) or cuda (the device trainer)")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_flag("--tf32", tf32, "cuda: float32 GEMMs in TF32 (faster, products rounded to 10 mantissa bits)");
  CLI11_PARSE(app, argc, argv);
  set_num_threads(threads);
  Eigen::setNbThreads(1);
  moe::TrainConfig cfg;
  if (kw == 0) kw = d;
  if (student_m == 0) student_m = 2 * student_k;
  cfg.teacher = moe::granularity_shape(2 * teacher_k, teacher_k, kw, d, false);
  cfg.student = moe::granularity_shape(student_m, student_k, kw * 5 / 4, d, false);
  cfg.batch = batch;
  cfg.steps = warmup + steps;
  cfg.test_size = 256;  // drawn in the constructor, not timed
  cfg.opt.lr = 1e-2;
  const auto fwd = [&](const moe::MoeShape& sh) { return 2.0 * sh.m * sh.d + sh.k * 4.0 * sh.w * sh.d; };
  if (device == "cuda") {
    // A build without CUDA, no usable device (the factory's refusal names the reason), or a CUDA
    // failure: one message and exit 2, not an uncaught exception.
    try {
      const auto dev = moe::make_teacher_student_trainer<float>(moelab::Backend::cuda, cfg, tf32);
      dev->train_until(warmup);
      const auto t0 = Clock::now();
      dev->train_until(warmup + steps);
      const double s = seconds_since(t0);
      const double flops_per_sample = fwd(cfg.teacher) + 3.0 * fwd(cfg.student);
      std::printf("moelab_cuda tf32 %d teacher %s student %s kw %d steps %d batch %d d %d step_ms %.3f samples_per_s %.1f useful_gflops %.2f last_loss %.6g\n",
                  tf32 ? 1 : 0, cfg.teacher.name().c_str(), cfg.student.name().c_str(), kw, steps, batch, d, 1e3 * s / steps,
                  static_cast<double>(batch) * steps / s, flops_per_sample * batch * steps / s / 1e9, dev->losses().back());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_moe_epoch: --device cuda: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  moe::TeacherStudent<float> ts(cfg);
  ts.train_until(warmup);
  const auto t0 = Clock::now();
  ts.train_until(warmup + steps);
  const double s = seconds_since(t0);
  // Useful flops per sample: teacher forward (router 2 m d + k experts x 2 x 2 w d) and the student's
  // forward + backward (3x its forward: router 2 m d, k experts x 2 x 2 w d).
  const double flops_per_sample = fwd(cfg.teacher) + 3.0 * fwd(cfg.student);
  std::printf("moelab teacher %s student %s kw %d threads %d steps %d batch %d d %d step_ms %.3f samples_per_s %.1f useful_gflops %.2f last_loss %.6g\n",
              cfg.teacher.name().c_str(), cfg.student.name().c_str(), kw, threads, steps, batch, d, 1e3 * s / steps, static_cast<double>(batch) * steps / s,
              flops_per_sample * batch * steps / s / 1e9, ts.losses().back());
  std::printf("moelab_gemm_peak scalar float n 2000 gflops_one_thread %.2f\n", moelab::bench::gemm_rate<float>(2000, 2000, 2000, 0.5));
  std::printf("moelab_gemm_shape scalar float rows %d inner %d inner2 %d cols %d gflops_one_thread %.2f\n", cfg.student.w, d, d, batch / 2,
              moelab::bench::gemm_rate<float>(cfg.student.w, d, batch / 2, 0.5));
  return 0;
}
