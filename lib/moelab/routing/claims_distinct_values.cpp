// Claims: distinct values among n uniform draws from [d], the granularity paper's Lemmas C.4 (Eqs.
// C.2, C.3) and C.5, exact (the law of the distinct count by recursion; appendix_lemmas.hpp).
// Each is evaluated exactly over a parameter grid; its control is the statement with one constant
// changed by the smallest amount that matters (where the printed constant is loose the control sits
// just past the critical value the grid finds, and the printed/critical ratio is the margin in the note).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "moelab/routing/appendix_lemmas.hpp"
#include "moelab/routing/detail/claim_support.hpp"

namespace moelab::routing::detail {

namespace {

// ---- Lemmas C.4 (Eqs. C.2, C.3) and C.5: distinct values among n uniform draws from [d] ----
double law_cdf_below(const std::vector<double>& law, double threshold) {  // P[X < threshold]
  double s = 0.0;
  for (std::size_t x = 0; x < law.size() && static_cast<double>(x) < threshold; ++x) s += law[x];
  return s;
}
Evidence check_lemma_c4(const claims::CheckBudget&, const RngKey&) {
  std::int64_t cases = 0, bad = 0;
  double rate_min = INFINITY;  // min over the grid of -log P / min(n, d) in (C.2) where P > 0
  std::vector<std::pair<std::vector<double>, double>> c2;  // (law, min(n, d)) for the control
  for (int d : {1, 2, 5, 12, 30, 100, 300})
    for (int n : {1, 3, 12, 20, 40, 100, 300, 1000, 3000}) {
      const auto law = distinct_count_law(n, d);
      const double mn = std::min(n, d), pr = law_cdf_below(law, mn / 12.0);
      ++cases;
      bad += pr > std::exp(-mn / 18.0) * (1 + kRound);
      if (pr > 0) rate_min = std::min(rate_min, -std::log(pr) / mn);
      c2.emplace_back(law, mn);
    }
  // (C.3): n >= 4 d log(1/eps), 0 < eps < 1/2: P[X_n < d (1 - eps)] <= e^-d. The proof's union bound
  // exp(d ((eps + 1/d) log(1/eps) + 0.5) - eps n) <= e^-d needs n >= d log(1/eps) + log(1/eps)/eps +
  // 1.5 d/eps (n of order d/eps), not 4 d log(1/eps): the exact form tested beside it.
  std::int64_t cases3 = 0, bad3 = 0, bad3_exact = 0, bad3_control = 0;
  std::string fails3;
  for (int d : {1, 2, 5, 12, 30, 100, 300})
    for (double eps : {0.01, 0.1, 0.25, 0.49}) {
      const int n = static_cast<int>(std::ceil(4.0 * d * std::log(1.0 / eps)));
      ++cases3;
      const double pr = law_cdf_below(distinct_count_law(n, d), d * (1 - eps));
      if (pr > std::exp(-d) * (1 + kRound)) {
        ++bad3;
        if (fails3.size() < 200) fails3 += fmt::format("{}(d {}, eps {}: P = {:.3g} > e^-d = {:.3g})", fails3.empty() ? "" : ", ", d, eps, pr, std::exp(-d));
      }
      const int ne = static_cast<int>(std::ceil(d * std::log(1.0 / eps) + std::log(1.0 / eps) / eps + 1.5 * d / eps));
      bad3_exact += law_cdf_below(distinct_count_law(ne, d), d * (1 - eps)) > std::exp(-d) * (1 + kRound);
      // Control: n = d log(1/eps) draws (the coupon-collector scale: about eps d values still missing).
      const int nc = std::max(1, static_cast<int>(std::ceil(d * std::log(1.0 / eps))));
      bad3_control += law_cdf_below(distinct_count_law(nc, d), d * (1 - eps)) > std::exp(-d) * (1 + kRound);
    }
  // Control of (C.2): the exponent just past the critical rate the grid allows.
  std::int64_t bad2_control = 0;
  const double rate_control = 1.05 * rate_min;
  for (const auto& [law, mn] : c2) bad2_control += law_cdf_below(law, mn / 12.0) > std::exp(-rate_control * mn) * (1 + kRound);
  Evidence e;
  e.printed = exhaustive_test("(C.2) P[X_n < min(n,d)/12] <= exp(-min(n,d)/18) and (C.3) P[X_n < d(1-eps)] <= e^-d for n >= 4d log(1/eps): "
                              "violations",
                              cases + cases3, bad + bad3);
  e.exact = exhaustive_test("(C.2) as printed and (C.3) with n >= d log(1/eps) + log(1/eps)/eps + 1.5 d/eps (what the proof's union "
                            "bound needs): violations",
                            cases + cases3, bad + bad3_exact);
  e.control(exhaustive_test("(C.3) with n = d log(1/eps) draws (constant 4 -> 1): violations", cases3, bad3_control));
  e.control(exhaustive_test("(C.2) with the exponent 1.05 x the grid's critical rate: violations", cases, bad2_control));
  e.relevance = 0.0;
  e.note = fmt::format("exact occupancy laws; (C.2): {} cases, {} violations, critical rate min -log P / min(n, d) = {:.4f} vs printed 1/18 "
                       "= {:.4f} (margin {:.1f}x); (C.3) as printed: {} cases, {} violations ({}); with n of order d/eps: {} violations; "
                       "controls: {} and {} violations",
                       cases, bad, rate_min, 1.0 / 18.0, rate_min * 18.0, cases3, bad3, fails3, bad3_exact, bad3_control, bad2_control);
  return e;
}
Evidence check_lemma_c5(const claims::CheckBudget& b, const RngKey&) {
  // P[X_n < t (1 + 2/10000)] <= exp(-min(d, n)/18) for t < 0.99 d and n >= 750 t.
  std::int64_t cases = 0, bad = 0, bad_control = 0;
  double worst = 0.0;
  std::vector<int> ds{2, 5, 20, 100};
  if (b.full) ds.push_back(300);
  for (int d : ds)
    for (double frac : {0.05, 0.3, 0.6, 0.9, 0.985}) {
      const double t = std::max(0.5, frac * d);
      const double thr = t * (1 + 2.0 / 10000);
      const int n = static_cast<int>(std::ceil(750.0 * t));
      const double pr = law_cdf_below(distinct_count_law(n, d), thr), bound = std::exp(-std::min(d, n) / 18.0);
      worst = std::max(worst, pr / bound);
      ++cases;
      bad += pr > bound * (1 + kRound);
      // Control: n = t draws (750 -> 1).
      const int nc = std::max(1, static_cast<int>(std::ceil(t)));
      bad_control += law_cdf_below(distinct_count_law(nc, d), thr) > std::exp(-std::min(d, nc) / 18.0) * (1 + kRound);
    }
  Evidence e;
  e.printed = exhaustive_test("P[X_n < t (1 + 2/10000)] <= exp(-min(d, n)/18) for t < 0.99 d, n = ceil(750 t): violations", cases, bad);
  e.control(exhaustive_test("the same with n = ceil(t) draws (750 -> 1): violations", cases, bad_control));
  e.relevance = 0.0;
  e.note = fmt::format("{} cases (exact occupancy laws, d = {}..{}); largest P / bound {:.3g}; control violations {}", cases, ds.front(),
                       ds.back(), worst, bad_control);
  return e;
}

}  // namespace

void register_distinct_values_claims(claims::Registry& r) {
  r.add({"routing.lemmaC4.distinct_count", "granularity, Lemma C.4 (Eqs. C.2, C.3)",
         "For n uniform draws from [d] with X_n distinct values: P[X_n < min(n,d)/12] <= exp(-min(n,d)/18), and P[X_n < d(1-eps)] <= "
         "e^-d for 0 < eps < 1/2, n >= 4 d log(1/eps).",
         ClaimKind::inequality, check_lemma_c4});
  r.add({"routing.lemmaC5.distinct_special", "granularity, Lemma C.5",
         "For t < 0.99 d and n >= 750 t: P[X_n < t (1 + 2/10000)] <= exp(-min(d, n)/18).", ClaimKind::inequality, check_lemma_c5});
}

}  // namespace moelab::routing::detail
