// Monte-Carlo claims for the Gaussian-product lemmas of the granularity paper's linear separation
// (papers/granularity-expressivity.txt, lines ~925-995): Lemma B.7 (||A B'||_F^2 concentrates at
// d^2 w) and Lemma B.8 (no rank-k matrix, k below the edge c d^2 w / max(d, w)^2, captures half of
// it), A, B ~ N(0,1)^(d x w) iid. Both state C exp(-c min(d, w)) tails with unspecified universal
// constants; here they are checked with explicit ones (stated below, with their reasons), so each
// claim can fail, and each has a control at the nearest wrong statement.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/appendix_lemmas.hpp"
#include "moelab/routing/detail/claim_support.hpp"
#include "moelab/routing/linear_pieces.hpp"

namespace moelab::routing::detail {

using claims::Evidence;
using claims::TestResult;

namespace {

// The envelope both lemmas are checked against: C exp(-c min(d, w)) with C = 1, c = 1/20. Not derived:
// the proof's Hanson-Wright constant is unspecified, and the explicit route through the proof's own
// ingredients (Laurent-Massart for ||A||_F^2 ~ chi^2_{dw}: P[| chi^2_n - n | > n/10] <= 2 exp(-0.0023 n),
// the paper writes exp(-dw/1600)) gives bounds above 0.9 at every size a check can afford. C = 1 is
// the trivial bound at min(d, w) -> 0; c = 1/20 is the largest round rate the smallest sizes allow
// (Lemma B.7's tail is 0.87 at (2, 2) and tends to 0.78 at (2, w -> infinity), against exp(-1/10) = 0.905).
constexpr double kEnvelopeRate = 1.0 / 20.0;
double envelope(int d, int w) { return std::exp(-kEnvelopeRate * std::min(d, w)); }

// One-sided test of H0: P <= bound for a Bernoulli frequency hits / n, a z test with the standard error
// at the boundary, sqrt(bound (1 - bound) / n) (a score test: defined when hits = 0, exact power).
TestResult frequency_upper_bound(std::string form, std::int64_t hits, std::int64_t n, double bound) {
  const double p = static_cast<double>(hits) / static_cast<double>(n);
  const double se = std::sqrt(std::max(bound * (1.0 - bound), 1e-12) / static_cast<double>(n));
  return claims::z_upper_bound_test(std::move(form), p, se, bound, n);
}

// Draws `n` pairs A, B ~ N(0,1)^(d x w) (chunks of 250 on RandomStream(seed, property_test, chunk)) and
// hands each pair to `body`, which returns a vector of indicator counts; returns their sums.
template <class F>
std::vector<std::int64_t> count_pairs(int d, int w, std::int64_t n, std::uint64_t seed, std::size_t outputs, F&& body) {
  constexpr std::int64_t chunk = 250;
  const auto parts = parallel_map<std::vector<std::int64_t>>(static_cast<std::size_t>((n + chunk - 1) / chunk), [&](std::size_t c) {
    const RandomStream rs(seed, StreamTag::property_test, c);
    Eigen::MatrixXd A(d, w), B(d, w);
    std::vector<std::int64_t> h(outputs, 0);
    const std::int64_t m = std::min(chunk, n - static_cast<std::int64_t>(c) * chunk);
    const auto dw = static_cast<std::uint64_t>(d) * static_cast<std::uint64_t>(w);
    for (std::int64_t i = 0; i < m; ++i) {
      rs.fill_normal(2 * dw * static_cast<std::uint64_t>(i), dw, A.data());
      rs.fill_normal(2 * dw * static_cast<std::uint64_t>(i) + dw, dw, B.data());
      body(A, B, h);
    }
    return h;
  });
  std::vector<std::int64_t> total(outputs, 0);
  for (const auto& h : parts)
    for (std::size_t j = 0; j < outputs; ++j) total[j] += h[j];
  return total;
}

// ---- Lemma B.7: P[| ||A B'||_F^2 - d^2 w | > d^2 w / 5] <= C exp(-c min(d, w)) ----
// Checked with C = 1, c = 1/20 by Monte-Carlo on a grid with min(d, w) = 2..24, both orders, and at
// fixed d = 2 with w up to 400. At fixed d and w -> infinity, ||A B'||_F^2 / w -> chi^2_{d^2} (the d^2
// entries a_i . b_j / sqrt(w) are uncorrelated and jointly asymptotically Gaussian), so the tail tends to
// P[| chi^2_{d^2} - d^2 | > d^2 / 5] > 0: it does not vanish in w, only in min(d, w). Those limits are
// checked exactly for d = 2..24 against the same envelope. Controls (the nearest wrong statements):
// the rate in max(d, w) (exp(-max(d, w)/20), violated at (2, 400) where the tail stays near its chi^2_4
// limit 0.78) and the threshold d^2 w / 20 instead of / 5 (a tail above the envelope at small sizes).
struct B7Size {
  int d, w;
};
constexpr B7Size kB7Sizes[] = {{2, 2},  {3, 3},  {4, 4},   {6, 6},  {8, 8},  {12, 12}, {16, 16}, {24, 24}, {2, 8}, {8, 2},
                               {3, 12}, {12, 3}, {4, 16},  {16, 4}, {6, 24}, {24, 6},  {2, 100}, {2, 400}};

Evidence check_lemma_b7(const claims::CheckBudget& b, const RngKey& key) {
  const std::int64_t n = b.pick<std::int64_t>(5000, 40000);
  std::vector<TestResult> printed, control_threshold;
  std::vector<double> relevance;
  std::string detail;
  std::int64_t hits_2_400 = 0;
  // Decay rate: weighted least squares of log P against min(d, w) on the square sizes (weights
  // P^2 n / (P (1 - P)), the delta-method variance of log P).
  std::vector<double> fit_x, fit_y, fit_w;
  for (std::size_t si = 0; si < std::size(kB7Sizes); ++si) {
    const auto [d, w] = kB7Sizes[si];
    const double mean = static_cast<double>(d) * d * w;
    const auto hits = count_pairs(d, w, n, key.with("b7", static_cast<std::int64_t>(si)).seed(), 2,
                                  [&](const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, std::vector<std::int64_t>& h) {
                                    const double dev = std::abs((A * B.transpose()).squaredNorm() - mean);
                                    h[0] += dev > mean / 5.0;
                                    h[1] += dev > mean / 20.0;
                                  });
    const double bound = envelope(d, w), p = static_cast<double>(hits[0]) / n;
    printed.push_back(frequency_upper_bound(fmt::format("({}, {})", d, w), hits[0], n, bound));
    relevance.push_back(0.05);
    control_threshold.push_back(frequency_upper_bound(fmt::format("({}, {}), threshold / 20", d, w), hits[1], n, bound));
    if (d == 2 && w == 400) hits_2_400 = hits[0];
    if (d == w && hits[0] > 0 && hits[0] < n) {
      fit_x.push_back(d), fit_y.push_back(std::log(p)), fit_w.push_back(p * n / (1.0 - p));
    }
    detail += fmt::format("{}({}, {}) {:.3f}/{:.3f}", si ? ", " : "", d, w, p, bound);
  }
  // The w -> infinity limits, exactly.
  std::string limits;
  for (const int d : {2, 3, 4, 6, 8, 12, 16, 24}) {
    const double k = static_cast<double>(d) * d;
    const double p = chi2_upper_tail(k, 1.2 * k) + chi2_lower_tail(k, 0.8 * k), bound = std::exp(-kEnvelopeRate * d);
    printed.push_back(claims::deterministic_test(fmt::format("w -> infinity at d = {}", d), p, bound, p <= bound));
    relevance.push_back(0.0);
    limits += fmt::format("{}d = {}: {:.4f}", d == 2 ? "" : ", ", d, p);
  }
  double slope = NAN, slope_se = NAN;
  if (fit_x.size() >= 2) {
    const auto fit = weighted_least_squares({std::vector<double>(fit_x.size(), 1.0), fit_x}, fit_y, fit_w);
    slope = fit.coef[1], slope_se = fit.se[1];
  }
  Evidence e;
  e.printed = claims::combine_bonferroni("P[| |A B'|_F^2 - d^2 w | > d^2 w / 5] <= exp(-min(d, w) / 20) on 18 sizes and in the "
                                         "w -> infinity limits d = 2..24",
                                         printed);
  e.relevance = claims::combined_relevance(e.printed, printed, relevance);  // an excess of 0.05 over the envelope must show
  e.control(frequency_upper_bound("the rate in max(d, w): P <= exp(-max(d, w) / 20) at (2, 400)", hits_2_400, n,
                                  std::exp(-kEnvelopeRate * 400)));
  e.control(claims::combine_bonferroni("the threshold d^2 w / 20 instead of d^2 w / 5, same envelope", control_threshold));
  e.note = fmt::format("{} pairs per size, P / envelope exp(-min/20): {}; limits w -> infinity P[|chi^2_(d^2) - d^2| > d^2/5]: {}; "
                       "fitted decay on the squares: log P = a {:+.4f} (+- {:.4f}) min(d, w)",
                       n, detail, limits, slope, slope_se);
  return e;
}

// ---- Lemma B.8: for k < c d^2 w / max(d, w)^2, P[min_{rank U < k} |A B' - U|_F^2 < d^2 w / 2] <= C exp(-c min(d, w)) ----
// Checked in the stronger form of the proof's Eckart-Young step (rank U <= k, the tail sum_{i > k}
// sigma_i^2(A B'), exact per draw), with k the largest integer below c d^2 w / max(d, w)^2 (the event
// grows with k, so the edge is the hardest case), c = 1/10, and the envelope exp(-min(d, w)/20). Why
// 1/10: for square A, B the squared singular values of A B' / d^(3/2) follow the Fuss-Catalan law, whose
// top 11.7% carry half of the total (measured at d = w = 1000: the top 117 of 1000), so any c < 0.117
// holds for large square sizes and c >= 0.117 fails; square sizes are the worst case (for d >= w the
// edge is c w, a fraction c of the w nonzero singular values). Control: c = 1/6 at (32, 32) (k = 5),
// beyond that edge, where the top 5 carry more than half with probability near 1 against
// exp(-32/20) = 0.20. (k = min(d, w), the brief's cruder control, has a tail sigma_min^2 and probability 1.)
struct B8Size {
  int d, w;
};
constexpr B8Size kB8Sizes[] = {{12, 12}, {16, 16}, {24, 24}, {32, 32}, {48, 24}, {24, 48}, {32, 16}};

// The largest integer k < d^2 w / (q max(d, w)^2), i.e. c = 1/q, in integer arithmetic.
int b8_edge(int d, int w, int q) {
  const std::int64_t num = static_cast<std::int64_t>(d) * d * w, den = static_cast<std::int64_t>(q) * std::max(d, w) * std::max(d, w);
  return static_cast<int>((num + den - 1) / den) - 1;
}

Evidence check_lemma_b8(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int q = 10, q_control = 6;  // c = 1/10, control c = 1/6
  const std::int64_t n = b.pick<std::int64_t>(3000, 20000);
  std::vector<TestResult> printed;
  std::vector<double> relevance;
  std::string detail;
  std::optional<TestResult> control;
  for (std::size_t si = 0; si < std::size(kB8Sizes); ++si) {
    const auto [d, w] = kB8Sizes[si];
    const int k = b8_edge(d, w, q), kc = b8_edge(d, w, q_control);
    const bool with_control = d == 32 && w == 32;
    const double half = 0.5 * d * d * w;
    const auto hits = count_pairs(d, w, n, key.with("b8", static_cast<std::int64_t>(si)).seed(), 2,
                                  [&](const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, std::vector<std::int64_t>& h) {
                                    // sigma_i^2(A B'), descending (min(d, w) values).
                                    const Eigen::VectorXd s2 = product_singular_values2(A, B);
                                    const double total = s2.sum();
                                    h[0] += total - s2.head(std::max(k, 0)).sum() < half;
                                    if (with_control) h[1] += total - s2.head(kc).sum() < half;
                                  });
    const double bound = envelope(d, w);
    printed.push_back(frequency_upper_bound(fmt::format("({}, {}), k = {}", d, w, k), hits[0], n, bound));
    relevance.push_back(0.06);
    if (with_control)
      control = frequency_upper_bound(fmt::format("c = 1/6 at (32, 32): k = {}, P <= exp(-32/20)", kc), hits[1], n, bound);
    detail += fmt::format("{}({}, {}) k = {}: {:.4f}/{:.3f}", si ? ", " : "", d, w, k, static_cast<double>(hits[0]) / n, bound);
  }
  Evidence e;
  e.printed = claims::combine_bonferroni("P[min_{rank U <= k} |A B' - U|_F^2 < d^2 w / 2] <= exp(-min(d, w) / 20) at the edge k < "
                                         "d^2 w / (10 max(d, w)^2), 7 sizes",
                                         printed);
  e.relevance = claims::combined_relevance(e.printed, printed, relevance);  // an excess of 0.06 over the envelope must show
  e.control(*control);
  e.note = fmt::format("{} pairs per size, Eckart-Young tail exact per draw; P / envelope: {}; control c = 1/6 at (32, 32), k = {}: "
                       "P = {:.4f} vs {:.4f}",
                       n, detail, b8_edge(32, 32, q_control), control->estimate, control->reference);
  return e;
}

}  // namespace

void register_gaussian_products_claims(claims::Registry& r) {
  r.add({"routing.lemmaB7.product_norm", "granularity, Lemma B.7 (Hanson-Wright; checked with explicit constants)",
         "P[| |A B'|_F^2 - d^2 w | > d^2 w / 5] <= C exp(-c min(d, w)) for A, B ~ N(0,1)^(d x w) (checked with C = 1, c = 1/20 for "
         "min(d, w) = 2..24, both orders, and w -> infinity at fixed d).",
         ClaimKind::bound, check_lemma_b7});
  r.add({"routing.lemmaB8.low_rank_tail", "granularity, Lemma B.8 (Eckart-Young-Mirsky; checked with explicit constants)",
         "For k < c d^2 w / max(d, w)^2, P[min_{rank U < k} |A B' - U|_F^2 < d^2 w / 2] <= C exp(-c min(d, w)) (checked for rank U <= k "
         "at the edge with c = 1/10, envelope exp(-min(d, w) / 20)).",
         ClaimKind::bound, check_lemma_b8});
}

}  // namespace moelab::routing::detail
