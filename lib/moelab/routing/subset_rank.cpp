#include "moelab/routing/subset_rank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/error.hpp"

namespace moelab::routing {

// 128-bit unsigned (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ using u128 = unsigned __int128;

namespace {
/// C(n, k) in 128 bits, saturating at 2^64 (enough to tell "does not fit").
u128 binomial_wide(int n, int k) {
  if (k < 0 || k > n) return 0;
  k = std::min(k, n - k);
  const u128 cap = static_cast<u128>(1) << 64;
  u128 r = 1;
  for (int i = 1; i <= k; ++i) {
    // r * (n - k + i) / i is exact at every step (it is C(n - k + i, i)).
    r = r * static_cast<u128>(n - k + i) / static_cast<u128>(i);
    if (r >= cap) return cap;
  }
  return r;
}
}  // namespace

bool binomial_fits(int n, int k) { return binomial_wide(n, k) < (static_cast<u128>(1) << 64); }

std::uint64_t binomial(int n, int k) {
  const u128 r = binomial_wide(n, k);
  MOELAB_EXPECT(r < (static_cast<u128>(1) << 64), "binomial coefficient does not fit in 64 bits");
  return static_cast<std::uint64_t>(r);
}

SubsetRanker::SubsetRanker(int m, int k) : m_(m), k_(k), stride_(static_cast<std::size_t>(m) + 1) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m, "SubsetRanker needs 1 <= k <= m");
  for (int i = 1; i <= k; ++i) MOELAB_EXPECT(binomial_fits(m, i), "SubsetRanker: C(m, i) does not fit in 64 bits");
  count_ = binomial(m, k);
  table_.assign(static_cast<std::size_t>(k) * stride_, 0);
  for (int i = 1; i <= k; ++i)
    for (int c = 0; c <= m; ++c) table_[static_cast<std::size_t>(i - 1) * stride_ + static_cast<std::size_t>(c)] = binomial(c, i);
}

std::uint64_t SubsetRanker::rank_unsorted(std::span<int> idx) const {
  for (std::size_t i = 1; i < idx.size(); ++i) {
    const int v = idx[i];
    std::size_t j = i;
    for (; j > 0 && idx[j - 1] > v; --j) idx[j] = idx[j - 1];
    idx[j] = v;
  }
  return rank(idx);
}

void SubsetRanker::unrank(std::uint64_t r, std::span<int> out) const {
  MOELAB_EXPECT(r < count_ && out.size() >= static_cast<std::size_t>(k_), "unrank: rank out of range or short output");
  int hi = m_ - 1;  // c_i <= hi: the elements are distinct and increasing
  for (int i = k_; i >= 1; --i) {
    // Largest c in [i - 1, hi] with C(c, i) <= r (C(i - 1, i) = 0 <= r always holds).
    const std::uint64_t* row = table_.data() + static_cast<std::size_t>(i - 1) * stride_;
    int lo = i - 1, top = hi;
    while (lo < top) {
      const int mid = lo + (top - lo + 1) / 2;
      if (row[mid] <= r) lo = mid;
      else top = mid - 1;
    }
    out[static_cast<std::size_t>(i - 1)] = lo;
    r -= row[lo];
    hi = lo - 1;
  }
}

std::vector<int> SubsetRanker::unrank(std::uint64_t r) const {
  std::vector<int> out(static_cast<std::size_t>(k_));
  unrank(r, out);
  return out;
}

}  // namespace moelab::routing
