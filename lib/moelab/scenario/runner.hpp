// Runs a scenario through its study's declaration (scenario/study.hpp): validates every sweep point
// first (declared domains, the study's own checks, unknown keys), then runs the points in order,
// each one's trials in parallel and reduced in trial order, and returns the CSV. The runner owns
// the seeds: point p of study S at suite seed s draws from RngKey::root(s).with(S).with(coords(p)),
// so a point's numbers do not depend on which other points the sweep holds.
#pragma once

#include <any>
#include <string>
#include <vector>

#include "moelab/core/csv.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab {

/// The study a scenario names, among `known`; throws InputError (listing the known names) if none.
const StudyDef& study_for(const Scenario& scenario, const std::vector<StudyDef>& known);

/// The key of one sweep point: (suite seed, study name, the point's coordinates as written).
RngKey point_key(std::uint64_t seed, const std::string& study, const SweepPoint& point);

/// Every sweep point prepared (validated, unknown keys rejected); throws InputError at the first
/// invalid point. Nothing runs.
std::vector<std::any> prepare_scenario(const StudyDef& study, const Scenario& scenario);

/// Throws InputError before any work when the study or any point is invalid.
CsvTable run_scenario(const StudyDef& study, const Scenario& scenario, const McBudget& budget);

/// Runs one point of `study` from a TOML text of its parameters (tests, claims reusing a study).
CsvTable run_study_text(const StudyDef& study, const std::string& toml_text, const McBudget& budget);

}  // namespace moelab
