// Claims of the trained topic (theory measured on trained MoEs).
#include "moelab/claims/claim.hpp"

namespace moelab::trained {

void register_claims(claims::Registry& r) { (void)r; }

}  // namespace moelab::trained
