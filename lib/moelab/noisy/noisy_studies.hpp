// Scenario studies of the `noisy` paper (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::noisy {
/// noisy.risk, noisy.excess_risk, noisy.qda_router.
void add_noisy_studies(std::vector<std::unique_ptr<Study>>& out);
}
