// The k* trade-off of the compositional paper (Sec. 4.3, Remark 3, regimes (a)-(d), App. A.5) as claims for
// `moelab check` (docs/claims.md lists them).
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::sparsity {
void register_sparsity_claims(claims::Registry& r);
}
