// The sparsity topic's claims (compositional paper, Sec. 4.3 and App. A.5): one file per family
// (claims_regimes: conclusions (a)-(d) of Sec. 4.3.3; claims_tradeoff: the interior optimum,
// Remark 3, App. A.5). All are closed-form statements checked exhaustively over stated grids. This
// file lists them for the catalogue.
#include <string>

#include "moelab/claims/claim.hpp"
#include "moelab/sparsity/detail/claim_support.hpp"

namespace moelab::sparsity {

void register_claims(claims::Registry& r) {
  using namespace detail;
  const std::string src = "compositional, ";
  r.add({"sparsity.remark3.peak", src + "Remark 3", "E_est(k) = b sqrt(N k d_N log(T/k) / m) is largest at k = T / e.",
         ClaimKind::equality, remark3_claim});
  r.add({"sparsity.sec433.interior_optimum", src + "Sec. 4.3.3",
         "Balancing E_approx = a N^2 / k against E_est gives an optimal sparsity k* strictly between 1 and T.", ClaimKind::inequality,
         interior_claim});
  r.add({"sparsity.regime.a_dataset_size", src + "Sec. 4.3.3 (a)", "Under a large dataset (m large) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, const RngKey&) { return regime_claim(Regime::a_dataset_size); }});
  r.add({"sparsity.regime.b_router_complexity", src + "Sec. 4.3.3 (b)",
         "Under high router complexity (d_N large) a smaller k* is preferred.", ClaimKind::inequality,
         [](const CheckBudget&, const RngKey&) { return regime_claim(Regime::b_router_complexity); }});
  r.add({"sparsity.regime.c_task_complexity", src + "Sec. 4.3.3 (c)", "Under increasing task complexity (N) a larger k* is preferred.",
         ClaimKind::inequality, [](const CheckBudget&, const RngKey&) { return regime_claim(Regime::c_task_complexity); }});
  r.add({"sparsity.regime.d_total_experts", src + "Sec. 4.3.3 (d)",
         "When T increases, k must be adjusted proportionally to prevent an increase of the estimation error.", ClaimKind::inequality,
         regime_d_claim});
  r.add({"sparsity.a5.reducing_k", src + "App. A.5",
         "With power-law weights, reducing k focuses capacity on high-weight combinations, minimising the approximation error.",
         ClaimKind::inequality, a5_claim});
}

}  // namespace moelab::sparsity
