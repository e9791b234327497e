// Batched random-matrix spectra on the device (W3): the CUDA sibling of the spectra
// ensembles' Sampler::entries path (spectra/ensembles.cpp). Per batch of trials, one stream:
//   1. matrix_kernel : one thread per Philox block (two consecutive column-major entries) of each
//                      trial's matrix, spectra::device::raw_entry_pair + entry_value (the CPU's
//                      addresses and order of operations, spectra/detail/matrix_draws_hd.hpp);
//   2. cuBLAS        : the smaller Gram matrix of each, G = Y Y' or Y' Y (n = min(M, N)):
//                      DgemmStridedBatched over the batch, DSYRK for a single matrix;
//   3. cuSOLVER      : eigenvalues only (jobz = NOVECTOR, lower triangle): DsyevjBatched (Jacobi)
//                      for n <= 32, else one XsyevBatched call or an Xsyevd loop (EigenMethod);
//                      every matrix's info checked.
// Status: compiled in every CUDA build; its host-side layout is emulated on the CPU
// (tests/spectra/spectra_device_test.cpp); run only where a device exists (tests/gpu/spectra_gpu_main.cpp).
#include "spectra_eigen.cuh"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cuda_status.cuh"
#include "device_memory.cuh"

#include "moelab/spectra/detail/matrix_draws_hd.hpp"

namespace moelab::cuda {

const char* eigen_method_name(EigenMethod m) {
  switch (m) {
    case EigenMethod::automatic: return "auto";
    case EigenMethod::jacobi_batched: return "syevjBatched";
    case EigenMethod::syev_batched: return "XsyevBatched";
    case EigenMethod::syevd_loop: return "Xsyevd-loop";
  }
  return "?";
}

namespace {

namespace dv = moelab::spectra::device;

constexpr int kThreads = 256;

/// Y of trials first .. first + T - 1 (M x N each, column-major, stride M N): one thread per Philox
/// block of a matrix, grid-stride over all (trial, block) pairs.
__global__ void matrix_kernel(dv::MatrixDraw d, std::uint64_t first_trial, int T, double* Y) {
  const std::uint64_t entries = static_cast<std::uint64_t>(d.M) * static_cast<std::uint64_t>(d.N);
  const std::uint64_t blocks = (entries + 1) / 2;
  const std::uint64_t total = blocks * static_cast<std::uint64_t>(T);
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t e = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const std::uint64_t t = e / blocks, blk = e % blocks;
    double x0, x1;
    dv::raw_entry_pair(d.law, d.seed, first_trial + t, blk, x0, x1);
    double* out = Y + t * entries;
    out[2 * blk] = dv::entry_value(d, 2 * blk, x0);
    if (2 * blk + 1 < entries) out[2 * blk + 1] = dv::entry_value(d, 2 * blk + 1, x1);
  }
}

int grid_for(std::uint64_t n) { return static_cast<int>(std::min<std::uint64_t>((n + kThreads - 1) / kThreads, 65535u * 8u)); }

void validate(const SpectraBatch& b) {
  if (b.M < 1 || b.N < 1 || b.trials < 0) throw std::invalid_argument("moelab::cuda spectra: need M, N >= 1 and trials >= 0");
  if (static_cast<std::uint64_t>(b.M) * static_cast<std::uint64_t>(b.N) > dv::kMaxMatrixEntries)
    throw std::invalid_argument("moelab::cuda spectra: M N above 2^33 would wrap the 32-bit Philox block counter");
  if (b.law < 0 || b.law > 2) throw std::invalid_argument("moelab::cuda spectra: unknown entry law");
  if (!(b.sigma2 > 0.0)) throw std::invalid_argument("moelab::cuda spectra: sigma2 must be positive");
  if (static_cast<int>(b.row_scale.size()) > b.M || static_cast<int>(b.signal_sv.size()) > std::min(b.M, b.N))
    throw std::invalid_argument("moelab::cuda spectra: more spikes / signal values than dimensions");
  if (b.method == EigenMethod::jacobi_batched && dv::gram_order(b.M, b.N) > 32)
    throw std::invalid_argument("moelab::cuda spectra: syevjBatched needs min(M, N) <= 32");
}

}  // namespace

