// Region-mass Monte-Carlo on the device (granularity paper, Eq. 2.1, Lemma 3.2): the CUDA sibling of
// routing::Router::count. Per batch of B points, all on one stream with no host synchronisation on
// the dense path:
//   1. points_kernel   : raw Philox normals at the CPU's addresses (routing/point_routing.hpp),
//                        written transposed (B x dim, column-major) so that consecutive threads touch
//                        consecutive addresses. No scaling: a point's region depends on its scores
//                        only through their order, and N(0, I/d) (x = g / sqrt(d)) and Unif[B_d]
//                        (x = g U^(1/d) / |g|) are positive multiples of the same raw normals g, so
//                        both laws give the raw normals' ranks (the pass that scaled them could not
//                        change a rank and was dropped; tests/routing/point_routing_test.cpp
//                        checks on the CPU reference that ball and Gaussian ranks agree point by point);
//   2. cuBLAS          : scores St = Pt R' (DGEMM) or Zt L' (DTRMM, projected path), B x m;
//   3. top_k_kernel<K> : one thread per point, routing::top_k_rank_fixed<K> (K = top_k_capacity(k),
//                        work arrays in registers), reading its scores with stride B (coalesced
//                        across the warp); dense histograms are counted right there with 64-bit
//                        atomics (the fused step);
//   4. hashed regions  : the ranks of a whole chunk of batches (up to half the free device memory)
//                        radix-sorted and run-length encoded by CUB once per chunk; the chunks' runs
//                        merged on the host by routing::RunMerger (point_routing.hpp) when there are
//                        several, and handed over as sorted runs (RegionHistogram::from_sorted_runs).
// The cuBLAS handle and every buffer live in a RoutingDeviceContext that the caller keeps across
// draws (routing::make_region_mass_sampler(Backend::cuda) holds one per sampler): a study point's
// draws allocate once, not once per draw.
// Errors: every launch is checked (cudaGetLastError); with MOELAB_CUDA_SYNC=1 in the environment, or
// in a build without NDEBUG, every launch is also synchronised so that a fault is reported under the
// kernel that caused it; otherwise the dense path synchronises once, named, before its histogram copy.
// Status: compiled and linked in every CUDA build; exercised only where a device exists
// (tests/gpu/routing_gpu_main.cpp). See docs/gpu.md for what has and has not been run on hardware.
#include "routing_masses.cuh"

#include <cublas_v2.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cuda_status.cuh"
#include "device_memory.cuh"

#include "moelab/routing/point_routing.hpp"

namespace moelab::cuda {
namespace detail {

/// A cuBLAS handle created on first use (so that a context costs nothing until its first draw).
class CublasHandle {
 public:
  CublasHandle() = default;
  ~CublasHandle() {
    if (h_ != nullptr) cublasDestroy(h_);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get();

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace detail

cublasHandle_t detail::CublasHandle::get() {
  if (h_ == nullptr) check_cublas(cublasCreate(&h_), "cublasCreate");
  return h_;
}

namespace {

constexpr int kThreads = 256;

int blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::min<std::uint64_t>(b, 65535u * 8u));
}

static_assert(kMaxRoutingK == routing::kMaxDeviceTopK, "one limit on k for the device top-k");

/// Pt[j * B + c] = coordinate j of point first + c (raw standard normal). One thread per pair of
/// coordinates (one Philox block, one Box-Muller); consecutive threads take consecutive points.
__global__ void points_kernel(std::uint64_t seed, std::uint64_t draw, std::uint64_t first, int dim, std::uint64_t B, double* Pt) {
  const std::uint64_t pairs = static_cast<std::uint64_t>(dim + 1) / 2;
  const std::uint64_t total = B * pairs;
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t e = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const std::uint64_t c = e % B;
    const int b = static_cast<int>(e / B);
    double z0, z1;
    routing::point_normal_pair(seed, draw, dim, first + c, b, z0, z1);
    Pt[static_cast<std::uint64_t>(2 * b) * B + c] = z0;
    if (2 * b + 1 < dim) Pt[static_cast<std::uint64_t>(2 * b + 1) * B + c] = z1;
  }
}

/// Top-k set and rank of each point's scores St[j * B + c], j < m, with the work arrays of capacity
/// K >= k in registers. Writes ranks (when `ranks`) and/or counts them into the dense histogram `hist`.
template <int K>
__global__ void top_k_kernel(const double* St, std::uint64_t B, int m, int k, const std::uint64_t* table,
                             std::uint64_t table_stride, std::uint64_t* ranks, unsigned long long* hist) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t c = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < B; c += step) {
    const std::uint64_t r = routing::top_k_rank_fixed<K>(St + c, static_cast<long>(B), m, k, table, table_stride);
    if (ranks) ranks[c] = r;
    if (hist) atomicAdd(hist + r, 1ull);
  }
}

