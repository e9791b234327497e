// The per-point core of the region-mass Monte-Carlo (granularity paper, Eq. 2.1, Lemma 3.2), shared
// by the CPU path (region_masses.cpp) and the CUDA path (kernels/routing_masses.cu): one
// implementation, so the CPU reference and the device compute the same function of the scores.
//   - the addressing of point i's random numbers (docs/conventions.md, region_masses.hpp);
//   - the top-k set of a score vector (ties to the lower index) and its rank in the combinatorial
//     number system (subset_rank.hpp).
// Header-only, C++17, no Eigen; no allocation in the MOELAB_HD functions: compiled by g++ and by
// nvcc. RunMerger (host only) is the hashed path's merge of per-batch runs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "moelab/core/distributions.hpp"

namespace moelab::routing {

/// Points per random stream: point i of routing draw `draw` uses stream trial (draw << 24) + i / 2^16.
inline constexpr std::uint64_t kPointsPerStream = std::uint64_t{1} << 16;

/// Normals per point slot: dim rounded up to even, plus one Philox block (two slots) for the ball's
/// radius uniform, so that a point's normals and its uniform never share a block.
MOELAB_HD std::uint64_t point_stride(int dim) { return 2 * ((static_cast<std::uint64_t>(dim) + 1) / 2) + 2; }

/// Largest input dimension the point addressing supports. A point stream holds kPointsPerStream
/// points of point_stride(dim) / 2 Philox blocks each, and the Philox block counter is 32 bits
/// (core/philox.hpp): the last block of the stream, kPointsPerStream * point_stride(dim) / 2 - 1,
/// must stay below 2^32, i.e. 2^16 (ceil(dim / 2) + 1) <= 2^32, dim <= 2 (2^16 - 1) = 131,070.
/// Above it the counter would wrap and late points would silently reuse early points' normals
///; every entry point refuses such a dim (draw_points, Router, the CUDA launcher, and
/// the routing studies' params.d at validation, exit 2).
inline constexpr int kMaxPointDim = 131070;

/// Philox block (in point_stream(seed, draw, i)) that holds coordinates 2 b and 2 b + 1 of point i,
/// as a 64-bit number: below 2^32 for every point and b < ceil(dim / 2) exactly when dim <= kMaxPointDim.
MOELAB_HD std::uint64_t point_block_index(int dim, std::uint64_t i, int b) {
  return ((i % kPointsPerStream) * point_stride(dim)) / 2 + static_cast<std::uint64_t>(b);
}

/// True when the addressing of points of dimension dim does not wrap the 32-bit block counter.
MOELAB_HD bool point_dim_supported(int dim) { return dim >= 1 && dim <= kMaxPointDim; }

/// The random stream that holds point i of routing draw `draw`.
MOELAB_HD RandomStream point_stream(std::uint64_t seed, std::uint64_t draw, std::uint64_t i) {
  return RandomStream(seed, StreamTag::routing_points, (draw << 24) + i / kPointsPerStream);
}

/// Index, in point_stream(seed, draw, i), of coordinate j of point i (dim coordinates per point).
MOELAB_HD std::uint64_t point_normal_index(int dim, std::uint64_t i, int j) {
  return (i % kPointsPerStream) * point_stride(dim) + static_cast<std::uint64_t>(j);
}

/// Coordinates 2 b and 2 b + 1 of point i (raw standard normals) from one Philox block: the same
/// numbers as point_stream(seed, draw, i).normal(point_normal_index(dim, i, 2 b + {0, 1})), with one
/// Philox evaluation and one Box-Muller for the pair (a point's normals start block-aligned: the
/// stride is even). For dim odd, the last pair's second value is past the point and unused.
/// Callers guarantee point_dim_supported(dim) (the block index then fits in 32 bits).
MOELAB_HD void point_normal_pair(std::uint64_t seed, std::uint64_t draw, int dim, std::uint64_t i, int b, double& z0, double& z1) {
  const std::uint64_t block = point_block_index(dim, i, b);
  box_muller(philox_block(point_stream(seed, draw, i).address(), static_cast<std::uint32_t>(block)), z0, z1);
}

/// Largest k the CUDA top-k supports (its work arrays are fixed-size, per thread).
inline constexpr int kMaxDeviceTopK = 32;

/// Index, in the same stream, of the uniform that sets the radius of point i under Unif[B_d].
MOELAB_HD std::uint64_t point_uniform_index(int dim, std::uint64_t i) {
  return (i % kPointsPerStream) * point_stride(dim) + point_stride(dim) - 2;
}

/// Indices of the k largest of s[0], s[stride], ..., s[(m-1) stride], written ascending to idx[0..k)
/// (val: k doubles of work). Ties (probability 0 for continuous scores) go to the lower index.
/// Insertion into a sorted list of k: O(m k) worst case, O(m) typical, for the small k of routing.
MOELAB_HD void top_k_strided(const double* s, long stride, int m, int k, int* idx, double* val) {
  int filled = 0;
  for (int j = 0; j < m; ++j) {
    const double x = s[static_cast<long>(j) * stride];
    int p;
    if (filled < k) {
      p = filled++;
    } else {
      if (!(x > val[k - 1])) continue;
      p = k - 1;
    }
    while (p > 0 && val[p - 1] < x) {
      val[p] = val[p - 1];
      idx[p] = idx[p - 1];
      --p;
    }
    val[p] = x;
    idx[p] = j;
  }
  for (int i = 1; i < k; ++i) {  // ascending indices
    const int v = idx[i];
    int j = i;
    for (; j > 0 && idx[j - 1] > v; --j) idx[j] = idx[j - 1];
    idx[j] = v;
  }
}

/// The device top-k (kernels/routing_masses.cu), specialised on a compile-time capacity K >= k so
/// that its work arrays stay in registers: every index into val / idx below is a compile-time
/// constant once the loops are unrolled (a run-time index, as in top_k_strided's insertion, puts
/// the arrays in local memory: 384 bytes a thread at k = 32). Keeps the K largest of
/// s[0], s[stride], ..., s[(m-1) stride] sorted descending (ties to the lower index, as
/// top_k_strided: an element enters only when strictly larger than the K-th, and goes behind the
/// equal ones already held), then returns the rank (rank_sorted's sum_i C(idx_(i), i + 1) over the
/// ascending order) of the k largest, k <= K, without sorting them: the ascending position of
/// entry q is the number of held indices below idx[q], a count over compile-time slots.
/// Unfilled slots hold -infinity and index -1; scores are finite, so the first K entries always
/// enter and the result equals top_k_strided + rank_sorted for every finite score vector
/// (tests/routing/point_routing_test.cpp checks it for every k in 1..32).
template <int K>
MOELAB_HD std::uint64_t top_k_rank_fixed(const double* s, long stride, int m, int k, const std::uint64_t* table,
                                         std::uint64_t table_stride) {
  double val[K];
  int idx[K];
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int q = 0; q < K; ++q) {
    val[q] = -HUGE_VAL;
    idx[q] = -1;
  }
  for (int j = 0; j < m; ++j) {
    const double x = s[static_cast<long>(j) * stride];
    if (!(x > val[K - 1])) continue;
    // Insert x at the slot p = #{q : val[q] >= x}: slots above p shift down by one.
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int q = K - 1; q >= 1; --q) {
      if (val[q - 1] < x) {
        val[q] = val[q - 1];
        idx[q] = idx[q - 1];
      } else if (val[q] < x) {
        val[q] = x;
        idx[q] = j;
      }
    }
    if (val[0] < x) {
      val[0] = x;
      idx[0] = j;
    }
  }
  std::uint64_t r = 0;
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int q = 0; q < K; ++q) {
    if (q >= k) break;
    int pos = 0;  // ascending position of idx[q] among the k largest
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int t = 0; t < K; ++t)
      if (t < k && idx[t] < idx[q]) ++pos;
    r += table[static_cast<std::uint64_t>(pos) * table_stride + static_cast<std::uint64_t>(idx[q])];
  }
  return r;
}

