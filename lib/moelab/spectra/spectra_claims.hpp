// The random-matrix laws of spectra/ as claims for `moelab check` (docs/claims.md lists them).
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::spectra {
void register_spectra_claims(claims::Registry& r);
}
