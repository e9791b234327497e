// The noisy Fig. 3 sweep on the device (noisy, Sec. 4.5 / A.6: excess risk of the min-norm dense and
// per-expert estimators against n): the CUDA sibling of noisy::excess_trial over batches of trials.
// The steps are listed in noisy_excess.cuh. Per-element arithmetic: noisy/detail/sample_hd.hpp
// (MOELAB_HD, shared with the CPU emulation test); the batch plan: noisy/detail/excess_plan.hpp.
// Status: compiled in every CUDA build; run only where a device exists (tests/gpu/noisy_gpu_main.cpp).
#include "noisy_excess.cuh"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_status.cuh"
#include "device_memory.cuh"

#include "moelab/noisy/detail/excess_plan.hpp"
#include "moelab/noisy/detail/sample_hd.hpp"

namespace moelab::cuda {

namespace {

constexpr int kThreads = 256;

int blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(b, 65535u * 8u)));
}

__device__ std::uint64_t thread_index() { return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ std::uint64_t grid_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

/// Step 1: one thread per (trial, column pair b, row r), rows fastest (coalesced writes): the noise
/// of columns 2b, 2b + 1 of X and, for b < column_pairs(dmax), the signal draws of the row's block.
__global__ void design_kernel(std::uint64_t seed, std::uint64_t first, std::int64_t trials, int n, int d, int dmax, double scale,
                              const int* row_expert, const int* offset, const int* size, double* X, double* G) {
  const int pairs = noisy::hd::column_pairs(d), signal_pairs = noisy::hd::column_pairs(dmax);
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * d, ndmax = static_cast<std::uint64_t>(n) * dmax;
  const std::uint64_t total = static_cast<std::uint64_t>(trials) * n * pairs;
  for (std::uint64_t i = thread_index(); i < total; i += grid_stride()) {
    const int r = static_cast<int>(i % n);
    const std::uint64_t q = i / n;
    const int b = static_cast<int>(q % pairs);
    const std::uint64_t t = q / pairs;
    const RandomStream noise(seed, StreamTag::design_noise, first + t);
    noisy::hd::noise_step(noise, n, d, scale, r, b, X + t * nd);
    if (b < signal_pairs) {
      const RandomStream signal(seed, StreamTag::design_signal, first + t);
      noisy::hd::signal_draw_step(signal, n, d, row_expert + t * n, offset, size, r, b, G + t * ndmax);
    }
  }
}

/// Step 2: one thread per (trial, block coordinate a, row r): X += L_e g on block e, and y (a = 0).
__global__ void signal_kernel(std::int64_t trials, int n, int d, int dmax, const int* row_expert, const int* offset, const int* size,
                              const double* chol, const std::uint64_t* block_offset, const double* w, const double* G, double* X,
                              double* y) {
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * d, ndmax = static_cast<std::uint64_t>(n) * dmax;
  const std::uint64_t total = static_cast<std::uint64_t>(trials) * n * dmax;
  for (std::uint64_t i = thread_index(); i < total; i += grid_stride()) {
    const int r = static_cast<int>(i % n);
    const std::uint64_t q = i / n;
    const int a = static_cast<int>(q % dmax);
    const std::uint64_t t = q / dmax;
    noisy::hd::signal_add_step(n, row_expert + t * n, offset, size, chol, block_offset, G + t * ndmax, r, a, X + t * nd);
    if (a == 0) y[t * n + r] = noisy::hd::response_step(n, row_expert + t * n, offset, size, w, G + t * ndmax, r);
  }
}

/// dst[i][0 .. len) = src[i][0 .. len) for `count` problems (the X X' right-hand sides: potrs overwrites).
__global__ void copy_vectors_kernel(const double* const* src, double* const* dst, int len, int count) {
  const std::uint64_t total = static_cast<std::uint64_t>(count) * len;
  for (std::uint64_t i = thread_index(); i < total; i += grid_stride()) dst[i / len][i % len] = src[i / len][i % len];
}

/// Smallest and largest diagonal entry of each m x m factor (the fallback rule's inputs).
__global__ void diagonal_kernel(double* const* L, int m, int count, double* lo, double* hi) {
  for (std::uint64_t i = thread_index(); i < static_cast<std::uint64_t>(count); i += grid_stride())
    noisy::hd::diagonal_range(L[i], m, lo[i], hi[i]);
}

/// Step 6: one thread per (trial, block e): the dense and sparse excess-risk terms of block e.
__global__ void risk_kernel(std::int64_t trials, int k, int d, const int* offset, const int* size, const double* sigma,
                            const std::uint64_t* block_offset, const double* beta_dense, const double* beta_sparse,
                            const double* bayes_dense, const double* bayes_sparse, double* terms) {
  const std::uint64_t total = static_cast<std::uint64_t>(trials) * k;
  for (std::uint64_t i = thread_index(); i < total; i += grid_stride()) {
    const int e = static_cast<int>(i % k);
    const std::uint64_t t = i / k;
    const double* S = sigma + block_offset[e];
    const std::uint64_t o = t * d + offset[e];
    noisy::hd::block_excess_terms(S, size[e], beta_dense + o, bayes_dense + offset[e], terms[4 * i + 0], terms[4 * i + 1]);
    noisy::hd::block_excess_terms(S, size[e], beta_sparse + o, bayes_sparse + offset[e], terms[4 * i + 2], terms[4 * i + 3]);
  }
}

}  // namespace

