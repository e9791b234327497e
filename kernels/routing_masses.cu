// Region-mass Monte-Carlo on the device (granularity paper, Eq. 2.1, Lemma 3.2): the CUDA sibling of
// routing::Router::count. Per batch of B points, all on one stream with no host synchronisation on
// the dense path:
//   1. points_kernel   : Philox normals at the CPU's addresses (routing/point_routing.hpp), written
//                        transposed (B x dim, column-major) so that consecutive threads touch
//                        consecutive addresses; scaled to N(0, I/d) on the full Gaussian path;
//   2. ball_kernel     : full path under Unif[B_d]: x = g / |g| * U^(1/d), one thread per point;
//   3. cuBLAS          : scores St = Pt R' (DGEMM) or Zt L' (DTRMM, projected path), B x m;
//   4. top_k_kernel    : one thread per point, the shared top_k_strided + rank_sorted, reading its
//                        scores with stride B (coalesced across the warp); dense histograms are
//                        counted right there with 64-bit atomics (the fused step);
//   5. hashed regions  : ranks radix-sorted and run-length encoded by CUB, runs merged on the host.
// The cuBLAS handle and every buffer live in a RoutingDeviceContext that the caller keeps across
// draws (routing::make_region_mass_sampler(Backend::cuda) holds one per sampler): a study point's
// draws allocate once, not once per draw.
// Status: compiled and linked in every CUDA build; exercised only where a device exists
// (tests/gpu/routing_gpu_main.cpp). See docs/gpu.md for what has and has not been run on hardware.
#include "routing_masses.cuh"

#include <cublas_v2.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("moelab::cuda: ") + what + ": cuBLAS status " + std::to_string(static_cast<int>(status)));
}

}  // namespace

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

/// Pt[j * B + c] = coordinate j of point first + c (raw standard normal times `scale`). One thread per
/// pair of coordinates (one Philox block, one Box-Muller); consecutive threads take consecutive points.
__global__ void points_kernel(std::uint64_t seed, std::uint64_t draw, std::uint64_t first, int dim, std::uint64_t B,
                              double scale, double* Pt) {
  const std::uint64_t pairs = static_cast<std::uint64_t>(dim + 1) / 2;
  const std::uint64_t total = B * pairs;
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t e = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const std::uint64_t c = e % B;
    const int b = static_cast<int>(e / B);
    double z0, z1;
    routing::point_normal_pair(seed, draw, dim, first + c, b, z0, z1);
    Pt[static_cast<std::uint64_t>(2 * b) * B + c] = scale * z0;
    if (2 * b + 1 < dim) Pt[static_cast<std::uint64_t>(2 * b + 1) * B + c] = scale * z1;
  }
}

/// Unif[B_d] from the raw normals of each point: column c of Pt' scaled by U^(1/d) / |g|.
__global__ void ball_kernel(std::uint64_t seed, std::uint64_t draw, std::uint64_t first, int dim, std::uint64_t B, double* Pt) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t c = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < B; c += step) {
    const std::uint64_t i = first + c;
    double ss = 0.0;
    for (int j = 0; j < dim; ++j) ss += Pt[static_cast<std::uint64_t>(j) * B + c] * Pt[static_cast<std::uint64_t>(j) * B + c];
    const double u = routing::point_stream(seed, draw, i).uniform(routing::point_uniform_index(dim, i));
    const double f = pow(u, 1.0 / dim) / sqrt(ss);
    for (int j = 0; j < dim; ++j) Pt[static_cast<std::uint64_t>(j) * B + c] *= f;
  }
}

/// Top-k set and rank of each point's scores St[j * B + c], j < m. Writes ranks (when `ranks`) and/or
/// counts them into the dense histogram `hist` (when non-null).
__global__ void top_k_kernel(const double* St, std::uint64_t B, int m, int k, const std::uint64_t* table,
                             std::uint64_t table_stride, std::uint64_t* ranks, unsigned long long* hist) {
  int idx[kMaxRoutingK];
  double val[kMaxRoutingK];
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t c = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < B; c += step) {
    routing::top_k_strided(St + c, static_cast<long>(B), m, k, idx, val);
    const std::uint64_t r = routing::rank_sorted(idx, k, table, table_stride);
    if (ranks) ranks[c] = r;
    if (hist) atomicAdd(hist + r, 1ull);
  }
}