void validate(const RoutingProblem& p) {
  if (p.score_matrix == nullptr || p.rank_table == nullptr) throw std::invalid_argument("moelab::cuda routing: null matrix or rank table");
  if (p.m < 2 || p.k < 1 || p.k >= p.m || p.k > kMaxRoutingK)
    throw std::invalid_argument("moelab::cuda routing: need 1 <= k < m and k <= " + std::to_string(kMaxRoutingK));
  if (p.dim < 1 || (p.projected && p.dim != p.m)) throw std::invalid_argument("moelab::cuda routing: bad score-matrix shape");
  if (!routing::point_dim_supported(p.dim))
    throw std::invalid_argument("moelab::cuda routing: dim = " + std::to_string(p.dim) + " exceeds " +
                                std::to_string(routing::kMaxPointDim) + " (the 32-bit Philox block counter of a point stream would wrap)");
  if (p.table_stride < static_cast<std::size_t>(p.m) + 1) throw std::invalid_argument("moelab::cuda routing: rank table too narrow");
}

}  // namespace

/// What a RoutingDeviceContext keeps across draws: the handle and every device buffer.
struct RoutingDeviceContext::State {
  detail::CublasHandle blas;
  DeviceBuffer<double> A, Pt, St;            // score matrix; points and scores of one batch
  DeviceBuffer<std::uint64_t> table;         // rank table
  DeviceBuffer<std::uint64_t> ranks, sorted, unique;
  DeviceBuffer<unsigned int> counts;
  DeviceBuffer<int> runs;
  DeviceBuffer<unsigned char> temp;          // CUB scratch
  DeviceBuffer<unsigned long long> hist;     // dense histogram
  std::vector<std::uint64_t> keys;           // host copies of one chunk's runs
  std::vector<unsigned int> cnt;
};

RoutingDeviceContext::RoutingDeviceContext() : state_(std::make_unique<State>()) {}
RoutingDeviceContext::~RoutingDeviceContext() = default;

namespace {

/// One routing problem on a context: the score matrix and rank table uploaded into the context's
/// buffers, the batch buffers reused across batches (and across draws, through the context).
class DeviceRouter {
 public:
  DeviceRouter(RoutingDeviceContext::State& s, const RoutingProblem& p) : s_(s), p_(p) {
    validate(p);
    s_.A.upload(p.score_matrix, static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.dim));
    s_.table.upload(p.rank_table, static_cast<std::size_t>(p.k) * p.table_stride);
    // Batch: points and scores together within about 1 GiB, a multiple of the block size, <= 2^20.
    const std::uint64_t per_point = 8u * static_cast<std::uint64_t>(p.dim + p.m) + 16u;
    batch_ = std::max<std::uint64_t>(kThreads, std::min<std::uint64_t>(std::uint64_t{1} << 20, (std::uint64_t{1} << 30) / per_point));
    batch_ -= batch_ % kThreads;
  }
  std::uint64_t batch() const { return batch_; }