struct NoisyDeviceContext::State {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  DeviceBuffer<int> offset, size, row_expert, info;
  DeviceBuffer<std::uint64_t> block_offset;
  DeviceBuffer<double> chol, sigma, w, bayes_dense, bayes_sparse;
  DeviceBuffer<double> X, G, y, beta_dense, beta_sparse, gram, z, terms, lo, hi;
  DeviceBuffer<double*> ptrs;
  DeviceBuffer<int> potrs_info;

  ~State() {
    if (solver != nullptr) cusolverDnDestroy(solver);
    if (blas != nullptr) cublasDestroy(blas);
  }
  cublasHandle_t cublas() {
    if (blas == nullptr) check_cublas(cublasCreate(&blas), "cublasCreate");
    return blas;
  }
  cusolverDnHandle_t cusolver() {
    if (solver == nullptr) check_cusolver(cusolverDnCreate(&solver), "cusolverDnCreate");
    return solver;
  }
};

NoisyDeviceContext::NoisyDeviceContext(double budget_bytes) : state_(std::make_unique<State>()), budget_(budget_bytes) {}
NoisyDeviceContext::~NoisyDeviceContext() = default;

void noisy_device_warmup(NoisyDeviceContext& ctx) {
  check(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
  ctx.state().cublas();
  ctx.state().cusolver();
  check(cudaDeviceSynchronize(), "warm-up synchronisation");
}

namespace {

void validate(const NoisyModelView& m, int n) {
  if (m.k < 1 || m.d < 1 || m.offset == nullptr || m.size == nullptr || m.block_offset == nullptr || m.chol == nullptr ||
      m.sigma == nullptr || m.w == nullptr || m.bayes_dense == nullptr || m.bayes_sparse == nullptr || m.p == nullptr)
    throw std::invalid_argument("moelab::cuda noisy: incomplete model view");
  if (n < 1) throw std::invalid_argument("moelab::cuda noisy: n must be positive");
  // sample_hd.hpp: the 32-bit Philox block counter of a trial's streams covers normals < 2^33.
  if (static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(m.d) >= (std::uint64_t{1} << 33))
    throw std::invalid_argument("moelab::cuda noisy: n d = " + std::to_string(static_cast<std::uint64_t>(n) * m.d) +
                                " >= 2^33 (the 32-bit Philox block counter of a trial's stream would wrap)");
}

void upload_model(NoisyDeviceContext::State& s, const NoisyModelView& m) {
  const auto k = static_cast<std::size_t>(m.k), d = static_cast<std::size_t>(m.d);
  const std::size_t blocks = static_cast<std::size_t>(m.block_offset[k]);
  s.offset.upload(m.offset, k);
  s.size.upload(m.size, k);
  s.block_offset.upload(m.block_offset, k + 1);
  s.chol.upload(m.chol, blocks);
  s.sigma.upload(m.sigma, blocks);
  s.w.upload(m.w, d);
  s.bayes_dense.upload(m.bayes_dense, d);
  s.bayes_sparse.upload(m.bayes_sparse, d);
}

std::int64_t batch_trials(const NoisyDeviceContext& ctx, const NoisyModelView& m, int n, std::int64_t trials) {
  const double per = noisy::plan::bytes_per_trial(n, m.d, m.k, m.size);
  const double b = std::floor(ctx.budget_bytes() / per);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(trials, b >= 1e15 ? trials : static_cast<std::int64_t>(b)));
}

/// Steps 1-2 for the B trials of `plan` (first trial `first`): X, G, y of the batch.
void draw_designs(NoisyDeviceContext::State& s, const NoisyModelView& m, const noisy::plan::BatchPlan& plan, std::uint64_t seed,
                  std::uint64_t first) {
  const std::int64_t B = plan.trials;
  const int n = plan.n, d = m.d;
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * d;
  s.row_expert.upload(plan.row_expert.data(), plan.row_expert.size());
  s.X.resize(static_cast<std::size_t>(B) * nd);
  s.G.resize(static_cast<std::size_t>(B) * n * m.dmax);
  s.y.resize(static_cast<std::size_t>(B) * n);
  const std::uint64_t design_threads = static_cast<std::uint64_t>(B) * n * noisy::hd::column_pairs(d);
  design_kernel<<<blocks_for(design_threads), kThreads>>>(seed, first, B, n, d, m.dmax, std::sqrt(m.sigma2), s.row_expert.get(),
                                                         s.offset.get(), s.size.get(), s.X.get(), s.G.get());
  after_launch("design_kernel (noise and signal normals)");
  const std::uint64_t signal_threads = static_cast<std::uint64_t>(B) * n * m.dmax;
  signal_kernel<<<blocks_for(signal_threads), kThreads>>>(B, n, d, m.dmax, s.row_expert.get(), s.offset.get(), s.size.get(),
                                                         s.chol.get(), s.block_offset.get(), s.w.get(), s.G.get(), s.X.get(),
                                                         s.y.get());
  after_launch("signal_kernel (x = L g, y = g' L' beta)");
}

std::vector<int> batch_counts(const int* counts, int k, std::int64_t begin, std::int64_t B) {
  return std::vector<int>(counts + static_cast<std::size_t>(begin) * k, counts + static_cast<std::size_t>(begin + B) * k);
}

}  // namespace