void validate(const RoutingProblem& p) {
  if (p.score_matrix == nullptr || p.rank_table == nullptr) throw std::invalid_argument("moelab::cuda routing: null matrix or rank table");
  if (p.m < 2 || p.k < 1 || p.k >= p.m || p.k > kMaxRoutingK)
    throw std::invalid_argument("moelab::cuda routing: need 1 <= k < m and k <= " + std::to_string(kMaxRoutingK));
  if (p.dim < 1 || (p.projected && p.dim != p.m)) throw std::invalid_argument("moelab::cuda routing: bad score-matrix shape");
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
  std::vector<std::uint64_t> keys;           // host copies of one batch's runs
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
    const bool gaussian_full = !p_.projected && !p_.ball;
    const double scale = gaussian_full ? 1.0 / std::sqrt(static_cast<double>(dim)) : 1.0;
    points_kernel<<<blocks_for(B * static_cast<std::uint64_t>((dim + 1) / 2)), kThreads>>>(p_.seed, p_.draw, first, dim, B, scale, s_.Pt.get());
    check(cudaGetLastError(), "points_kernel launch");
    if (!p_.projected && p_.ball) {
      ball_kernel<<<blocks_for(B), kThreads>>>(p_.seed, p_.draw, first, dim, B, s_.Pt.get());
      check(cudaGetLastError(), "ball_kernel launch");
    }
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
    top_k_kernel<<<blocks_for(B), kThreads>>>(s_.St.get(), B, p_.m, p_.k, s_.table.get(), p_.table_stride, ranks, hist);
    check(cudaGetLastError(), "top_k_kernel launch");
  }

 private:
  RoutingDeviceContext::State& s_;
  RoutingProblem p_;
  std::uint64_t batch_ = 0;
};

/// Adds the sorted runs (rank, count) into the sorted `acc`, combining equal ranks.
void merge_runs(std::vector<std::pair<std::uint64_t, std::uint64_t>>& acc, const std::vector<std::uint64_t>& keys,
                const std::vector<unsigned int>& counts, std::size_t runs) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  out.reserve(acc.size() + runs);
  std::size_t a = 0, r = 0;
  while (a < acc.size() || r < runs) {
    if (r == runs || (a < acc.size() && acc[a].first < keys[r])) {
      out.push_back(acc[a++]);
    } else if (a == acc.size() || keys[r] < acc[a].first) {
      out.emplace_back(keys[r], counts[r]);
      ++r;
    } else {
      out.emplace_back(keys[r], acc[a].second + counts[r]);
      ++a;
      ++r;
    }
  }
  acc.swap(out);
}

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
    std::vector<unsigned long long> h(regions);
    check(cudaMemcpy(h.data(), hist.get(), regions * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "cudaMemcpy histogram");
    for (std::uint64_t r = 0; r < regions; ++r)
      if (h[r] > 0) acc.emplace_back(r, h[r]);
    return acc;
  }
  // Hashed regime: sort + run-length encode each batch on the device.
  const std::uint64_t batch = dev.batch();
  auto &ranks = st.ranks, &sorted = st.sorted, &unique = st.unique;
  auto& counts = st.counts;
  auto& runs_dev = st.runs;
  ranks.resize(batch), sorted.resize(batch), unique.resize(batch), counts.resize(batch), runs_dev.resize(1);
  // Ranks are < regions: sort only the bits they can occupy.
  const int end_bit = std::min(64, std::max(1, static_cast<int>(std::ceil(std::log2(static_cast<double>(regions)))) + 1));
  std::size_t sort_bytes = 0, rle_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, ranks.get(), sorted.get(), static_cast<int>(batch), 0, end_bit),
        "cub sort (size query)");
  check(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, sorted.get(), unique.get(), counts.get(), runs_dev.get(),
                                           static_cast<int>(batch)),
        "cub run-length encode (size query)");
  auto& temp = st.temp;
  temp.resize(std::max(sort_bytes, rle_bytes));
  auto& keys = st.keys;
  auto& cnt = st.cnt;
  keys.resize(batch), cnt.resize(batch);
  for (std::uint64_t done = 0; done < points;) {
    const std::uint64_t B = std::min(batch, points - done);
    const int n = static_cast<int>(B);
    dev.scores(done, B);
    dev.top_k(B, ranks.get(), nullptr);
    std::size_t bytes = temp.capacity();
    check(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, ranks.get(), sorted.get(), n, 0, end_bit), "cub sort");
    bytes = temp.capacity();
    check(cub::DeviceRunLengthEncode::Encode(temp.get(), bytes, sorted.get(), unique.get(), counts.get(), runs_dev.get(), n),
          "cub run-length encode");
    int runs = 0;
    check(cudaMemcpy(&runs, runs_dev.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy run count");
    check(cudaMemcpy(keys.data(), unique.get(), static_cast<std::size_t>(runs) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy runs");
    check(cudaMemcpy(cnt.data(), counts.get(), static_cast<std::size_t>(runs) * sizeof(unsigned int), cudaMemcpyDeviceToHost),
          "cudaMemcpy run counts");
    merge_runs(acc, keys, cnt, static_cast<std::size_t>(runs));
    done += B;
    if (progress) progress(done, progress_ctx);
  }
  return acc;
}

}  // namespace moelab::cuda
