// Claim: Lemma 3.7 of the scaling paper, its routing term. The pattern count is the experiment of the
// study bounds.patterns: both call bounds::count_routing_patterns.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "moelab/bounds/pattern_counts.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/detail/claim_support.hpp"

namespace moelab::scaling::detail {

// Lemma 3.7's routing term L l k log(e M / k) bounds the log-number of routing patterns L l log C(M, k); and
// the patterns random linear routers realise on l tokens (one layer) lie below both.
Evidence routing_overhead_claim(const CheckBudget& b, const RngKey& key) {
  double min_gap = INFINITY, max_gap_reverse = -INFINITY;
  int n = 0;
  for (double M : {2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0, 65536.0})
    for (double k : {1.0, 2.0, 4.0, 8.0, 64.0, 1024.0}) {
      if (k > M) continue;
      const auto c = routing_overhead_gap(M, k);
      min_gap = std::min(min_gap, c.gap);
      max_gap_reverse = std::max(max_gap_reverse, c.gap);
      ++n;
    }
  const bounds::PatternCountParams pc{.m = 16, .d = 4, .T = 8, .k = 2, .routers = b.pick<std::uint64_t>(50000, 500000)};
  const auto r = bounds::count_routing_patterns(pc, key.with("routers").seed());
  const double per_layer_bound = pc.m * log_binomial_bound(pc.T, pc.k);
  const bool patterns_ok = r.log_patterns <= r.log_all_patterns && r.log_all_patterns <= per_layer_bound;
  const double tol = 1e-12;  // rounding of lgamma-based log C(M, k) (nats)
  Evidence e;
  e.printed = claims::deterministic_test("k log(e M / k) - log C(M, k) >= 0 (smallest gap, nats)", min_gap, 0.0,
                                         min_gap >= -tol && patterns_ok);
  e.control(claims::deterministic_test("reverse: k log(e M / k) <= log C(M, k) (largest gap)", max_gap_reverse, 0.0,
                                       max_gap_reverse <= tol));
  // Exhaustive over the (M, k) grid and exact counts: any gap below -tol is seen.
  e.relevance = tol;
  e.note = fmt::format("{} (M, k) pairs, gap from {:.3g} to {:.3g} nats per slot. One layer, l = {} tokens, M = {}, k = {}: "
                       "{} distinct patterns from {} random linear routers in R^{} (log {:.2f}) <= l log C(M,k) = {:.2f} <= "
                       "l k log(eM/k) = {:.2f}",
                       n, min_gap, max_gap_reverse, pc.m, pc.T, pc.k, r.distinct_patterns, r.routers, pc.d, r.log_patterns,
                       r.log_all_patterns, per_layer_bound);
  return e;
}

}  // namespace moelab::scaling::detail
