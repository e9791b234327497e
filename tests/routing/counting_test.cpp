// Configuration counts (lib/moelab/routing/counting.hpp): Table 1, Theorem 3.1's counting condition,
// Claim A.9's entropy chain and the swap-ball count.
#include "moelab/routing/counting.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("Table 1: printed sparsities are k/m rounded to one decimal", "[routing][counting]") {
  REQUIRE(rt::table1_models().size() == 8);
  for (const auto& row : rt::table1_models()) {
    const double pct = 100.0 * row.active / row.experts;
    // The table rounds to one decimal (6.25 -> 6.2, 1.5625 -> 1.6, 0.78 -> 0.8, 3.125 -> 3.1).
    CHECK(std::abs(pct - row.printed_sparsity) <= 0.05 + 1e-12);
  }
  // DeepSeek-V3: C(256, 8) = 4.1e14 configurations (Sec. 1: "> 4 x 10^14").
  CHECK_THAT(rt::log10_configurations(256, 8), WithinAbs(std::log10(409663695276000.0), 1e-12));
  // Qwen1.5 (4 of 64) and Llama-4 Scout (1 of 16) share sparsity 1/16 (Table 1 caption) but not counts.
  CHECK(rt::binomial(64, 4) == 635376);
  CHECK(rt::binomial(16, 1) == 16);
}

TEST_CASE("Theorem 3.1's counting condition and the c it requires", "[routing][counting]") {
  // C(m', k') <= c C(m, k)^0.99 iff c >= required_c.
  for (auto [m, k, ms, ks] : {std::tuple{256, 8, 128, 1}, {16, 8, 64, 2}, {64, 4, 16, 1}}) {
    const double c = rt::theorem31_required_c(m, k, ms, ks);
    CHECK(rt::theorem31_counting_condition(m, k, ms, ks, c * 1.0001));
    CHECK_FALSE(rt::theorem31_counting_condition(m, k, ms, ks, c * 0.9999));
  }
  // Same active experts ratio, coarser granularity: (16, 8) vs (64, 2) needs c = 2016 / 12870^0.99.
  CHECK_THAT(rt::theorem31_required_c(16, 8, 64, 2), WithinRel(2016.0 / std::pow(12870.0, 0.99), 1e-10));
}

TEST_CASE("Claim A.9: the exponent chain holds where the proof applies and its log factor is needed", "[routing][counting]") {
  // c' < 1/2000, m > 2k: C(m, floor(c'k)) <= C(m, k)^(4 c' log2(1/c')).
  for (double cp : {1e-5, 1e-4, 1.0 / 2001})
    for (int k : {2000, 5000, 100000, 3000000})
      for (long long m : {2LL * k + 1, 8LL * k, 1000LL * k}) {
        if (m > 2000000000LL) continue;
        CHECK(rt::claim_a9_exponent_needed(static_cast<int>(m), k, cp) <= rt::claim_a9_exponent_printed(cp));
      }
  // Without the log factor the exponent c' is too small (m = 2k + 1, k = 10^5, c' = 1e-4: floor(c'k) = 10).
  CHECK(rt::claim_a9_exponent_needed(200001, 100000, 1e-4) > 1e-4);
  // Below k = 1/c' the claim is vacuous: floor(c'k) = 0.
  CHECK(rt::claim_a9_exponent_needed(100, 10, 1e-4) == 0.0);
  // The conclusion with 8 c' log2(1/c') <= 0.01 (c' = 1e-5): margin <= 0.
  CHECK(rt::claim_a9_log_margin(4000000, 1000000, 1e-3, 1e-5) <= 0.0);
  CHECK(rt::binary_entropy(0.5) == 1.0);
}

TEST_CASE("the swap ball is the exact number of configurations within t swaps", "[routing][counting]") {
  // Brute force for small (m, k): count S' with |S cap S'| >= k - t.
  for (int m : {6, 9})
    for (int k : {2, 3})
      for (int t : {0, 1, 2}) {
        const rt::SubsetRanker ranker(m, k);
        const auto s0 = ranker.unrank(0);
        double count = 0;
        for (std::uint64_t r = 0; r < ranker.count(); ++r) {
          const auto s = ranker.unrank(r);
          int common = 0;
          for (int a : s) common += std::count(s0.begin(), s0.end(), a) > 0;
          count += common >= k - t;
        }
        CHECK_THAT(std::exp(rt::log_swap_ball(m, k, t)), WithinRel(count, 1e-12));
        CHECK(rt::log_swap_ball(m, k, t) <= rt::log_swap_ball_printed(m, k, t) + 1e-12);
      }
}
