// Claim: the empirical Rademacher complexity (Definition 2, Eq. 4 of the compositional paper): the
// Monte-Carlo estimator equals exact enumeration; Massart's finite-class bound holds.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/rademacher.hpp"
#include "moelab/core/distributions.hpp"

namespace moelab::bounds::detail {

namespace {

// Monte-Carlo equals exact enumeration (norm-bounded linear class, m = 16); the control treats Jensen's
// bound as the value.
Evidence check_rademacher_estimators(const CheckBudget& b, const RngKey& key) {
  const int d = 5, m = 16;
  const std::uint64_t seed = key.seed();
  Eigen::MatrixXd X(d, m);
  RandomStream(seed, StreamTag::bounds, 0).fill_normal(0, d * m, X.data());
  const double exact = linear_class_rademacher(X, 1.0);
  const double jensen = linear_class_rademacher_bound(X, 1.0);
  const auto draws = b.pick<std::uint64_t>(200000, 2000000);
  const auto mc = linear_class_rademacher_mc(X, 1.0, draws, RandomStream(seed, StreamTag::bounds, 1));
  // Finite class: Massart's bound must hold for the exact value.
  Eigen::MatrixXd F(12, m);
  RandomStream(seed, StreamTag::bounds, 2).fill_normal(0, 12 * m, F.data());
  const double fin = finite_class_rademacher(F), massart = massart_bound(F);
  const std::vector<TestResult> parts{
      claims::z_equality_test("Monte-Carlo R(F, S) = exact enumeration, linear class ||w|| <= 1", mc.mean, mc.standard_error,
                              exact, static_cast<std::int64_t>(draws)),
      claims::deterministic_test("exact R(F, S) <= Massart's bound, 12 Gaussian vectors", fin, massart, fin <= massart)};
  Evidence e;
  // One statement with two parts: it is rejected when either is (Bonferroni).
  e.printed = claims::combine_bonferroni("Monte-Carlo R(F, S) = exact enumeration (linear class ||w|| <= 1); Massart holds", parts);
  e.control(claims::z_equality_test("Monte-Carlo = Jensen's bound (B/m) sqrt(sum ||x_i||^2)", mc.mean, mc.standard_error, jensen,
                                    static_cast<std::int64_t>(draws)));
  // Power: the Monte-Carlo estimate must tell the exact value from Jensen's bound (the control's form).
  e.relevance = std::fabs(jensen - exact);
  e.note = fmt::format("d = {}, m = {}, {} sign draws: MC {:.5f} +- {:.5f}, exact {:.5f}, Jensen {:.5f}; finite class of 12 "
                       "Gaussian vectors: exact {:.4f} <= Massart {:.4f}{}",
                       d, m, draws, mc.mean, mc.standard_error, exact, jensen, fin, massart, fin <= massart ? "" : " (VIOLATED)");
  return e;
}

}  // namespace

void register_rademacher_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"bounds.rademacher.estimators", src + "Definition 2, Eq. 4; Massart",
         "The Monte-Carlo empirical Rademacher complexity equals the exact enumeration; Massart's bound holds.",
         ClaimKind::equality, check_rademacher_estimators});
}

}  // namespace moelab::bounds::detail
