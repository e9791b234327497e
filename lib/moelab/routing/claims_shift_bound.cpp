// routing.lemmaA3.shift_bound: granularity paper, Lemma A.3 (the mean-shift bound on the probability
// that k shifted Gaussians are the top k of m).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/routing/detail/claim_support.hpp"
#include "moelab/routing/order_statistics.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing::detail {

namespace {

using claims::TestResult;

/// Fraction, per chunk of `chunk` draws, of draws where X_1..X_k ~ N(delta, 1) are the top k of m
/// (the others N(0, 1)); chunk c uses RandomStream(seed, routing_points, c).
std::vector<double> top_set_fractions(int m, int k, double delta, std::int64_t chunks, std::int64_t chunk, std::uint64_t seed) {
  return parallel_map<double>(static_cast<std::size_t>(chunks), [&](std::size_t c) {
    const RandomStream rs(seed, StreamTag::routing_points, c);
    std::int64_t hits = 0;
    for (std::int64_t i = 0; i < chunk; ++i) {
      double lo = INFINITY, hi = -INFINITY;
      for (int j = 0; j < m; ++j) {
        const double x = rs.normal(static_cast<std::uint64_t>(i * m + j)) + (j < k ? delta : 0.0);
        if (j < k) lo = std::min(lo, x);
        else hi = std::max(hi, x);
      }
      hits += lo > hi;
    }
    return static_cast<double>(hits) / static_cast<double>(chunk);
  });
}

claims::Evidence check_shift_bound(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int m = 8, k = 2;
  const std::vector<double> deltas{0.1, 0.25, 0.5};
  const std::int64_t samples = b.pick<std::int64_t>(200000, 1000000);
  constexpr std::int64_t chunk = 10000;  // the hit fraction per chunk of 10^4 draws is one Welford sample
  const double uniform = 1.0 / static_cast<double>(binomial(m, k));
  std::vector<TestResult> printed, control;
  std::string detail;
  double relevance = INFINITY;
  for (std::size_t a = 0; a < deltas.size(); ++a) {
    const double delta = deltas[a];
    const Welford w = summarize(top_set_fractions(m, k, delta, samples / chunk, chunk, key.with("delta", static_cast<std::int64_t>(a)).seed()));
    const double bound = lemma_a3_bound_printed(m, k, delta), exact = top_set_probability(m, k, delta);
    printed.push_back(claims::upper_bound_test("", w, bound));
    control.push_back(claims::upper_bound_test("", w, uniform));
    relevance = std::min(relevance, bound - uniform);
    detail += fmt::format("{}delta {}: f {:.5f} +- {:.2g} (exact {:.5f}, sharp bound exp(delta s_k)/C {:.5f}, printed {:.5f}, "
                          "printed/exact {:.2f})",
                          a ? "; " : "", delta, w.mean(), w.standard_error(), exact, lemma_a3_bound_sharp(m, k, delta), bound,
                          bound / exact);
  }
  claims::Evidence e;
  e.printed = claims::combine_bonferroni("f(delta) <= exp(delta k sqrt(2 log m)) / C(m, k) at delta = 0.1, 0.25, 0.5", printed);
  // One wrong form, rejected when any delta rejects it.
  e.control(claims::combine_bonferroni("f(delta) <= 1 / C(m, k) (no gain from the shift)", control));
  // Power: a violation as large as the gap between the printed bound and the no-shift value 1/C
  // (smallest at delta = 0.1) must show.
  e.relevance = relevance;
  e.note = fmt::format("(m, k) = (8, 2), {} draws per delta; {}; relevance min_delta (bound - 1/C) = {:.3g}", samples, detail,
                       relevance);
  return e;
}

}  // namespace

void register_shift_bound_claims(claims::Registry& r) {
  r.add({"routing.lemmaA3.shift_bound", "granularity, Lemma A.3",
         "With X_1..X_k ~ N(delta, 1) and the other m - k ~ N(0, 1), P[the first k are the top k] <= exp(delta k sqrt(2 log m)) / C(m, k).",
         ClaimKind::bound, check_shift_bound});
}

}  // namespace moelab::routing::detail
