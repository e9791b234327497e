// Host-only launcher for the region-mass Monte-Carlo on the device (kernels/routing_masses.cu). No
// device code here: included from plain C++ (lib/moelab/routing/region_masses_cuda.cpp, tests).
//
// The GPU sibling of routing::Router::count (lib/moelab/routing/region_masses.hpp): point i of routing
// draw `draw` is built from the same Philox normals (routing/point_routing.hpp addressing), its scores
// are a cuBLAS product with the same score matrix (R, or the Cholesky factor L of R R' on the projected
// path), and its top-k set and rank come from the same header functions the CPU uses. The CPU path is
// the reference: ranks agree point by point except where two scores tie to rounding (GEMM order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace moelab::cuda {

/// Largest k the device top-k supports (its work arrays live in registers / local memory); equal to
/// routing::kMaxDeviceTopK (routing/point_routing.hpp), checked by a static_assert in the kernel file.
inline constexpr int kMaxRoutingK = 32;

/// One routing problem, all pointers on the host.
struct RoutingProblem {
  const double* score_matrix = nullptr;  // column-major, m rows, `dim` columns: R (full) or lower-triangular L (projected)
  int m = 0;                              // experts
  int dim = 0;                            // d (full) or m (projected)
  int k = 0;                              // 1 <= k <= min(m - 1, kMaxRoutingK)
  bool projected = false;                 // scores = L z, z ~ N(0, I_m); else scores = R x
  bool ball = false;                      // full path: x ~ Unif[B_d] (else N(0, I_d / d)); cannot change a
                                          // rank (a positive per-point scale of the same normals), so unused
                                          // by the device (routing_masses.cu, file comment)
  const std::uint64_t* rank_table = nullptr;  // SubsetRanker::table(): k rows of table_stride entries
  std::size_t table_stride = 0;
  std::uint64_t seed = 0, draw = 0;
};

/// The device state of a run of routing draws, kept across draws (STYLE.md: handles owned by one
/// context): one cuBLAS handle, the uploaded score matrix and rank table, and the batch buffers
/// (points, scores, ranks, dense histogram, CUB scratch), grown when a larger problem needs them and
/// never shrunk. Creating it allocates nothing on the device; the first draw does. Not thread-safe:
/// one context per host thread. Host-only interface (the state is defined in routing_masses.cu).
class RoutingDeviceContext {
 public:
  RoutingDeviceContext();
  ~RoutingDeviceContext();
  RoutingDeviceContext(const RoutingDeviceContext&) = delete;
  RoutingDeviceContext& operator=(const RoutingDeviceContext&) = delete;
  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

/// Region ranks of points first .. first + count - 1, copied to host_out[0..count).
/// Throws std::runtime_error on a CUDA / cuBLAS failure, std::invalid_argument on a bad problem.
void routing_ranks_to_host(RoutingDeviceContext& ctx, const RoutingProblem& p, std::uint64_t first, std::uint64_t count,
                           std::uint64_t* host_out);

/// (rank, count) of every region hit by points 0 .. points - 1, ascending in rank. regions = C(m, k).
/// Dense device histogram (64-bit atomics, fused into the top-k kernel) when regions <= dense_limit;
/// otherwise each batch's ranks are radix-sorted and run-length encoded on the device (CUB) and the
/// (rank, count) runs merged on the host by routing::RunMerger (routing/point_routing.hpp). `progress(done)` is called after each batch (may be empty).
std::vector<std::pair<std::uint64_t, std::uint64_t>> routing_region_counts(RoutingDeviceContext& ctx, const RoutingProblem& p,
                                                                           std::uint64_t points, std::uint64_t regions,
                                                                           std::uint64_t dense_limit,
                                                                           void (*progress)(std::uint64_t done, void* ctx) = nullptr,
                                                                           void* progress_ctx = nullptr);

}  // namespace moelab::cuda
