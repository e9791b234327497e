// The spectra topic's claims: one file per family (claims_<family>.cpp holds the family's checks and
// registers them); this file fixes the order the families register in (the suite's order).
#include "moelab/claims/claim.hpp"
#include "moelab/spectra/detail/claim_support.hpp"

namespace moelab::spectra {

void register_claims(claims::Registry& r) {
  detail::register_mp_claims(r);               // Marchenko-Pastur
  detail::register_tw_claims(r);               // Tracy-Widom edge of white Wishart matrices
  detail::register_spike_claims(r);            // spiked covariance
  detail::register_info_plus_noise_claims(r);  // information-plus-noise
}

}  // namespace moelab::spectra
