// noisy, Thm 2: the risks of the Bayes estimators and their order (Sec. 4.2).
#include <fmt/format.h>

#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::noisy::detail {

namespace {

SampledRisk bayes_risks(const Model& m, const CheckBudget& b, const RngKey& key) {
  return sample_risk(m, bayes_dense_estimator(m), bayes_sparse_estimator(m), {}, test_points(b),
                     key.with("test points").seed());
}

Evidence check_thm2(const CheckBudget& b, const RngKey& key, bool dense) {
  const Model m = heterogeneous_model(key.with("model").seed());
  const auto r = bayes_risks(m, b, key);
  return claims::equality_evidence(
      dense ? "MC risk of the dense Bayes estimator vs Thm 2" : "MC risk of the sparse Bayes estimators vs Thm 2",
      dense ? r.dense : r.sparse, dense ? thm2_dense_risk(m) : thm2_sparse_risk(m), kRelevance);
}

Evidence check_thm2_order(const CheckBudget& b, const RngKey& key) {
  const Model m = heterogeneous_model(key.with("model").seed());
  const auto r = bayes_risks(m, b, key);
  const double rd = thm2_dense_risk(m), rs = thm2_sparse_risk(m);
  Evidence e;
  e.printed = claims::upper_bound_test("paired MC R_sparse - R_dense <= 0 (one-sided)", r.difference, 0.0);
  e.control(claims::upper_bound_test("reversed claim R_dense - R_sparse <= 0", r.difference.scaled(-1.0), 0.0));
  // A violation that matters: R_sparse above R_dense by kRelevance of the dense risk.
  e.relevance = kRelevance * rd;
  e.note = fmt::format("closed forms: R_sparse = {:.6g}, R_dense = {:.6g}", rs, rd);
  return e;
}

}  // namespace

void register_thm2_claims(claims::Registry& r) {
  r.add({"noisy.thm2.dense_risk", "noisy, Thm 2",
         "R(beta_dense^Bayes) = sum_i p_i sigma2 beta_i' Sigma_i (p_i Sigma_i + sigma2 I)^-1 beta_i.", ClaimKind::equality,
         [](const CheckBudget& b, const RngKey& k) { return check_thm2(b, k, true); }});
  r.add({"noisy.thm2.sparse_risk", "noisy, Thm 2",
         "R(beta_sparse^Bayes) = sum_i p_i sigma2 beta_i' Sigma_i (Sigma_i + sigma2 I)^-1 beta_i.", ClaimKind::equality,
         [](const CheckBudget& b, const RngKey& k) { return check_thm2(b, k, false); }});
  r.add({"noisy.thm2.sparse_le_dense", "noisy, Thm 2 (Sec. 4.2)", "R(beta_sparse^Bayes) <= R(beta_dense^Bayes).",
         ClaimKind::inequality, check_thm2_order});
}

}  // namespace moelab::noisy::detail
