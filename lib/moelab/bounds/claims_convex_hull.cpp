// Claim: Lemma 10 (convex hull, Eq. 42) of the compositional paper: constant convex combinations of T
// experts keep the Rademacher complexity of H (docs/bounds.md, finding 3).
#include <cstdint>
#include <string>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/lemma_checks.hpp"

namespace moelab::bounds::detail {

namespace {

// Lemma 10: constant convex combinations keep R(H); the x-dependent gates of Eq. 24 -> 25 do not.
Evidence check_convex_hull(const CheckBudget& b, const RngKey& key) {
  const int n = 48, m = 30, T = 3;
  const Eigen::MatrixXd experts = cosine_class(5, n);
  const auto constant = simplex_vertex_gates(T, n);
  const auto trials = b.pick<std::uint64_t>(4000, 20000);
  const auto r = check_lemma10(uniform_domain(n), experts, constant, {partition_gate(T, n)}, m, trials, key.seed());
  Evidence e;
  e.printed = as_test("Eq. 42: R(conv_T H) <= R(H) for constant weights (per draw, largest excess)", r.statement);
  e.control(as_test("Eq. 24 -> 25: the same for x-dependent gates", r.control));
  // The printed check is exact per draw (no sampling error); an excess of 5 % of R(H) would matter.
  e.relevance = 0.05 * r.rademacher_experts;
  e.note = fmt::format("5 cosines on {} points, T = {}, m = {}, {} draws: R(H) = {:.4f}, R(conv) = {:.4f}, R(gated) = {:.4f}",
                       n, T, m, trials, r.rademacher_experts, r.rademacher_convex, r.rademacher_gated);
  return e;
}

}  // namespace

void register_convex_hull_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"bounds.lemma10.convex_hull", src + "Lemma 10, Eq. 42",
         "Convex combinations of T experts with constant weights have the Rademacher complexity of H.", ClaimKind::inequality,
         check_convex_hull});
}

}  // namespace moelab::bounds::detail
