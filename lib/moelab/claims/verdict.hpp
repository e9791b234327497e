// The verdict engine: runs claims, controls the family-wise error across the whole suite (Holm at
// level alpha over every printed and exact test), requires every negative control to be rejected at
// the strictest (Bonferroni) level and the printed test to have power kPower against a deviation of
// the claim's relevance at that level, and assigns holds / fails / erratum / inconclusive.
#pragma once

#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/core/csv.hpp"

namespace moelab::claims {

struct Outcome {
  const Claim* claim = nullptr;
  Evidence evidence;
  Verdict verdict = Verdict::inconclusive;
  double printed_p_holm = 1.0;
  double exact_p_holm = 1.0;
  bool control_rejected = false;  // every control rejected at the Bonferroni level
  std::size_t controls_rejected = 0;
  double relevance = 0.0;        // resolved_relevance(evidence)
  double min_detectable = 0.0;   // of the printed test at the strictest level, power kPower
  std::string reason;  // one line: why this verdict
  double seconds = 0.0;
};

struct SuiteResult {
  std::vector<Outcome> outcomes;
  double alpha = 0.01;
  std::size_t family_size = 0;  // number of tests in the Holm family
};

/// Assigns verdicts given the evidence (pure function: tested on synthetic evidence).
SuiteResult judge(std::vector<Outcome> outcomes, double alpha);

/// Runs the checks (claims in order, each parallel inside) and judges them.
SuiteResult run_suite(const std::vector<const Claim*>& claims, const CheckBudget& budget, double alpha,
                      bool show_progress);

/// How run_suites shares out, records and shows its work.
struct SuiteOptions {
  std::string journal;  // "" = none; else every claim's evidence is appended as it completes (core/journal.hpp)
  bool resume = false;  // take the evidence of an earlier run's journal (same claims, seeds, budget, build)
  bool show_progress = false;
  std::string command;  // recorded in the journal's identity ("check --quick", "check --full --seeds 1..10")
};

/// The suite at every seed of `seeds` (one SuiteResult each, in order), judged per seed. The units
/// (seed, claim) are shared out over the ranks (core/distributed.hpp; round-robin in unit order, as
/// the cost of a claim is not modelled), each claim's evidence depends only on (seed, claim id), and
/// rank 0 judges the evidence in claim order: the same results for any rank and thread count. Rank 0
/// gets the results; other ranks an empty vector. A failure on any rank is thrown on every rank
/// (agree_on_failure). With a journal, --resume redoes only the claims it lacks.
std::vector<SuiteResult> run_suites(const std::vector<const Claim*>& claims, const CheckBudget& budget,
                                    const std::vector<std::uint64_t>& seeds, double alpha, const SuiteOptions& options);

/// check.csv: one row per claim.
CsvTable suite_table(const SuiteResult& r, const CheckBudget& budget);
/// check.md: a table and one paragraph per claim.
std::string suite_markdown(const SuiteResult& r, const CheckBudget& budget);
/// The terminal summary printed by `moelab check`.
std::string suite_terminal(const SuiteResult& r);

/// Verdict stability over suite seeds (`moelab check --seeds A..B`): `runs[i]` is the suite at
/// `seeds[i]`, all over the same claims in the same order. One row per claim: how many seeds gave
/// each verdict, the modal verdict, and the seeds that disagree with it.
struct Stability {
  CsvTable table;
  std::string markdown;
  std::size_t changes = 0;  // (claim, seed) pairs whose verdict differs from the claim's modal one
};
Stability verdict_stability(const std::vector<SuiteResult>& runs, const std::vector<std::uint64_t>& seeds,
                            const CheckBudget& budget);

}  // namespace moelab::claims
