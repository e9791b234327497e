// Ranking k-subsets of [m] = {0, ..., m-1}: the combinatorial number system (Lehmer 1964; Knuth,
// TAOCP 4A, 7.2.1.3, Eq. (3)). A subset c_1 < c_2 < ... < c_k has rank
//     rank(S) = C(c_1, 1) + C(c_2, 2) + ... + C(c_k, k),
// a bijection onto [0, C(m, k)) that lists subsets in colexicographic order. The granularity paper
// indexes its routing regions U_S by S in binom([m], k) (Eq. 2.1); moelab indexes them by rank(S).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "moelab/routing/point_routing.hpp"  // rank_sorted, shared with the CUDA path

namespace moelab::routing {

/// C(n, k) exactly; 0 when k < 0 or k > n. Precondition (MOELAB_EXPECT): it fits in 64 bits.
std::uint64_t binomial(int n, int k);
/// Whether C(n, k) < 2^64.
bool binomial_fits(int n, int k);

/// rank / unrank of the k-subsets of [m] with a table of C(c, i), c < m, i <= k (all must fit in
/// 64 bits: MOELAB_EXPECT in the constructor). rank is k table look-ups, unrank k binary searches.
class SubsetRanker {
 public:
  SubsetRanker(int m, int k);
  int m() const { return m_; }
  int k() const { return k_; }
  /// C(m, k), the number of subsets (= routing configurations).
  std::uint64_t count() const { return count_; }
  /// Rank of the strictly increasing indices `sorted` (k of them, each in [0, m)). Not checked in
  /// release builds beyond the size: this is the hot loop of the region-mass Monte-Carlo.
  std::uint64_t rank(std::span<const int> sorted) const {
    return rank_sorted(sorted.data(), k_, table_.data(), stride_);
  }
  /// Rank of k distinct indices in any order: sorts `idx` in place (insertion sort, k is small).
  std::uint64_t rank_unsorted(std::span<int> idx) const;
  /// The subset of rank r (< count()), ascending, written to out[0..k).
  void unrank(std::uint64_t r, std::span<int> out) const;
  /// Same, as a vector.
  std::vector<int> unrank(std::uint64_t r) const;
  /// The table C(c, i + 1) at [i * table_stride() + c], i < k, c <= m (for point_routing.hpp's
  /// rank_sorted and for copying to a device).
  const std::vector<std::uint64_t>& table() const { return table_; }
  std::size_t table_stride() const { return stride_; }

 private:
  int m_, k_;
  std::size_t stride_;
  std::uint64_t count_;
  std::vector<std::uint64_t> table_;  // table_[i * stride_ + c] = C(c, i + 1), c in [0, m]
};

}  // namespace moelab::routing
