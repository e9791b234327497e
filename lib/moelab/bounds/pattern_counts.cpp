#include "moelab/bounds/pattern_counts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "moelab/bounds/growth.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab::bounds {

namespace {

std::uint64_t mix64(std::uint64_t z) {  // splitmix64 finaliser: a bijection of 64-bit words
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Bit mask of the k largest entries of `s` (T <= 64).
std::uint64_t top_k_mask(const double* s, int T, int k, int* idx) {
  for (int j = 0; j < T; ++j) idx[j] = j;
  std::nth_element(idx, idx + (k - 1), idx + T, [&](int a, int b) { return s[a] > s[b]; });
  std::uint64_t mask = 0;
  for (int j = 0; j < k; ++j) mask |= std::uint64_t{1} << idx[j];
  return mask;
}

}  // namespace

double log_arrangement_pattern_bound(double m, double d, double T) {
  return log_sauer_shelah(m * T * (T - 1.0) / 2.0, d * (T - 1.0));
}

PatternCount count_routing_patterns(const PatternCountParams& p, std::uint64_t seed,
                                    const std::function<void(std::size_t)>& routers_done) {
  MOELAB_EXPECT(p.m >= 1 && p.d >= 1, "pattern counts: m and d must be >= 1");
  MOELAB_EXPECT(p.T >= 2 && p.T <= 64, "pattern counts: T must be in 2..64");
  MOELAB_EXPECT(p.k >= 1 && p.k < p.T, "pattern counts: k must be in 1..T-1");
  MOELAB_EXPECT(p.routers >= 1, "pattern counts: routers must be >= 1");
  MOELAB_EXPECT(p.d_N >= 0.0 && std::isfinite(p.d_N), "pattern counts: d_N must be >= 0");
  const int m = p.m, d = p.d, T = p.T, k = p.k;

  Eigen::MatrixXd X(d, m);  // column i = x_i
  RandomStream(seed, StreamTag::routing_points, 0).fill_normal(0, static_cast<std::uint64_t>(d) * m, X.data());

  using Key = std::pair<std::uint64_t, std::uint64_t>;
  constexpr std::uint64_t kChunk = 256;
  const std::uint64_t chunks = (p.routers + kChunk - 1) / kChunk;
  std::vector<Key> keys(p.routers);
  std::vector<std::uint64_t> seen_masks;  // union of the chunks' distinct single-point masks
  std::vector<std::vector<std::uint64_t>> chunk_masks(chunks);
  parallel_for(chunks, [&](std::size_t c) {
    Eigen::MatrixXd W(T, d), S(T, m);
    std::array<int, 64> idx{};
    std::vector<std::uint64_t> masks;
    const std::uint64_t first = c * kChunk, last = std::min(p.routers, first + kChunk);
    for (std::uint64_t r = first; r < last; ++r) {
      RandomStream(seed, StreamTag::routing_vectors, r).fill_normal(0, static_cast<std::uint64_t>(T) * d, W.data());
      S.noalias() = W * X;
      std::uint64_t h1 = 0x243F6A8885A308D3ull, h2 = 0x13198A2E03707344ull;
      for (int i = 0; i < m; ++i) {
        const std::uint64_t mask = top_k_mask(S.col(i).data(), T, k, idx.data());
        h1 = mix64(h1 ^ mask);
        h2 = mix64(h2 + mask * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(i));
        masks.push_back(mask);
      }
      keys[r] = {h1, h2};
      std::sort(masks.begin(), masks.end());
      masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
    }
    chunk_masks[c] = std::move(masks);
    if (routers_done) routers_done(static_cast<std::size_t>(last - first));
  });
  std::sort(keys.begin(), keys.end());
  const auto distinct = static_cast<std::uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  for (auto& cm : chunk_masks) seen_masks.insert(seen_masks.end(), cm.begin(), cm.end());
  std::sort(seen_masks.begin(), seen_masks.end());
  const auto masks = static_cast<std::uint64_t>(std::unique(seen_masks.begin(), seen_masks.end()) - seen_masks.begin());

  PatternCount out;
  out.routers = p.routers;
  out.distinct_patterns = distinct;
  out.distinct_masks = masks;
  out.log_patterns = std::log(static_cast<double>(distinct));
  out.sample_limited = static_cast<double>(distinct) / static_cast<double>(p.routers);
  out.d_N = p.d_N > 0.0 ? p.d_N : static_cast<double>(d) * T;
  const double log_ctk = log_binomial(T, k);
  out.log_eq13_bound = out.d_N * std::log(static_cast<double>(m)) + 2.0 * out.d_N * log_ctk;
  out.log_arrangement_bound = log_arrangement_pattern_bound(m, d, T);
  out.log_all_patterns = m * log_ctk;
  return out;
}

}  // namespace moelab::bounds
