// The per-point core of the region-mass Monte-Carlo (granularity paper, Eq. 2.1, Lemma 3.2), shared
// by the CPU path (region_masses.cpp) and the CUDA path (kernels/routing_masses.cu): one
// implementation, so the CPU reference and the device compute the same function of the scores.
//   - the addressing of point i's random numbers (docs/conventions.md, region_masses.hpp);
//   - the top-k set of a score vector (ties to the lower index) and its rank in the combinatorial
//     number system (subset_rank.hpp).
// Header-only, C++17, no Eigen and no allocation: compiled by g++ and by nvcc (MOELAB_HD).
#pragma once

#include <cstdint>

#include "moelab/core/distributions.hpp"

namespace moelab::routing {

/// Points per random stream: point i of routing draw `draw` uses stream trial (draw << 24) + i / 2^16.
inline constexpr std::uint64_t kPointsPerStream = std::uint64_t{1} << 16;

/// Normals per point slot: dim rounded up to even, plus one Philox block (two slots) for the ball's
/// radius uniform, so that a point's normals and its uniform never share a block.
MOELAB_HD std::uint64_t point_stride(int dim) { return 2 * ((static_cast<std::uint64_t>(dim) + 1) / 2) + 2; }

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
MOELAB_HD void point_normal_pair(std::uint64_t seed, std::uint64_t draw, int dim, std::uint64_t i, int b, double& z0, double& z1) {
  const std::uint64_t block = ((i % kPointsPerStream) * point_stride(dim)) / 2 + static_cast<std::uint64_t>(b);
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

/// Rank of the ascending indices idx[0..k) with table[i * stride + c] = C(c, i + 1) (SubsetRanker's
/// layout): sum_i C(idx[i], i + 1).
MOELAB_HD std::uint64_t rank_sorted(const int* idx, int k, const std::uint64_t* table, std::uint64_t stride) {
  std::uint64_t r = 0;
  for (int i = 0; i < k; ++i) r += table[static_cast<std::uint64_t>(i) * stride + static_cast<std::uint64_t>(idx[i])];
  return r;
}

}  // namespace moelab::routing
