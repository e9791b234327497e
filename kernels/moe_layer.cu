// The top-k MoE trainer on the device (W4): the CUDA executor of
// lib/moelab/moe/detail/moe_layer_driver.hpp (one run) and of detail/ensemble_driver.hpp (many runs
// at once, each step one recorded CUDA graph). Every elementwise or per-sample step is one launch of
// for_each_kernel running a functor of moe_layer_hd.hpp (the code the CPU emulation test runs in a
// loop); GEMMs are cuBLAS (cublasGemmEx, one per active expert and layer, column blocks of the
// grouped layout); the grouping is CUB's stable radix sort of (expert, slot) pairs. One stream (the
// default), no host synchronisation inside a step except the group sizes (2 x m ints per forward),
// which size the per-expert GEMMs.
// The same executor runs the transformer block's training step (detail/transformer_driver.hpp,
// TransformerDevice of transformer.cuh; the SRAVEN study's --backend cuda).
// Status: compiled in every CUDA build; exercised only where a device exists (tests/gpu/moe_gpu_main.cpp,
// tests/gpu/transformer_gpu_main.cpp).
#include "moe_layer.cuh"
#include "transformer.cuh"

#include <cublas_v2.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_status.cuh"
#include "device_memory.cuh"

#include "moelab/moe/detail/ensemble_driver.hpp"
#include "moelab/moe/detail/moe_layer_driver.hpp"
#include "moelab/moe/detail/transformer_driver.hpp"

namespace moelab::cuda {
namespace {

template <class F>
__global__ void for_each_kernel(std::int64_t n, F f) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) f(e);
}

/// The CUDA executor (moe_layer_driver.hpp's and ensemble_driver.hpp's interface). Every call goes to
/// one stream of its own (so that a step can be recorded as a CUDA graph); copies to and from the
/// host are synchronous (cudaMemcpy on the legacy stream, which waits for this blocking stream).
class DeviceExec {
 public:
  template <class T>
  using Buffer = DeviceBuffer<T>;

  explicit DeviceExec(bool tf32) : tf32_(tf32) {
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check_cublas(cublasCreate(&handle_), "cublasCreate");
    check_cublas(cublasSetStream(handle_, stream_), "cublasSetStream");
    // A workspace of our own: cuBLAS then allocates nothing while a graph is being recorded
    // (32 MiB: what cuBLAS documents for Hopper).
    workspace_.resize(std::size_t{32} << 20);
    check_cublas(cublasSetWorkspace(handle_, workspace_.get(), workspace_.capacity()), "cublasSetWorkspace");
    // Default math: CUBLAS_COMPUTE_32F stays full float32 (no TF32 unless asked for by compute type).
    check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  ~DeviceExec() {
    cublasDestroy(handle_);
    cudaStreamDestroy(stream_);
  }
  DeviceExec(const DeviceExec&) = delete;
  DeviceExec& operator=(const DeviceExec&) = delete;
  cudaStream_t stream() const { return stream_; }

  template <class F>
  void for_each(std::int64_t n, const F& f) {
    if (n <= 0) return;
    constexpr int kThreads = 256;
    const std::int64_t blocks = std::min<std::int64_t>((n + kThreads - 1) / kThreads, std::int64_t{1} << 20);
    for_each_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream_>>>(n, f);
    check(cudaGetLastError(), "MoE step kernel launch");
  }

  template <class S>
  void gemm(bool ta, bool tb, int m, int n, int k, const S* A, int lda, const S* B, int ldb, S* C, int ldc) {
    const S one = 1, zero = 0;
    check_cublas(cublasGemmEx(handle_, op(ta), op(tb), m, n, k, &one, A, type<S>(), lda, B, type<S>(), ldb, &zero, C, type<S>(), ldc,
                              compute<S>(), CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (MoE layer)");
  }

  /// C[i] = op(A[i]) op(B[i]), i < count; the pointer arrays are in device memory.
  template <class S>
  void gemm_batched(bool ta, bool tb, int m, int n, int k, const S* const* A, int lda, const S* const* B, int ldb, S* const* C, int ldc,
                    int count) {
    if (count <= 0 || m <= 0 || n <= 0) return;
    const S one = 1, zero = 0;
    check_cublas(cublasGemmBatchedEx(handle_, op(ta), op(tb), m, n, k, &one, reinterpret_cast<const void* const*>(A), type<S>(), lda,
                                     reinterpret_cast<const void* const*>(B), type<S>(), ldb, &zero, reinterpret_cast<void* const*>(C),
                                     type<S>(), ldc, count, compute<S>(), CUBLAS_GEMM_DEFAULT),
                 "cublasGemmBatchedEx (MoE ensemble)");
  }

  template <class T>
  void zero(T* p, std::int64_t n) {
    if (n > 0) check(cudaMemsetAsync(p, 0, static_cast<std::size_t>(n) * sizeof(T), stream_), "cudaMemsetAsync");
  }

  void sort_pairs(const int* keys, int* keys_out, const int* vals, int* vals_out, std::int64_t n, int end_bit) {
    if (n <= 0) return;
    if (n > (std::int64_t{1} << 31) - 1) throw std::invalid_argument("moelab::cuda: MoE layer: more than 2^31 - 1 slots in one batch");
    std::size_t bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys_out, vals, vals_out, static_cast<int>(n), 0, end_bit, stream_), "CUB sort (size)");
    temp_.resize(bytes);
    check(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys, keys_out, vals, vals_out, static_cast<int>(n), 0, end_bit, stream_), "CUB sort");
  }

