// Shared by the trained topic's study files: the compositional task's declarations, reading and cost
// and the scaling studies' axis (defined in studies.cpp, used by studies_utilisation.cpp and
// studies_scaling_gap.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "moelab/scenario/study.hpp"
#include "moelab/trained/compositional_task.hpp"
#include "moelab/trained/scaling_experiment.hpp"

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
/// The values of the list that `axis` (named `axis_name` in messages) reads: required, at least
/// `min_values` of them (else `too_few`, the study's reason), each inside the axis's domain (widths
/// 1..2^14, training-set sizes min_train_size..2^24, expert counts k..64) and all distinct (the fits
/// need distinct regressors: refused now, not after the training).
std::vector<std::int64_t> read_scaling_axis(const PointParams& p, ScalingAxis axis, const std::string& axis_name, int k,
                                            std::size_t min_values, const std::string& too_few, std::int64_t min_train_size);

}  // namespace moelab::trained::detail