/// The capacities the device instantiates top_k_rank_fixed for: k is rounded up to the next of
/// these (a larger K costs only more compare-and-moves per accepted score).
MOELAB_HD int top_k_capacity(int k) { return k <= 1 ? 1 : k <= 2 ? 2 : k <= 4 ? 4 : k <= 8 ? 8 : k <= 16 ? 16 : 32; }

/// Rank of the ascending indices idx[0..k) with table[i * stride + c] = C(c, i + 1) (SubsetRanker's
/// layout): sum_i C(idx[i], i + 1).
MOELAB_HD std::uint64_t rank_sorted(const int* idx, int k, const std::uint64_t* table, std::uint64_t stride) {
  std::uint64_t r = 0;
  for (int i = 0; i < k; ++i) r += table[static_cast<std::uint64_t>(i) * stride + static_cast<std::uint64_t>(idx[i])];
  return r;
}

/// Merges the sorted (rank, count) runs of successive batches into one sorted list, adding the
/// counts of equal ranks. Segments are kept on a stack whose sizes at least halve from bottom to top
/// (the top two merge while the lower is at most twice the upper), so every run is merged
/// O(log batches) times: O(N log batches) in all for N runs, where merging each batch into one
/// growing list cost O(N batches) (about 3 minutes a repetition at 1e8 points).
/// Host-only (allocates): used by kernels/routing_masses.cu, tested on the CPU
/// (tests/routing/point_routing_test.cpp).
class RunMerger {
 public:
  using Runs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  /// keys[0..n) strictly ascending (one batch's run-length encoding), counts[0..n) their counts.
  void add(const std::uint64_t* keys, const unsigned int* counts, std::size_t n) {
    if (n == 0) return;
    Runs seg;
    seg.reserve(n);
    for (std::size_t i = 0; i < n; ++i) seg.emplace_back(keys[i], counts[i]);
    stack_.push_back(std::move(seg));
    while (stack_.size() >= 2 && stack_[stack_.size() - 2].size() <= 2 * stack_.back().size()) merge_top();
  }
  /// The merged runs; the merger is empty afterwards.
  Runs finish() {
    while (stack_.size() >= 2) merge_top();
    Runs out = stack_.empty() ? Runs{} : std::move(stack_.back());
    stack_.clear();
    return out;
  }

 private:
  void merge_top() {
    Runs b = std::move(stack_.back());
    stack_.pop_back();
    Runs& a = stack_.back();
    Runs out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) out.push_back(a[i++]);
      else if (i == a.size() || b[j].first < a[i].first) out.push_back(b[j++]);
      else {
        out.emplace_back(a[i].first, a[i].second + b[j].second);
        ++i, ++j;
      }
    }
    a.swap(out);
  }
  std::vector<Runs> stack_;
};

}  // namespace moelab::routing
