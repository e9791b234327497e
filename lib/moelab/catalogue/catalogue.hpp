// The catalogue: the one place that knows every topic (DESIGN.md, Layers). Front ends (the CLI, the
// Python module) ask it for the studies and claims; topics know only the frame.
#pragma once

#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::catalogue {

/// Every study of every topic, in `moelab list` order.
const std::vector<StudyDef>& studies();
/// The study named `name`, or nullptr.
const StudyDef* find_study(const std::string& name);
/// Every claim of every topic.
const claims::Registry& claims();

}  // namespace moelab::catalogue
