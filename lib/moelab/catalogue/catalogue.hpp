// The catalogue: the one place that knows every topic (DESIGN.md, Layers). Front ends (the CLI, the
// Python module) ask it for the studies and claims; topics know only the frame.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::catalogue {

/// Every study of every topic, in `moelab list` order.
const std::vector<StudyDef>& studies();
/// The study named `name`, or nullptr.
const StudyDef* find_study(const std::string& name);
/// Every claim of every topic.
const claims::Registry& claims();

/// The documented verdict of claim `id`: its verdict under `moelab check --quick --seed 1`, as reviewed
/// and recorded in docs/claims.md (the table lib/moelab/catalogue/documented_verdicts.txt, compiled
/// in; tests/catalogue/suite_verdicts_test.cpp keeps it equal to the suite). nullopt for an unknown id.
std::optional<claims::Verdict> documented_verdict(const std::string& id);

/// Sets every outcome's `documented` field from documented_verdict.
void annotate_documented(claims::SuiteResult& r);

}  // namespace moelab::catalogue
