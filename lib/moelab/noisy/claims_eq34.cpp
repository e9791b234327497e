// noisy, Eq. 3 and Eq. 4 (A.1): the risk functional of any linear estimator, and the Bayes
// estimators as its stationary points.
#include <cmath>

#include <fmt/format.h>

#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/risk.hpp"
#include "moelab/noisy/simulate.hpp"

namespace moelab::noisy::detail {

namespace {

Evidence check_risk_functional(const CheckBudget& b, const RngKey& key) {
  const std::uint64_t model_seed = key.with("model").seed();
  const Model m = heterogeneous_model(model_seed);
  // Arbitrary (non-optimal) estimators: the functional must hold for any b, not just at the optimum.
  const Eigen::VectorXd bd = 0.7 * m.beta_full() + random_vector(m.d(), 0.1, model_seed, 100);
  const SparseEstimator bs = split(m, 1.2 * m.beta_full() + random_vector(m.d(), 0.1, model_seed, 101));
  const auto r = sample_risk(m, bd, bs, {}, test_points(b), key.with("test points").seed());
  const double rd = dense_risk(m, bd), rs = sparse_risk(m, bs);
  const TestResult parts[] = {claims::equality_test("MC risk of a dense estimator vs Eq. 4", r.dense, rd),
                              claims::equality_test("MC risk of a per-expert estimator vs Eq. 4", r.sparse, rs)};
  Evidence e;
  e.printed = claims::combine_bonferroni("Eq. 4 (dense and per-expert), Bonferroni over 2", parts);
  e.control(claims::equality_test(fmt::format("dense MC risk vs {} x Eq. 4", 1 + kRelevance), r.dense, (1 + kRelevance) * rd));
  e.control(claims::equality_test(fmt::format("per-expert MC risk vs {} x Eq. 4", 1 + kRelevance), r.sparse,
                                  (1 + kRelevance) * rs));
  const double rel[] = {kRelevance * rd, kRelevance * rs};
  e.relevance = combined_relevance(e.printed, parts, rel);
  e.note = fmt::format("dense: MC {:.6g} +- {:.2g} vs {:.6g}; per-expert: MC {:.6g} +- {:.2g} vs {:.6g}", r.dense.mean(),
                       r.dense.standard_error(), rd, r.sparse.mean(), r.sparse.standard_error(), rs);
  return e;
}

// The directional derivative along a unit u is linear in the point: at bayes + t u it is 2 t u'Hu,
// so at a point `fraction` of the way to `wrong` it is `fraction` x the derivative at `wrong`. The
// relevance of a stationarity claim: a stationary point displaced kRelevance of the way toward the
// other estimator must be detected.

Evidence check_dense_stationary(const CheckBudget& b, const RngKey& key) {
  const Model m = heterogeneous_model(key.with("model").seed());
  const Eigen::VectorXd bayes = bayes_dense_estimator(m);
  const Eigen::VectorXd wrong = stack(m, bayes_sparse_estimator(m));  // the per-expert optimum, used densely
  const Eigen::VectorXd u = (wrong - bayes).normalized();
  const auto at_bayes = sample_dense_directional_derivative(m, bayes, u, test_points(b), key.with("at bayes").seed());
  const auto at_wrong = sample_dense_directional_derivative(m, wrong, u, test_points(b), key.with("at wrong").seed());
  const double wrong_derivative = dense_risk_gradient(m, wrong).dot(u);
  Evidence e;
  e.printed = claims::equality_test("MC directional derivative of the risk at Eq. 3's dense estimator vs 0", at_bayes, 0.0);
  e.control(claims::equality_test("same at the per-expert Bayes estimator used densely (not stationary) vs 0", at_wrong, 0.0));
  e.relevance = kRelevance * std::fabs(wrong_derivative);
  e.note = fmt::format("closed-form derivative along u at the wrong point: {:.6g}; relevance: a stationary point {}% of "
                       "the way there",
                       wrong_derivative, 100 * kRelevance);
  return e;
}

Evidence check_sparse_stationary(const CheckBudget& b, const RngKey& key) {
  const Model m = heterogeneous_model(key.with("model").seed());
  const SparseEstimator bayes = bayes_sparse_estimator(m);
  const SparseEstimator wrong = split(m, bayes_dense_estimator(m));
  SparseEstimator u;
  double norm2 = 0;
  for (int i = 0; i < m.k(); ++i) {
    u.push_back(wrong[static_cast<std::size_t>(i)] - bayes[static_cast<std::size_t>(i)]);
    norm2 += u.back().squaredNorm();
  }
  for (auto& ui : u) ui /= std::sqrt(norm2);
  const auto at_bayes = sample_sparse_directional_derivative(m, bayes, u, test_points(b), key.with("at bayes").seed());
  const auto at_wrong = sample_sparse_directional_derivative(m, wrong, u, test_points(b), key.with("at wrong").seed());
  const auto g = sparse_risk_gradient(m, wrong);
  double wrong_derivative = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) wrong_derivative += g[i].dot(u[i]);
  Evidence e;
  e.printed = claims::equality_test("MC directional derivative at Eq. 3's per-expert estimators vs 0", at_bayes, 0.0);
  e.control(claims::equality_test("same at the dense Bayes blocks used per expert (not stationary) vs 0", at_wrong, 0.0));
  e.relevance = kRelevance * std::fabs(wrong_derivative);
  e.note = fmt::format("closed-form derivative along u at the wrong point: {:.6g}; relevance: a stationary point {}% of "
                       "the way there",
                       wrong_derivative, 100 * kRelevance);
  return e;
}

}  // namespace

void register_eq34_claims(claims::Registry& r) {
  r.add({"noisy.eq4.risk_functional", "noisy, Eq. 4 (A.1)",
         "The risk of any dense or per-expert linear estimator is sum_i p_i [(b_i-beta_i)' Sigma_i (b_i-beta_i) + sigma2 ||b||^2].",
         ClaimKind::equality, check_risk_functional});
  r.add({"noisy.eq3.dense_bayes", "noisy, Eq. 3 (A.1)",
         "beta_dense^Bayes = [p_i (p_i Sigma_i + sigma2 I)^-1 Sigma_i beta_i*]_i is a stationary point of the risk.",
         ClaimKind::equality, check_dense_stationary});
  r.add({"noisy.eq3.sparse_bayes", "noisy, Eq. 3 (A.1)",
         "beta_sparse,i^Bayes = (Sigma_i + sigma2 I)^-1 Sigma_i beta_i* is a stationary point of the per-expert risk.",
         ClaimKind::equality, check_sparse_stationary});
}

}  // namespace moelab::noisy::detail
