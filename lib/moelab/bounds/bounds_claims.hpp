// The generalization-bound statements of the compositional paper (Theorem 1, Lemmas 5-11, Eq. 13, 16,
// 17-18) and the routing-pattern counts as claims for `moelab check` (docs/claims.md lists them).
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::bounds {
void register_bounds_claims(claims::Registry& r);
}
