// The covering-number and compute-optimal statements of the scaling paper as claims for `moelab check`.
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::scaling {
void register_scaling_claims(claims::Registry& r);
}
