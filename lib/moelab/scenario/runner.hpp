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
#include "moelab/core/journal.hpp"
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

/// What a run will hold and do, estimated before it starts (StudyDef::cost plus the frame's own
/// storage: sweep points, trial results kept for reduce, rows).
struct RunEstimate {
  double frame_bytes = 0.0;   // the sweep, prepared points and output rows
  double point_bytes = 0.0;   // the largest point's peak (cost model + kept trial results)
  std::size_t worst_point = 0;
  double work = 0.0;          // operations over all points (0 when the study has no cost model)
  double seconds_one_thread = 0.0;  // work over each point's rate (StudyCost::ops_per_second, else nominal)
  bool measured_rate = false;       // some point's rate was measured (StudyCost::ops_per_second > 0)
  bool modelled = false;      // the study declares a cost model
  double peak() const { return frame_bytes + point_bytes; }
};

/// Journal and resume (docs/scaleout.md): with `journal` set, every completed sweep point's
/// rows are appended to that file as the point completes; with `resume`, the points of an earlier
/// run's journal (same scenario, study, seed, trials, backend and moelab build, else InputError) are
/// taken from it and only the missing ones run. The caller removes the journal once the CSV is
/// written (Journal::remove). A point is the unit: a point interrupted half-way is redone whole.
struct RunOptions {
  std::string journal;  // "" = no journal
  bool resume = false;
};

/// In three steps (runner.cpp): plan (validation, cost refusal, the point list), shard (journal and
/// resume, the points over ranks and threads) and assemble (the rows in point order, the metadata).
/// Throws InputError before any work when the study or any point is invalid, or when the estimated
/// memory (RunEstimate::peak) exceeds budget.max_memory (0: machine_memory_bytes(), core/memory.hpp);
/// prints the estimate on stderr when the run is long (over ~10 s of estimated work, or over 1 GB).
///
/// Ranks (core/distributed.hpp, under mpirun): every rank validates; the missing points are shared
/// out, a point heavier than 1/R of the work having its trials split over all ranks (studies whose
/// trial result is trivially copyable), the others assigned whole by weight (largest first, to the
/// least loaded rank). Rank 0 receives every point's rows, journals them and returns the table,
/// assembled in point order: the same bytes for any rank and thread count. Other ranks return an
/// empty table (no columns) and must write nothing. A failure on any rank is thrown on every rank
/// (agree_on_failure: rank 0 the error, the others QuietExit).
CsvTable run_scenario(const StudyDef& study, const Scenario& scenario, const McBudget& budget,
                      const RunOptions& options = {});

/// The identity a run's journal records (kind, tool, study, scenario_hash, seed, trials, backend,
/// points): what must match for --resume.
JournalIdentity run_identity(const StudyDef& study, const Scenario& scenario, const McBudget& budget, Backend backend);

/// Runs one point of `study` from a TOML text of its parameters (tests, claims reusing a study).
CsvTable run_study_text(const StudyDef& study, const std::string& toml_text, const McBudget& budget);

}  // namespace moelab
