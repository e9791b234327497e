// The verdict engine: runs claims and judges each at one level, alpha / (number of claims the
// registered suite holds), for its printed, exact and control tests alike (Bonferroni over the
// registered suite: the family-wise error stays below alpha, and a claim's verdict depends on its own
// evidence only, never on which other claims were selected). Every negative control must be rejected
// at that level, `holds` needs power kPower there against the claim's relevance, and `fails` needs
// a deviation that reaches the relevance, not merely one that is detectable (`erratum`: the printed
// form rejected, an exact form not).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/core/csv.hpp"

namespace moelab::claims {

struct Outcome {
  const Claim* claim = nullptr;
  Evidence evidence;
  Verdict verdict = Verdict::inconclusive;
  double printed_p_adj = 1.0;  // min(1, p x family): rejected when below alpha
  double exact_p_adj = 1.0;
  bool control_rejected = false;  // every control rejected at alpha / family
  std::size_t controls_rejected = 0;
  double relevance = 0.0;        // resolved_relevance(evidence)
  double min_detectable = 0.0;   // of the printed test at alpha / family, power kPower
  std::string reason;  // one line: why this verdict
  double seconds = 0.0;
  /// The verdict documented for this claim (its reviewed `--quick --seed 1` verdict; set by the front
  /// end from the catalogue), nullopt when none is documented.
  std::optional<Verdict> documented;
};


struct SuiteResult {
  std::vector<Outcome> outcomes;
  double alpha = 0.01;
  std::size_t family_size = 0;  // claims in the registered suite: every test is judged at alpha / family_size
};

/// How an outcome compares with its documented verdict: "as documented"; "decided at --full" (the
/// documented quick verdict is inconclusive and the larger budget decides it); "changed"; or
/// "undocumented". Only "changed" makes `moelab check` exit 1.
std::string documented_status(const Outcome& o, const CheckBudget& budget);
/// Outcomes whose documented_status is "changed".
std::size_t changed_count(const SuiteResult& r, const CheckBudget& budget);

/// Assigns verdicts given the evidence (pure function: tested on synthetic evidence). `family` is the
/// number of claims in the registered suite (catalogue::claims().all().size() for moelab's own), at
/// least outcomes.size(): every test is judged at alpha / family, each outcome on its own.
SuiteResult judge(std::vector<Outcome> outcomes, double alpha, std::size_t family);

/// Runs the checks (claims in order, each parallel inside) and judges them (judge's `family`).
SuiteResult run_suite(const std::vector<const Claim*>& claims, const CheckBudget& budget, double alpha,
                      std::size_t family, bool show_progress);

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
                                    const std::vector<std::uint64_t>& seeds, double alpha, std::size_t family,
                                    const SuiteOptions& options);

/// check.csv: one row per claim.
CsvTable suite_table(const SuiteResult& r, const CheckBudget& budget);
/// check.md: a table and one paragraph per claim.
std::string suite_markdown(const SuiteResult& r, const CheckBudget& budget);
/// The terminal summary printed by `moelab check`.
std::string suite_terminal(const SuiteResult& r, const CheckBudget& budget);

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
