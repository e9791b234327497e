// The routing-geometry lemmas of the granularity paper as claims for `moelab check`
// (docs/claims.md lists them, docs/routing.md derives the exact forms).
#pragma once

namespace moelab::claims {
class Registry;
}

namespace moelab::routing {
void register_routing_claims(claims::Registry& r);
}
