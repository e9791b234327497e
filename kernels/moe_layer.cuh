// Host-only launcher for the top-k MoE trainer on the device (kernels/moe_layer.cu; benchmark
// "W4", the CUDA sibling of the CPU trainer). No device code here: included from plain C++
// (lib/moelab/moe/teacher_student_cuda.cpp, tests/gpu/moe_gpu_main.cpp).
//
// What runs on the device is lib/moelab/moe/detail/moe_layer_driver.hpp's step sequence with the CUDA
// executor: router GEMM (cuBLAS), top-k + weights per input (moe_layer_hd.hpp, shared with the CPU),
// slots grouped by expert by CUB's stable radix sort (a counting sort on the expert index's bits),
// one cuBLAS GEMM per active expert and layer on its contiguous column block, the same gradients as
// moe_model.cpp, the MSE in double, AdamW per parameter. float32 GEMMs use CUBLAS_COMPUTE_32F (TF32
// off: results comparable with the CPU) unless `tf32` (CUBLAS_COMPUTE_32F_FAST_TF32: 10-bit
// mantissa products, faster); float64 uses CUBLAS_COMPUTE_64F.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "moelab/moe/detail/ensemble_hd.hpp"
#include "moelab/moe/detail/moe_layer_hd.hpp"

namespace moelab::cuda {

/// Online teacher-student training on the device (teacher_student.hpp's online mode). S = float or double.
template <class S>
class MoeDeviceTrainer {
 public:
  MoeDeviceTrainer(const moe::hd::LayerDims& teacher, const moe::hd::LayerDims& student, bool tf32);
  ~MoeDeviceTrainer();
  MoeDeviceTrainer(const MoeDeviceTrainer&) = delete;
  MoeDeviceTrainer& operator=(const MoeDeviceTrainer&) = delete;

  /// Parameters in ParamLayout order (host arrays of teacher.total / student.total); AdamW moments zeroed.
  void upload(const S* teacher_params, const S* student_params);
  /// Test inputs at (data_seed, moe_test_data, 0) and the teacher's targets, evaluated in chunks;
  /// the targets are copied to `host_targets` (d_out x n) when non-null.
  void make_test_set(std::uint64_t data_seed, std::int64_t n, std::int64_t chunk, S* host_targets);
  /// Room for the losses of steps 0 .. steps - 1.
  void reserve_losses(std::int64_t steps);
  /// Training step `step` (0-based; batch = trial `step` of (data_seed, moe_train_data)); asynchronous
  /// except for the two small group-size copies per forward.
  void step(std::uint64_t data_seed, std::int64_t step, std::int64_t batch, const moe::hd::AdamWScalars<S>& a);
  /// Losses of steps first .. first + count - 1 (synchronises).
  void download_losses(double* host, std::int64_t first, std::int64_t count);
  /// Student parameters and AdamW moments (any pointer may be null).
  void download_student(S* params, S* m, S* v);
  /// The gradient of the last step (student.total entries).
  void download_gradient(S* grad);
  /// Student test MSE per entry (synchronises).
  double test_mse();
  void synchronize();

  struct State;

 private:
  std::unique_ptr<State> s_;
};

/// Many teacher-student runs on the device (lib/moelab/moe/detail/ensemble_driver.hpp's
/// DenseEnsembleCore with the CUDA executor): runs of one shape stacked, every expert evaluated and
/// gated, each layer product of all runs of a class one cublasGemmBatchedEx; one step recorded as a
/// CUDA graph on its first call and replayed (no host synchronisation between evaluations).
/// Parameters in the packed layout (ensemble_hd.hpp). S = float or double.
template <class S>
class EnsembleDevice {
 public:
  /// train_size: 0 (online) or every group's fixed training set, a multiple of the batch.
  EnsembleDevice(const std::vector<moe::hd::EnsembleGroup>& groups, const std::vector<moe::hd::EnsembleRun<S>>& runs, std::int64_t batch,
                 std::int64_t steps, std::int64_t train_size, bool tf32);
  ~EnsembleDevice();
  EnsembleDevice(const EnsembleDevice&) = delete;
  EnsembleDevice& operator=(const EnsembleDevice&) = delete;

  void upload_teacher(int group, const S* packed);
  /// After every teacher is uploaded: a fixed training set's inputs and targets (no-op online).
  void make_training_set();
  void upload_student(int run, const S* packed, const S* m, const S* v);  // m, v may be null (zero)
  void download_student(int run, S* packed, S* m, S* v);                  // any pointer may be null
  void download_gradient(int run, S* packed);                              // of the last step
  /// Runs steps `from` .. `to` - 1 of every run (the first call records the step's graph); returns
  /// when they are queued. `from` must be the step the device is at (set_step for a restored run).
  void run_steps(std::int64_t from, std::int64_t to);
  void set_step(std::int64_t step);
  /// The coming epoch's visiting order of every group's fixed training set (groups x train_size);
  /// waits for the queued steps (they read the previous order).
  void set_epoch_order(const std::vector<int>& order);
  /// Losses of run r, steps first .. first + count - 1 (synchronises).
  void download_losses(int run, double* host, std::int64_t first, std::int64_t count);
  /// Test MSE per entry of every run / E||teacher||^2 of every group on `test_size` inputs (synchronises).
  std::vector<double> test_mse(std::int64_t test_size);
  std::vector<double> teacher_energy(std::int64_t test_size);
  void synchronize();

  struct State;

 private:
  std::unique_ptr<State> s_;
};

/// One forward + MSE + backward of a layer on the device for host data (tests): theta (L.total),
/// X (d x n), T (d_out x n), oracle (n experts, or null); writes Y (d_out x n) and grad (L.total),
/// returns the MSE.
template <class S>
double moe_device_loss_and_gradient(const moe::hd::LayerDims& L, const S* theta, const S* X, const S* T, const int* oracle,
                                    std::int64_t n, bool tf32, S* Y, S* grad);

}  // namespace moelab::cuda