struct SpectraDeviceContext::State {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  cusolverDnParams_t params = nullptr;
  syevjInfo_t jacobi = nullptr;
  DeviceBuffer<double> Y, G, W, work, row_scale, signal_sv;
  DeviceBuffer<int> info;
  std::vector<unsigned char> host_work;
  std::vector<int> host_info;
  void ensure_handles() {
    if (blas == nullptr) check_cublas(cublasCreate(&blas), "cublasCreate");
    if (solver == nullptr) check_cusolver(cusolverDnCreate(&solver), "cusolverDnCreate");
    if (params == nullptr) check_cusolver(cusolverDnCreateParams(&params), "cusolverDnCreateParams");
    if (jacobi == nullptr) {
      // Tolerance 0 = machine accuracy (cuSOLVER's default), at most 100 sweeps (its default).
      check_cusolver(cusolverDnCreateSyevjInfo(&jacobi), "cusolverDnCreateSyevjInfo");
    }
  }
  ~State() {
    if (jacobi) cusolverDnDestroySyevjInfo(jacobi);
    if (params) cusolverDnDestroyParams(params);
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
  }
};

SpectraDeviceContext::SpectraDeviceContext() : state_(std::make_unique<State>()) {}
SpectraDeviceContext::~SpectraDeviceContext() = default;

namespace {

/// Draws the matrices of trials first .. first + T - 1 into s.Y.
dv::MatrixDraw draw_batch(SpectraDeviceContext::State& s, const SpectraBatch& b, std::uint64_t first, int T) {
  dv::MatrixDraw d;
  d.M = b.M;
  d.N = b.N;
  d.law = static_cast<dv::Law>(b.law);
  d.seed = b.seed;
  d.scale = std::sqrt(b.sigma2 / b.N);
  if (!b.row_scale.empty()) {
    s.row_scale.upload(b.row_scale.data(), b.row_scale.size());
    d.row_scale = s.row_scale.get();
    d.row_scale_count = static_cast<int>(b.row_scale.size());
  }
  if (!b.signal_sv.empty()) {
    s.signal_sv.upload(b.signal_sv.data(), b.signal_sv.size());
    d.signal_sv = s.signal_sv.get();
    d.signal_count = static_cast<int>(b.signal_sv.size());
  }
  const std::uint64_t entries = static_cast<std::uint64_t>(b.M) * static_cast<std::uint64_t>(b.N);
  s.Y.resize(entries * static_cast<std::uint64_t>(T));
  matrix_kernel<<<grid_for((entries + 1) / 2 * static_cast<std::uint64_t>(T)), kThreads>>>(d, first, T, s.Y.get());
  after_launch("matrix_kernel");
  return d;
}

constexpr double kBatchBytes = 1024.0 * 1024.0 * 1024.0;  // about 1 GiB of matrices per batch

}  // namespace

void matrices_to_host(SpectraDeviceContext& ctx, const SpectraBatch& b, double* host_out) {
  validate(b);
  if (b.trials == 0) return;
  auto& s = ctx.state();
  const std::uint64_t entries = static_cast<std::uint64_t>(b.M) * static_cast<std::uint64_t>(b.N);
  const int per = dv::trials_per_batch(b.M, b.N, b.trials, kBatchBytes);
  for (int done = 0; done < b.trials;) {
    const int T = std::min(per, b.trials - done);
    draw_batch(s, b, b.first_trial + static_cast<std::uint64_t>(done), T);
    check(cudaMemcpy(host_out + static_cast<std::uint64_t>(done) * entries, s.Y.get(), entries * T * sizeof(double), cudaMemcpyDeviceToHost),
          "cudaMemcpy matrices");
    done += T;
  }
}