  template <class T>
  void upload(T* dst, const T* host, std::int64_t n) {
    if (n > 0) check(cudaMemcpy(dst, host, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy host->device (MoE)");
  }
  template <class T>
  void download(T* host, const T* src, std::int64_t n) {
    if (n > 0) check(cudaMemcpy(host, src, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy device->host (MoE)");
  }

 private:
  static cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }
  template <class S>
  static cudaDataType_t type() {
    return sizeof(S) == 8 ? CUDA_R_64F : CUDA_R_32F;
  }
  template <class S>
  cublasComputeType_t compute() const {
    return sizeof(S) == 8 ? CUBLAS_COMPUTE_64F : (tf32_ ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  }

  bool tf32_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<unsigned char> temp_, workspace_;
};

/// A recorded CUDA graph of `record()` on the executor's stream, replayed by launch().
class RecordedGraph {
 public:
  RecordedGraph() = default;
  ~RecordedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  RecordedGraph(const RecordedGraph&) = delete;
  RecordedGraph& operator=(const RecordedGraph&) = delete;
  bool recorded() const { return exec_ != nullptr; }
  template <class F>
  void record(cudaStream_t stream, const F& issue) {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture (ensemble step)");
    try {
      issue();
    } catch (...) {
      cudaGraph_t discard = nullptr;
      cudaStreamEndCapture(stream, &discard);
      if (discard != nullptr) cudaGraphDestroy(discard);
      throw;
    }
    check(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture (ensemble step)");
    check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate (ensemble step)");
  }
  void launch(cudaStream_t stream) { check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch (ensemble step)"); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

template <class S>
struct MoeDeviceTrainer<S>::State {
  State(const moe::hd::LayerDims& t, const moe::hd::LayerDims& s, bool tf32) : ex(tf32), core(ex, t, s), teacher(t), student(s) {}
  DeviceExec ex;
  moe::hd::TrainerCore<S, DeviceExec> core;
  moe::hd::LayerDims teacher, student;
};

template <class S>
MoeDeviceTrainer<S>::MoeDeviceTrainer(const moe::hd::LayerDims& teacher, const moe::hd::LayerDims& student, bool tf32)
    : s_(std::make_unique<State>(teacher, student, tf32)) {}

template <class S>
MoeDeviceTrainer<S>::~MoeDeviceTrainer() = default;

template <class S>
void MoeDeviceTrainer<S>::upload(const S* teacher_params, const S* student_params) {
  s_->ex.upload(s_->core.teacher_params(), teacher_params, s_->teacher.total);
  s_->ex.upload(s_->core.student_params(), student_params, s_->student.total);
  s_->ex.zero(s_->core.adam_m(), s_->student.total);
  s_->ex.zero(s_->core.adam_v(), s_->student.total);
}

template <class S>
void MoeDeviceTrainer<S>::make_test_set(std::uint64_t data_seed, std::int64_t n, std::int64_t chunk, S* host_targets) {
  s_->core.make_test_set(data_seed, n, chunk);
  if (host_targets != nullptr) s_->ex.download(host_targets, s_->core.test_targets(), static_cast<std::int64_t>(s_->teacher.d_out) * n);
}

template <class S>
void MoeDeviceTrainer<S>::reserve_losses(std::int64_t steps) {
  s_->core.reserve_losses(steps);
}

template <class S>
void MoeDeviceTrainer<S>::step(std::uint64_t data_seed, std::int64_t step, std::int64_t batch, const moe::hd::AdamWScalars<S>& a) {
  s_->core.step(data_seed, step, batch, a);
}

template <class S>
void MoeDeviceTrainer<S>::download_losses(double* host, std::int64_t first, std::int64_t count) {
  s_->ex.download(host, s_->core.losses() + first, count);
}

template <class S>
void MoeDeviceTrainer<S>::download_student(S* params, S* m, S* v) {
  const std::int64_t P = s_->student.total;
  if (params) s_->ex.download(params, s_->core.student_params(), P);
  if (m) s_->ex.download(m, s_->core.adam_m(), P);
  if (v) s_->ex.download(v, s_->core.adam_v(), P);
}

template <class S>
void MoeDeviceTrainer<S>::download_gradient(S* grad) {
  s_->ex.download(grad, s_->core.last_gradient(), s_->student.total);
}

template <class S>
double MoeDeviceTrainer<S>::test_mse() {
  return s_->core.test_mse();
}

template <class S>
void MoeDeviceTrainer<S>::synchronize() {
  check(cudaStreamSynchronize(s_->ex.stream()), "cudaStreamSynchronize (MoE trainer)");
}

template <class S>
struct EnsembleDevice<S>::State {
  State(const std::vector<moe::hd::EnsembleGroup>& g, const std::vector<moe::hd::EnsembleRun<S>>& r, std::int64_t batch, std::int64_t steps,
        std::int64_t train_size, bool tf32)
      : ex(tf32), core(ex, g, r, batch, steps, train_size) {}
  DeviceExec ex;
  moe::hd::DenseEnsembleCore<S, DeviceExec> core;
  RecordedGraph step_graph;
  std::int64_t at = 0;  // the step the device is at (host copy of the core's counter)
};

/// Refuses, before any allocation, an ensemble whose buffers would not fit in the device's free memory.
template <class S>
void check_device_memory(const std::vector<moe::hd::EnsembleGroup>& groups, const std::vector<moe::hd::EnsembleRun<S>>& runs, std::int64_t batch,
                         std::int64_t steps, std::int64_t train_size) {
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const double need = moe::hd::dense_ensemble_bytes<S>(groups, runs, batch, steps, train_size) + double(std::size_t{64} << 20);  // + workspaces
  if (need > 0.95 * static_cast<double>(free_bytes))
    throw std::runtime_error("moelab::cuda: the MoE ensemble of " + std::to_string(runs.size()) + " runs needs about " +
                             std::to_string(static_cast<long long>(need / 1e6)) + " MB of device memory; " +
                             std::to_string(static_cast<long long>(free_bytes / 1000000)) +
                             " MB are free. Run fewer sweep points at once (split the sweep, or fewer seeds or learning rates).");
}

template <class S>
EnsembleDevice<S>::EnsembleDevice(const std::vector<moe::hd::EnsembleGroup>& groups, const std::vector<moe::hd::EnsembleRun<S>>& runs,
                                  std::int64_t batch, std::int64_t steps, std::int64_t train_size, bool tf32) {
  check_device_memory<S>(groups, runs, batch, steps, train_size);
  s_ = std::make_unique<State>(groups, runs, batch, steps, train_size, tf32);
}

template <class S>
EnsembleDevice<S>::~EnsembleDevice() = default;

template <class S>
void EnsembleDevice<S>::upload_teacher(int group, const S* packed) {
  s_->ex.upload(s_->core.teacher_params(group), packed, s_->core.teacher_dims(group).total);
}

template <class S>
void EnsembleDevice<S>::make_training_set() {
  s_->core.make_training_set();
}

template <class S>
void EnsembleDevice<S>::upload_student(int run, const S* packed, const S* m, const S* v) {
  const std::int64_t P = s_->core.student_dims(run).total;
  s_->ex.upload(s_->core.student_params(run), packed, P);
  if (m) s_->ex.upload(s_->core.adam_m(run), m, P);
  else s_->ex.zero(s_->core.adam_m(run), P);
  if (v) s_->ex.upload(s_->core.adam_v(run), v, P);
  else s_->ex.zero(s_->core.adam_v(run), P);
}

template <class S>
void EnsembleDevice<S>::download_student(int run, S* packed, S* m, S* v) {
  const std::int64_t P = s_->core.student_dims(run).total;
  if (packed) s_->ex.download(packed, s_->core.student_params(run), P);
  if (m) s_->ex.download(m, s_->core.adam_m(run), P);
  if (v) s_->ex.download(v, s_->core.adam_v(run), P);
}

template <class S>
void EnsembleDevice<S>::download_gradient(int run, S* packed) {
  s_->ex.download(packed, s_->core.gradient(run), s_->core.student_dims(run).total);
}

template <class S>
void EnsembleDevice<S>::set_step(std::int64_t step) {
  s_->core.set_step(step);
  s_->at = step;
}

template <class S>
void EnsembleDevice<S>::set_epoch_order(const std::vector<int>& order) {
  synchronize();  // the queued steps read the previous epoch's order
  s_->core.set_epoch_order(order);
}

template <class S>
void EnsembleDevice<S>::run_steps(std::int64_t from, std::int64_t to) {
  if (from != s_->at) throw std::invalid_argument("moelab::cuda: ensemble: run_steps from a step the device is not at");
  if (to > s_->core.steps()) throw std::invalid_argument("moelab::cuda: ensemble: past the last step");
  if (from >= to) return;
  if (!s_->step_graph.recorded()) s_->step_graph.record(s_->ex.stream(), [&] { s_->core.step(); });
  for (std::int64_t t = from; t < to; ++t) s_->step_graph.launch(s_->ex.stream());
  s_->at = to;
}

template <class S>
void EnsembleDevice<S>::download_losses(int run, double* host, std::int64_t first, std::int64_t count) {
  s_->ex.download(host, s_->core.losses(run) + first, count);
}

template <class S>
std::vector<double> EnsembleDevice<S>::test_mse(std::int64_t test_size) {
  return s_->core.test_mse(test_size);
}

template <class S>
std::vector<double> EnsembleDevice<S>::teacher_energy(std::int64_t test_size) {
  return s_->core.teacher_energy(test_size);
}

template <class S>
void EnsembleDevice<S>::synchronize() {
  check(cudaStreamSynchronize(s_->ex.stream()), "cudaStreamSynchronize (MoE ensemble)");
}

template class EnsembleDevice<float>;
template class EnsembleDevice<double>;

template <class S>
double moe_device_loss_and_gradient(const moe::hd::LayerDims& L, const S* theta, const S* X, const S* T, const int* oracle, std::int64_t n,
                                    bool tf32, S* Y, S* grad) {
  DeviceExec ex(tf32);
  DeviceBuffer<S> dtheta(static_cast<std::size_t>(L.total)), dX(static_cast<std::size_t>(L.d * n)), dT(static_cast<std::size_t>(L.d_out * n)),
      dY(static_cast<std::size_t>(L.d_out * n)), ddY(static_cast<std::size_t>(L.d_out * n)), dgrad(static_cast<std::size_t>(L.total));
  DeviceBuffer<int> dor(static_cast<std::size_t>(n));
  DeviceBuffer<double> cols(static_cast<std::size_t>(n)), loss(1);
  ex.upload(dtheta.get(), theta, L.total);
  ex.upload(dX.get(), X, L.d * n);
  ex.upload(dT.get(), T, L.d_out * n);
  if (oracle) ex.upload(dor.get(), oracle, n);
  moe::hd::LayerRunner<S, DeviceExec> layer(ex, L);
  layer.forward(dtheta.get(), dX.get(), oracle ? dor.get() : nullptr, n, dY.get());
  moe::hd::mse_on<S>(ex, dY.get(), dT.get(), L.d_out, n, ddY.get(), cols.get(), loss.get());
  layer.backward(dtheta.get(), ddY.get(), dgrad.get());
  double h = 0.0;
  ex.download(&h, loss.get(), 1);
  ex.download(Y, dY.get(), L.d_out * n);
  ex.download(grad, dgrad.get(), L.total);
  return h;
}

template class MoeDeviceTrainer<float>;
template class MoeDeviceTrainer<double>;
template double moe_device_loss_and_gradient<float>(const moe::hd::LayerDims&, const float*, const float*, const float*, const int*,
                                                    std::int64_t, bool, float*, float*);
template double moe_device_loss_and_gradient<double>(const moe::hd::LayerDims&, const double*, const double*, const double*, const int*,
                                                     std::int64_t, bool, double*, double*);

// ---- the transformer block (transformer.cuh) ----

template <class S>
struct TransformerDevice<S>::State {
  State(const moe::hd::BlockDims& b, bool tf32) : ex(tf32), run(ex, b), B(b) {
    const auto P = static_cast<std::size_t>(B.total);
    theta.resize(P), m.resize(P), v.resize(P), grad.resize(P);
    scalar.resize(1);
  }
  DeviceExec ex;
  moe::hd::TransformerRunner<S, DeviceExec> run;
  moe::hd::BlockDims B;
  DeviceBuffer<S> theta, m, v, grad, X;
  DeviceBuffer<int> labels;
  DeviceBuffer<double> losses, scalar;

  void put_batch(const S* Xh, const int* lh, int T, std::int64_t n) {
    const std::int64_t x = static_cast<std::int64_t>(B.d) * T * n, l = n * B.out_heads;
    X.resize(static_cast<std::size_t>(x));
    labels.resize(static_cast<std::size_t>(l));
    ex.upload(X.get(), Xh, x);
    ex.upload(labels.get(), lh, l);
  }
};

template <class S>
TransformerDevice<S>::TransformerDevice(const moe::hd::BlockDims& B, bool tf32) : s_(std::make_unique<State>(B, tf32)) {}

template <class S>
TransformerDevice<S>::~TransformerDevice() = default;

template <class S>
void TransformerDevice<S>::upload(const S* params) {
  s_->ex.upload(s_->theta.get(), params, s_->B.total);
  s_->ex.zero(s_->m.get(), s_->B.total);
  s_->ex.zero(s_->v.get(), s_->B.total);
}

template <class S>
void TransformerDevice<S>::step(const S* X, const int* labels, int T, std::int64_t n, const moe::hd::AdamWScalars<S>& a, std::int64_t slot,
                                std::int64_t slots) {
  if (slot < 0 || slot >= slots) throw std::invalid_argument("moelab::cuda: TransformerDevice::step: loss slot out of range");
  // The upload (cudaMemcpy) waits for the previous step, which read the previous batch.
  s_->put_batch(X, labels, T, n);
  s_->losses.resize(static_cast<std::size_t>(slots));
  s_->run.step(s_->theta.get(), s_->m.get(), s_->v.get(), s_->grad.get(), s_->X.get(), s_->labels.get(), T, n, a, s_->losses.get() + slot);
}

template <class S>
void TransformerDevice<S>::download_losses(double* host, std::int64_t count) {
  s_->ex.download(host, s_->losses.get(), count);
}

template <class S>
double TransformerDevice<S>::evaluate(const S* X, const int* labels, int T, std::int64_t n, S* logits) {
  s_->put_batch(X, labels, T, n);
  s_->run.forward(s_->theta.get(), s_->X.get(), T, n);
  s_->run.loss(s_->labels.get(), false, s_->scalar.get());
  double loss = 0.0;
  s_->ex.download(&loss, s_->scalar.get(), 1);
  s_->ex.download(logits, s_->run.logits(), static_cast<std::int64_t>(s_->B.C()) * n);
  return loss;
}

template <class S>
void TransformerDevice<S>::download_params(S* params, S* grad) {
  s_->ex.download(params, s_->theta.get(), s_->B.total);
  if (grad) s_->ex.download(grad, s_->grad.get(), s_->B.total);
}

template <class S>
void TransformerDevice<S>::synchronize() {
  check(cudaStreamSynchronize(s_->ex.stream()), "cudaStreamSynchronize (transformer trainer)");
}

template class TransformerDevice<float>;
template class TransformerDevice<double>;

}  // namespace moelab::cuda
