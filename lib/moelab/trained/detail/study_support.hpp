// Shared by the trained topic's study files: the compositional task's declarations, reading and cost
// and the scaling studies' axis (defined in studies.cpp, used by studies_utilisation.cpp and
// studies_scaling_gap.cpp).
#pragma once

#include <vector>

#include "moelab/scenario/study.hpp"
#include "moelab/trained/compositional_task.hpp"

namespace moelab::trained::detail {

/// The task, model, training and gate parameters of trained.compositional_kstar, without k.
std::vector<ParamDecl> compositional_task_params();
/// The point's CompositionalSpec (k left at its default), validated with messages naming the key.
CompositionalSpec read_compositional_task(const PointParams& p);
/// Peak bytes of one run per thread, and the training flops of one run at k.
double compositional_run_bytes(const CompositionalSpec& s);
double compositional_run_work(const CompositionalSpec& s, int k);

/// The axis of trained.scaling and trained.scaling_gap: params.axis (active, data or experts) and its
/// three value lists (widths, train_sizes, expert_counts), each of at least `min_values` values.
std::vector<ParamDecl> scaling_axis_params(int min_values);

}  // namespace moelab::trained::detail
