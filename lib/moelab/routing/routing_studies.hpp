// Scenario studies of routing/ (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::routing {
/// routing.mass_histogram, routing.balance, routing.packing, routing.separation, routing.configurations.
void add_routing_studies(std::vector<std::unique_ptr<Study>>& out);
}
