// The `noisy` paper's claims for `moelab check` (docs/claims.md lists them with their verdicts).
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::noisy {
void register_noisy_claims(claims::Registry& r);
}