  /// Scores of points first .. first + B - 1 into St (B x m), enqueued on the default stream.
  void scores(std::uint64_t first, std::uint64_t B) {
    const int dim = p_.dim;
    s_.Pt.resize(B * static_cast<std::uint64_t>(dim));
    s_.St.resize(B * static_cast<std::uint64_t>(p_.m));
    // Raw normals for every law and path: ranks are invariant under the positive per-point scaling
    // that makes N(0, I/d) or Unif[B_d] from them (file comment), so p_.ball needs no pass here.
    points_kernel<<<blocks_for(B * static_cast<std::uint64_t>((dim + 1) / 2)), kThreads>>>(p_.seed, p_.draw, first, dim, B, s_.Pt.get());
    after_launch("points_kernel");
    const double one = 1.0, zero = 0.0;
    const int b = static_cast<int>(B);
    if (p_.projected) {
      // St = Zt L' (L lower triangular, m x m): DTRMM, side right, out of place.
      check_cublas(cublasDtrmm(s_.blas.get(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, b, p_.m,
                               &one, s_.A.get(), p_.m, s_.Pt.get(), b, s_.St.get(), b),
                   "cublasDtrmm");
    } else {
      // St = Pt R' (Pt: B x d, R: m x d): DGEMM.
      check_cublas(cublasDgemm(s_.blas.get(), CUBLAS_OP_N, CUBLAS_OP_T, b, p_.m, dim, &one, s_.Pt.get(), b, s_.A.get(), p_.m, &zero,
                               s_.St.get(), b),
                   "cublasDgemm");
    }
  }

  void top_k(std::uint64_t B, std::uint64_t* ranks, unsigned long long* hist) {
    switch (routing::top_k_capacity(p_.k)) {
      case 1: launch_top_k<1>(B, ranks, hist); break;
      case 2: launch_top_k<2>(B, ranks, hist); break;
      case 4: launch_top_k<4>(B, ranks, hist); break;
      case 8: launch_top_k<8>(B, ranks, hist); break;
      case 16: launch_top_k<16>(B, ranks, hist); break;
      default: launch_top_k<32>(B, ranks, hist); break;
    }
    after_launch("top_k_kernel");
  }

 private:
  template <int K>
  void launch_top_k(std::uint64_t B, std::uint64_t* ranks, unsigned long long* hist) {
    top_k_kernel<K><<<blocks_for(B), kThreads>>>(s_.St.get(), B, p_.m, p_.k, s_.table.get(), p_.table_stride, ranks, hist);
  }

 public:

 private:
  RoutingDeviceContext::State& s_;
  RoutingProblem p_;
  std::uint64_t batch_ = 0;
};

}  // namespace