void gram_eigenvalues_batched(SpectraDeviceContext& ctx, const SpectraBatch& b, double* host_out) {
  validate(b);
  if (b.trials == 0) return;
  auto& s = ctx.state();
  s.ensure_handles();
  const int M = b.M, N = b.N, n = dv::gram_order(M, N);
  const bool rows = M <= N;  // G = Y Y' (M x M) or Y' Y (N x N)
  const int inner = rows ? N : M;
  EigenMethod method = b.method;
  if (method == EigenMethod::automatic) method = n <= 32 ? EigenMethod::jacobi_batched : EigenMethod::syevd_loop;
  const int per = dv::trials_per_batch(M, N, b.trials, kBatchBytes);
  const std::uint64_t nn = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  const std::uint64_t entries = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N);
  for (int done = 0; done < b.trials;) {
    const int T = std::min(per, b.trials - done);
    draw_batch(s, b, b.first_trial + static_cast<std::uint64_t>(done), T);
    s.G.resize(nn * static_cast<std::uint64_t>(T));
    s.W.resize(static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(T));
    s.info.resize(static_cast<std::size_t>(T));
    const double one = 1.0, zero = 0.0;
    const cublasOperation_t opA = rows ? CUBLAS_OP_N : CUBLAS_OP_T, opB = rows ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (T == 1) {
      // Lower triangle of G = Y Y' (uplo lower, trans N) or Y' Y (trans T), Y with leading dimension M.
      check_cublas(cublasDsyrk(s.blas, CUBLAS_FILL_MODE_LOWER, rows ? CUBLAS_OP_N : CUBLAS_OP_T, n, inner, &one, s.Y.get(), M, &zero,
                             s.G.get(), n),
                 "cublasDsyrk (Gram matrix)");
    } else {
      check_cublas(cublasDgemmStridedBatched(s.blas, opA, opB, n, n, inner, &one, s.Y.get(), M, static_cast<long long>(entries), s.Y.get(), M,
                                           static_cast<long long>(entries), &zero, s.G.get(), n, static_cast<long long>(nn), T),
                 "cublasDgemmStridedBatched (Gram matrices)");
    }
    if (method == EigenMethod::jacobi_batched) {
      int lwork = 0;
      check_cusolver(cusolverDnDsyevjBatched_bufferSize(s.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, s.G.get(), n,
                                                      s.W.get(), &lwork, s.jacobi, T),
                   "cusolverDnDsyevjBatched_bufferSize");
      s.work.resize(static_cast<std::size_t>(std::max(lwork, 1)));
      check_cusolver(cusolverDnDsyevjBatched(s.solver, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, s.G.get(), n, s.W.get(),
                                           s.work.get(), lwork, s.info.get(), s.jacobi, T),
                   "cusolverDnDsyevjBatched");
    } else if (method == EigenMethod::syev_batched) {
      std::size_t dev_bytes = 0, host_bytes = 0;
      check_cusolver(cusolverDnXsyevBatched_bufferSize(s.solver, s.params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                                                     s.G.get(), n, CUDA_R_64F, s.W.get(), CUDA_R_64F, &dev_bytes, &host_bytes, T),
                   "cusolverDnXsyevBatched_bufferSize");
      s.work.resize(dev_bytes / sizeof(double) + 1);
      s.host_work.resize(host_bytes + 1);
      check_cusolver(cusolverDnXsyevBatched(s.solver, s.params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, s.G.get(), n,
                                          CUDA_R_64F, s.W.get(), CUDA_R_64F, s.work.get(), dev_bytes, s.host_work.data(), host_bytes,
                                          s.info.get(), T),
                   "cusolverDnXsyevBatched");
    } else {
      std::size_t dev_bytes = 0, host_bytes = 0;
      check_cusolver(cusolverDnXsyevd_bufferSize(s.solver, s.params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                                               s.G.get(), n, CUDA_R_64F, s.W.get(), CUDA_R_64F, &dev_bytes, &host_bytes),
                   "cusolverDnXsyevd_bufferSize");
      s.work.resize(dev_bytes / sizeof(double) + 1);
      s.host_work.resize(host_bytes + 1);
      for (int t = 0; t < T; ++t)
        check_cusolver(cusolverDnXsyevd(s.solver, s.params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                                      s.G.get() + static_cast<std::uint64_t>(t) * nn, n, CUDA_R_64F,
                                      s.W.get() + static_cast<std::uint64_t>(t) * n, CUDA_R_64F, s.work.get(), dev_bytes,
                                      s.host_work.data(), host_bytes, s.info.get() + t),
                     "cusolverDnXsyevd");
    }
    // The copies synchronise: a fault in the batch's kernel, GEMM or solver surfaces here at the latest.
    check(cudaDeviceSynchronize(), "spectra batch (matrix_kernel / cuBLAS Gram / cuSOLVER eigenvalues)");
    s.host_info.resize(static_cast<std::size_t>(T));
    check(cudaMemcpy(s.host_info.data(), s.info.get(), sizeof(int) * static_cast<std::size_t>(T), cudaMemcpyDeviceToHost), "cudaMemcpy info");
    for (int t = 0; t < T; ++t)
      if (s.host_info[static_cast<std::size_t>(t)] != 0)
        throw std::runtime_error(std::string("moelab::cuda spectra: ") + eigen_method_name(method) + " info = " +
                                 std::to_string(s.host_info[static_cast<std::size_t>(t)]) + " for trial " +
                                 std::to_string(b.first_trial + static_cast<std::uint64_t>(done + t)) +
                                 " (not converged or an invalid argument)");
    check(cudaMemcpy(host_out + static_cast<std::uint64_t>(done) * n, s.W.get(), sizeof(double) * static_cast<std::uint64_t>(n) * T,
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy eigenvalues");
    done += T;
  }
}

}  // namespace moelab::cuda