void noisy_designs_to_host(NoisyDeviceContext& ctx, const NoisyModelView& m, int n, const int* counts, std::uint64_t seed,
                           std::uint64_t first, std::int64_t trials, double* X, double* y) {
  validate(m, n);
  auto& s = ctx.state();
  upload_model(s, m);
  const std::int64_t batch = batch_trials(ctx, m, n, trials);
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * m.d;
  for (std::int64_t begin = 0; begin < trials; begin += batch) {
    const std::int64_t B = std::min(batch, trials - begin);
    const auto c = batch_counts(counts, m.k, begin, B);
    const auto plan = noisy::plan::plan_batch(n, m.d, m.k, m.offset, m.size, c.data(), B);
    draw_designs(s, m, plan, seed, first + static_cast<std::uint64_t>(begin));
    check(cudaMemcpy(X + static_cast<std::size_t>(begin) * nd, s.X.get(), static_cast<std::size_t>(B) * nd * sizeof(double),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy X device->host (design kernels)");
    check(cudaMemcpy(y + static_cast<std::size_t>(begin) * n, s.y.get(), static_cast<std::size_t>(B) * n * sizeof(double),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy y device->host");
  }
}

void noisy_excess_trials(NoisyDeviceContext& ctx, const NoisyModelView& m, int n, const int* counts, std::uint64_t seed,
                         std::uint64_t first, std::int64_t trials, double rcond_fallback, MinNormFallback fallback,
                         void* fallback_ctx, NoisyExcessRow* out, void (*on_batch)(std::int64_t, void*), void* on_batch_ctx) {
  validate(m, n);
  if (fallback == nullptr || out == nullptr) throw std::invalid_argument("moelab::cuda noisy: null fallback or output");
  auto& s = ctx.state();
  upload_model(s, m);
  cublasHandle_t blas = s.cublas();
  cusolverDnHandle_t solver = s.cusolver();
  const std::int64_t batch = batch_trials(ctx, m, n, trials);
  const int d = m.d, k = m.k;
  const double one = 1.0, zero = 0.0;
  std::vector<double> host_X, host_y, host_beta, terms;
  std::vector<int> info;
  std::vector<double> lo, hi;
  for (std::int64_t begin = 0; begin < trials; begin += batch) {
    const std::int64_t B = std::min(batch, trials - begin);
    const auto c = batch_counts(counts, k, begin, B);
    const auto plan = noisy::plan::plan_batch(n, d, k, m.offset, m.size, c.data(), B);
    draw_designs(s, m, plan, seed, first + static_cast<std::uint64_t>(begin));

    // Per problem, in group order: its Gram matrix and (X X' problems) right-hand side.
    const std::size_t P = plan.problems.size();
    std::vector<std::size_t> order;  // group order -> problem index
    std::vector<std::uint64_t> gram_off(P), z_off(P);
    std::uint64_t gram_total = 0, z_total = 0;
    for (const auto& g : plan.groups)
      for (std::size_t pi : g.problems) {
        const auto& pr = plan.problems[pi];
        gram_off[order.size()] = gram_total, z_off[order.size()] = z_total;
        gram_total += static_cast<std::uint64_t>(pr.gram()) * pr.gram();
        if (!pr.over()) z_total += static_cast<std::uint64_t>(pr.rows);
        order.push_back(pi);
      }
    s.gram.resize(gram_total);
    s.z.resize(z_total);
    s.beta_dense.resize(static_cast<std::size_t>(B) * d);
    s.beta_sparse.resize(static_cast<std::size_t>(B) * d);
    check(cudaMemset(s.beta_sparse.get(), 0, static_cast<std::size_t>(B) * d * sizeof(double)), "cudaMemset beta_sparse");
    // Five pointer arrays of P entries: X, y, Gram, right-hand side (beta slot or z), beta slot.
    std::vector<double*> ptr(5 * P);
    for (std::size_t i = 0; i < P; ++i) {
      const auto& pr = plan.problems[order[i]];
      double* beta = (pr.expert < 0 ? s.beta_dense.get() : s.beta_sparse.get()) + pr.beta_offset;
      ptr[i] = s.X.get() + pr.x_offset;
      ptr[P + i] = s.y.get() + pr.y_offset;
      ptr[2 * P + i] = s.gram.get() + gram_off[i];
      ptr[3 * P + i] = pr.over() ? beta : s.z.get() + z_off[i];
      ptr[4 * P + i] = beta;
    }
    s.ptrs.upload(ptr.data(), ptr.size());
    s.info.resize(P);
    s.lo.resize(P);
    s.hi.resize(P);
    s.potrs_info.resize(1);
    double** dX = s.ptrs.get();
    double** dY = dX + P;
    double** dG = dX + 2 * P;
    double** dR = dX + 3 * P;
    double** dB = dX + 4 * P;

    std::size_t at = 0;
    for (const auto& g : plan.groups) {
      const int len = static_cast<int>(g.problems.size());
      const auto i0 = at;
      at += g.problems.size();
      const int rows = g.rows, cols = g.cols;
      const bool over = rows >= cols;
      const int mm = over ? cols : rows;
      // Gram: X'X (cols x cols) or X X' (rows x rows); X has leading dimension n inside the design.
      const cublasOperation_t ta = over ? CUBLAS_OP_T : CUBLAS_OP_N, tb = over ? CUBLAS_OP_N : CUBLAS_OP_T;
      const int inner = over ? rows : cols;
      if (g.dense) {
        // The dense problems of consecutive trials: X strided by n d, Gram matrices by mm^2.
        check_cublas(cublasDgemmStridedBatched(blas, ta, tb, mm, mm, inner, &one, ptr[i0], n,
                                               static_cast<long long>(n) * d, ptr[i0], n, static_cast<long long>(n) * d, &zero,
                                               ptr[2 * P + i0], mm, static_cast<long long>(mm) * mm, len),
                     "cublasDgemmStridedBatched (dense Gram)");
      } else {
        check_cublas(cublasDgemmBatched(blas, ta, tb, mm, mm, inner, &one, dX + i0, n, dX + i0, n, &zero, dG + i0, mm, len),
                     "cublasDgemmBatched (per-expert Gram)");
      }
      check_cusolver(cusolverDnDpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, mm, dG + i0, mm, s.info.get() + i0, len),
                     "cusolverDnDpotrfBatched");
      diagonal_kernel<<<blocks_for(static_cast<std::uint64_t>(len)), kThreads>>>(dG + i0, mm, len, s.lo.get() + i0, s.hi.get() + i0);
      after_launch("diagonal_kernel");
      if (over) {
        // beta = X' y, then (X'X)^-1 in place: the over-determined solution (linalg/min_norm.cpp).
        check_cublas(cublasDgemmBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, 1, rows, &one, dX + i0, n, dY + i0, rows, &zero, dB + i0,
                                        cols, len),
                     "cublasDgemmBatched (X' y)");
      } else {
        copy_vectors_kernel<<<blocks_for(static_cast<std::uint64_t>(len) * rows), kThreads>>>(dY + i0, dR + i0, rows, len);
        after_launch("copy_vectors_kernel (right-hand sides)");
      }
      check_cusolver(cusolverDnDpotrsBatched(solver, CUBLAS_FILL_MODE_LOWER, mm, 1, dG + i0, mm, dR + i0, mm, s.potrs_info.get(), len),
                     "cusolverDnDpotrsBatched");
      if (!over) {
        // beta = X' z, z = (X X')^-1 y: the minimum-norm interpolant.
        check_cublas(cublasDgemmBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, 1, rows, &one, dX + i0, n, dR + i0, rows, &zero, dB + i0,
                                        cols, len),
                     "cublasDgemmBatched (X' z)");
      }
    }
    info.resize(P), lo.resize(P), hi.resize(P);
    check(cudaMemcpy(info.data(), s.info.get(), P * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy potrf info (solve steps)");
    check(cudaMemcpy(lo.data(), s.lo.get(), P * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy factor diagonal");
    check(cudaMemcpy(hi.data(), s.hi.get(), P * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy factor diagonal");

    // Step 5: the CPU's orthogonal fallback where the Cholesky rule rejects a factor.
    for (std::int64_t t = 0; t < B; ++t) out[begin + t] = NoisyExcessRow{};
    for (std::size_t i = 0; i < P; ++i) {
      if (noisy::hd::cholesky_usable(info[i], lo[i], hi[i], rcond_fallback)) continue;
      const auto& pr = plan.problems[order[i]];
      host_X.resize(static_cast<std::size_t>(pr.rows) * pr.cols);
      host_y.resize(static_cast<std::size_t>(pr.rows));
      host_beta.assign(static_cast<std::size_t>(pr.cols), 0.0);
      check(cudaMemcpy2D(host_X.data(), static_cast<std::size_t>(pr.rows) * sizeof(double), ptr[i], static_cast<std::size_t>(n) * sizeof(double),
                         static_cast<std::size_t>(pr.rows) * sizeof(double), static_cast<std::size_t>(pr.cols), cudaMemcpyDeviceToHost),
            "cudaMemcpy2D X (fallback)");
      check(cudaMemcpy(host_y.data(), ptr[P + i], host_y.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy y (fallback)");
      fallback(host_X.data(), pr.rows, pr.cols, host_y.data(), host_beta.data(), fallback_ctx);
      check(cudaMemcpy(ptr[4 * P + i], host_beta.data(), host_beta.size() * sizeof(double), cudaMemcpyHostToDevice),
            "cudaMemcpy beta (fallback)");
      auto& row = out[begin + pr.trial];
      if (pr.expert < 0)
        row.dense_fallback = 1;
      else
        ++row.sparse_fallbacks;
    }

    // Step 6: excess risks.
    s.terms.resize(static_cast<std::size_t>(B) * k * 4);
    risk_kernel<<<blocks_for(static_cast<std::uint64_t>(B) * k), kThreads>>>(B, k, d, s.offset.get(), s.size.get(), s.sigma.get(),
                                                                            s.block_offset.get(), s.beta_dense.get(), s.beta_sparse.get(),
                                                                            s.bayes_dense.get(), s.bayes_sparse.get(), s.terms.get());
    after_launch("risk_kernel");
    terms.resize(static_cast<std::size_t>(B) * k * 4);
    check(cudaMemcpy(terms.data(), s.terms.get(), terms.size() * sizeof(double), cudaMemcpyDeviceToHost),
          "cudaMemcpy risk terms (risk_kernel)");
    for (std::int64_t t = 0; t < B; ++t)
      noisy::hd::combine_excess(k, m.p, m.sigma2, terms.data() + static_cast<std::size_t>(t) * k * 4, out[begin + t].dense,
                                out[begin + t].sparse);
    if (on_batch) on_batch(begin + B, on_batch_ctx);
  }
}

}  // namespace moelab::cuda