void routing_ranks_to_host(RoutingDeviceContext& ctx, const RoutingProblem& p, std::uint64_t first, std::uint64_t count,
                           std::uint64_t* host_out) {
  if (count == 0) return;
  if (host_out == nullptr) throw std::invalid_argument("moelab::cuda::routing_ranks_to_host: host_out is null");
  auto& st = ctx.state();
  DeviceRouter dev(st, p);
  auto& ranks = st.ranks;
  ranks.resize(dev.batch());
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t B = std::min(dev.batch(), count - done);
    dev.scores(first + done, B);
    dev.top_k(B, ranks.get(), nullptr);
    check(cudaMemcpy(host_out + done, ranks.get(), B * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "cudaMemcpy ranks");
    done += B;
  }
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> routing_region_counts(RoutingDeviceContext& ctx, const RoutingProblem& p,
                                                                           std::uint64_t points, std::uint64_t regions,
                                                                           std::uint64_t dense_limit,
                                                                           void (*progress)(std::uint64_t, void*), void* progress_ctx) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> acc;
  if (points == 0) return acc;
  auto& st = ctx.state();
  DeviceRouter dev(st, p);
  if (regions <= dense_limit) {
    auto& hist = st.hist;
    hist.resize(regions);
    check(cudaMemset(hist.get(), 0, regions * sizeof(unsigned long long)), "cudaMemset histogram");
    for (std::uint64_t done = 0; done < points;) {
      const std::uint64_t B = std::min(dev.batch(), points - done);
      dev.scores(done, B);
      dev.top_k(B, nullptr, hist.get());
      done += B;
      if (progress) progress(done, progress_ctx);  // enqueue only: the device runs ahead of the host
    }
    // One named synchronisation: a fault in any batch's points, cuBLAS or top-k work surfaces here,
    // not as a failed copy (MOELAB_CUDA_SYNC=1 names the very kernel).
    check(cudaDeviceSynchronize(), "dense path: the batches' points_kernel / cuBLAS / top_k_kernel work");
    std::vector<unsigned long long> h(regions);
    check(cudaMemcpy(h.data(), hist.get(), regions * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "cudaMemcpy histogram");
    for (std::uint64_t r = 0; r < regions; ++r)
      if (h[r] > 0) acc.emplace_back(r, h[r]);
    return acc;
  }
  // Hashed regime (C(m, k) > dense_limit: at (256, 8, 256) almost every point is its own region).
  // The ranks of a whole chunk of points (as many as fit in half the free device memory, about 36
  // bytes a point) stay on the device and are radix-sorted and run-length encoded there ONCE per chunk
  // (CUB), so the host receives one ascending run list per chunk, not one per 2^20-point batch: no
  // host merge at all up to the chunk size (1e8 points on an H100/H200), RunMerger over chunks above
  // it. The runs become the histogram as they are (RegionHistogram::from_sorted_runs: no hashing).
  // Before: per-batch runs merged on the host and inserted into a hash table, 3e6 points/s on an H200
  // against 5e7 for PyTorch's torch.unique on the device.
  const std::uint64_t batch = dev.batch();
  std::uint64_t chunk = std::min<std::uint64_t>(points, std::uint64_t{1} << 30);  // CUB's int item counts
  {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      const std::uint64_t fit = static_cast<std::uint64_t>(free_bytes / 2) / 40u;
      chunk = std::min(chunk, std::max(batch, fit));
    } else {
      (void)cudaGetLastError();  // not sticky; fall back to one batch a chunk
      chunk = std::min(chunk, batch);
    }
    if (chunk > batch) chunk -= chunk % batch;  // whole batches per chunk
  }
  auto &ranks = st.ranks, &sorted = st.sorted, &unique = st.unique;
  auto& counts = st.counts;
  auto& runs_dev = st.runs;
  ranks.resize(chunk), sorted.resize(chunk), unique.resize(chunk), counts.resize(chunk), runs_dev.resize(1);
  // Ranks are < regions: sort only the bits they can occupy.
  const int end_bit = std::min(64, std::max(1, static_cast<int>(std::ceil(std::log2(static_cast<double>(regions)))) + 1));
  std::size_t sort_bytes = 0, rle_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, ranks.get(), sorted.get(), static_cast<int>(chunk), 0, end_bit),
        "cub sort (size query)");
  check(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, sorted.get(), unique.get(), counts.get(), runs_dev.get(),
                                           static_cast<int>(chunk)),
        "cub run-length encode (size query)");
  auto& temp = st.temp;
  temp.resize(std::max(sort_bytes, rle_bytes));
  auto& keys = st.keys;
  auto& cnt = st.cnt;
  routing::RunMerger merger;
  for (std::uint64_t first = 0; first < points;) {
    const std::uint64_t C = std::min(chunk, points - first);
    for (std::uint64_t done = 0; done < C;) {  // the chunk's batches, enqueued without a host synchronisation
      const std::uint64_t B = std::min(batch, C - done);
      dev.scores(first + done, B);
      dev.top_k(B, ranks.get() + done, nullptr);
      done += B;
      if (progress) progress(first + done, progress_ctx);
    }
    const int n = static_cast<int>(C);
    std::size_t bytes = temp.capacity();
    check(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, ranks.get(), sorted.get(), n, 0, end_bit), "cub sort");
    bytes = temp.capacity();
    check(cub::DeviceRunLengthEncode::Encode(temp.get(), bytes, sorted.get(), unique.get(), counts.get(), runs_dev.get(), n),
          "cub run-length encode");
    int runs = 0;
    // The first copy waits for the chunk's points / cuBLAS / top-k / sort / encode work: a fault in
    // any of them surfaces here (MOELAB_CUDA_SYNC=1 names the very kernel).
    check(cudaMemcpy(&runs, runs_dev.get(), sizeof(int), cudaMemcpyDeviceToHost),
          "cudaMemcpy run count (after the chunk's points_kernel / cuBLAS / top_k_kernel / CUB work)");
    keys.resize(static_cast<std::size_t>(runs)), cnt.resize(static_cast<std::size_t>(runs));
    check(cudaMemcpy(keys.data(), unique.get(), static_cast<std::size_t>(runs) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy runs");
    check(cudaMemcpy(cnt.data(), counts.get(), static_cast<std::size_t>(runs) * sizeof(unsigned int), cudaMemcpyDeviceToHost),
          "cudaMemcpy run counts");
    merger.add(keys.data(), cnt.data(), static_cast<std::size_t>(runs));
    first += C;
  }
  return merger.finish();
}

}  // namespace moelab::cuda
