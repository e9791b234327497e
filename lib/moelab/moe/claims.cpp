// Claims of the moe topic (trained models).
#include "moelab/claims/claim.hpp"

namespace moelab::moe {

void register_claims(claims::Registry&) {}

}  // namespace moelab::moe
