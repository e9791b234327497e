// The sparsity topic's claims (compositional paper, Sec. 4.3 and App. A.5): one file per family
// (claims_<family>.cpp holds the family's checks and registers them): claims_tradeoff (Remark 3, the
// interior optimum of Sec. 4.3.3), claims_regimes (conclusions (a)-(d) of Sec. 4.3.3), claims_a5
// (App. A.5). All are closed-form statements checked exhaustively over stated grids. This file fixes
// the order the families register in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/sparsity/detail/claim_support.hpp"

namespace moelab::sparsity {

void register_claims(claims::Registry& r) {
  detail::register_tradeoff_claims(r);
  detail::register_regimes_claims(r);
  detail::register_a5_claims(r);
}

}  // namespace moelab::sparsity
