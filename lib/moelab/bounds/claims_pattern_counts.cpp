// Claim: Eq. 13 of the compositional paper (routing-pattern counts of the mask class against its growth
// bound, Lemma 6 with d_N = d T). The pattern count is the experiment of the study bounds.patterns: both
// call count_routing_patterns (pattern_counts.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/bounds/pattern_counts.hpp"
#include "moelab/core/log_binomial.hpp"

namespace moelab::bounds::detail {

namespace {

// Item 4: distinct top-k patterns realised by random linear routers vs Eq. 13 (Lemma 6) with d_N = d T.
// One trial = one random router (as in bounds.patterns); the count is exact for the routers drawn, a
// lower estimate of the growth function, so a count above a bound refutes it without sampling error.
// Sizes where the count is far from the number of routers (m = 4 points in R^2, T = 4, k = 1 and 2:
// 136 and ~360 patterns from 10^5 routers) and has converged (the first half of the routers already finds
// (nearly) all of them), so the count estimates the growth function on these points, not the sample size.
Evidence check_pattern_counts(const CheckBudget& b, const RngKey& key) {
  const auto routers = b.pick<std::uint64_t>(100000, 1000000);
  std::string note;
  bool eq13_ok = true, arrangement_ok = true, control_ok = true;
  double worst_excess = -INFINITY, worst_arr = -INFINITY, worst_control = -INFINITY;
  std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
  for (int k : {1, 2}) {
    PatternCountParams p{.m = 4, .d = 2, .T = 4, .k = k, .routers = routers};
    const auto r = count_routing_patterns(p, key.with("routers", k).seed());
    p.routers = routers / 2;
    const auto half = count_routing_patterns(p, key.with("routers", k).seed());  // the first half of the same routers
    const double log_c = log_binomial(p.T, p.k);
    const double control_bound = std::log(static_cast<double>(p.m)) + 2.0 * log_c;  // Eq. 13 with d_N = 1
    eq13_ok &= r.log_patterns <= r.log_eq13_bound;
    arrangement_ok &= r.log_patterns <= r.log_arrangement_bound;
    control_ok &= r.log_patterns <= control_bound;
    worst_excess = std::max(worst_excess, r.log_patterns - r.log_eq13_bound);
    worst_arr = std::max(worst_arr, r.log_patterns - r.log_arrangement_bound);
    worst_control = std::max(worst_control, r.log_patterns - control_bound);
    smallest = std::min(smallest, r.distinct_patterns);
    note += fmt::format("{}k = {}: {} distinct patterns from {} routers ({} from the first half; sample-limited fraction {:.4f}), "
                        "log count {:.3f} vs Eq. 13 {:.1f}, arrangements {:.1f}, all tuples {:.2f}, Eq. 13 with d_N = 1 {:.2f}",
                        note.empty() ? "" : "; ", k, r.distinct_patterns, r.routers, half.distinct_patterns, r.sample_limited,
                        r.log_patterns, r.log_eq13_bound, r.log_arrangement_bound, r.log_all_patterns, control_bound);
  }
  Evidence e;
  e.printed = claims::deterministic_test("distinct patterns <= Eq. 13 bound m^(d_N) C(T,k)^(2 d_N), d_N = d T (largest log excess)",
                                         worst_excess, 0.0, eq13_ok);
  e.exact = claims::deterministic_test("distinct patterns <= hyperplane-arrangement bound (largest log excess)", worst_arr, 0.0,
                                       arrangement_ok);
  e.control(claims::deterministic_test("Eq. 13 with d_N = 1: m C(T,k)^2 (largest log excess)", worst_control, 0.0, control_ok));
  // One pattern above the bound refutes it: a log excess of log(1 + 1/count) is detected.
  e.relevance = std::log1p(1.0 / static_cast<double>(smallest));
  e.note = "m = 4 Gaussian points in R^2, T = 4 experts: " + note;
  return e;
}

}  // namespace

void register_pattern_counts_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"bounds.eq13.pattern_counts", src + "Eq. 13, Lemma 6, Assumption 1",
         "The top-k masks of a router class of Natarajan dimension d_N realise at most m^(d_N) C(T,k)^(2 d_N) patterns on m "
         "points (random linear routers, d_N = d T).",
         ClaimKind::bound, check_pattern_counts});
}

}  // namespace moelab::bounds::detail
