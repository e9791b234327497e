// Configuration counts (granularity paper): Table 1 (granularity k, sparsity k/m, C(m, k) for the
// listed frontier models), the counting condition of Theorem 3.1, C(m', k') <= c C(m, k)^0.99, and
// Claim A.9 with the entropy chain of its proof. All in log space (core/log_binomial), exact for the sizes used.
#pragma once

#include <string>
#include <vector>

namespace moelab::routing {

/// One row of Table 1.
struct FrontierMoe {
  std::string name;
  int experts = 0;            // m
  int active = 0;             // k (granularity)
  double printed_sparsity = 0.0;  // the table's percentage, as printed
};
/// The eight rows of Table 1, in the paper's order.
const std::vector<FrontierMoe>& table1_models();

/// log C(m, k) and log10 C(m, k).
double log_configurations(int m, int k);
double log10_configurations(int m, int k);

/// Theorem 3.1's hypothesis: C(m', k') <= c C(m, k)^0.99 (log space).
bool theorem31_counting_condition(int m, int k, int m_student, int k_student, double c);
/// The largest c for which it fails, i.e. the c it needs: C(m', k') / C(m, k)^0.99.
double theorem31_required_c(int m, int k, int m_student, int k_student);

/// Binary entropy in bits.
double binary_entropy(double p);

/// Claim A.9, first part of its proof: for m > 2k and 0 < c' < 1/2000,
///   C(m, floor(c' k)) <= C(m, k)^(4 c' log2(1/c')).
/// claim_a9_exponent_printed(c') = 4 c' log2(1/c'); claim_a9_exponent_needed(m, k, c') =
/// log C(m, floor(c' k)) / log C(m, k) (0 when floor(c' k) = 0): the inequality holds iff needed <=
/// printed.
double claim_a9_exponent_printed(double c_prime);
double claim_a9_exponent_needed(int m, int k, double c_prime);
/// Claim A.9's conclusion with its constants: p <= c C(m, k)^0.99 implies
///   p C(m, floor(c' k)) C(k, floor(c' k)) <= c C(m, k)^(0.99 + 8 c' log2(1/c')),
/// which is <= c C(m, k) when 8 c' log2(1/c') <= 0.01. Returns log of the left side minus log of
/// c C(m, k) at the largest p allowed (p = c C(m, k)^0.99): <= 0 means the conclusion holds.
double claim_a9_log_margin(int m, int k, double c, double c_prime);
/// The number of k-subsets S' with |S delta S'| < 2 t + 1, i.e. at most t swaps from S:
/// sum_{j <= t} C(k, j) C(m - k, j) (exact, the "non-neighbours" of the proof of Theorem 3.1), and
/// the paper's bound C(m, t) C(k, t) on it (as logs).
double log_swap_ball(int m, int k, int t);
double log_swap_ball_printed(int m, int k, int t);

}  // namespace moelab::routing
