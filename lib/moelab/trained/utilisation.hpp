// Expert utilisation of a trained top-k MoE against k (the compositional paper's open question on
// routing collapse, "few experts dominate", and its suggested "expert utilization diversity across
// sparsity levels"): for each k = 1..T the SRAVEN-like task's model (compositional_task.hpp) is trained
// at k and its router's masks on the ID test problems are counted:
//   distinct_masks     distinct top-k masks used (at most C(T, k));
//   effective_masks    exp(H) of the mask frequencies (H: Shannon entropy, natural log);
//   effective_experts  exp(H) of the expert loads L_j / sum L, L_j = inputs whose mask holds expert j
//                      (T when every expert carries the same load, 1 under collapse onto one);
//   load_max_over_mean max_j L_j / mean_j L_j (1 balanced, T/k when only k experts are ever used);
//   dead_fraction      the fraction of experts with L_j = 0 on the test set.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/core/keys.hpp"
#include "moelab/trained/compositional_task.hpp"

namespace moelab::trained {

struct Utilisation {
  int distinct_masks = 0;
  double effective_masks = 0.0;
  double effective_experts = 0.0;
  double load_max_over_mean = 0.0;
  double dead_fraction = 0.0;
};

/// The statistics of the file comment for `masks` (bit j: expert j) over T experts (1 <= T <= 64).
Utilisation routing_utilisation(const std::vector<std::uint64_t>& masks, int T);

/// One run of trained.compositional_kstar at spec.k (run_compositional_trial: the same task, data and
/// model seeds, so the accuracies are that study's) with the utilisation of its router on the run's ID
/// test problems.
struct UtilisationRun {
  CompositionalRun run;
  Utilisation usage;
};
UtilisationRun run_utilisation_trial(const CompositionalSpec& spec, const RngKey& key, std::int64_t trial);

}  // namespace moelab::trained
