// Shared by the trained topic's study files: the compositional task's declarations, reading and cost,
// its k lists and runs per k, and the scaling studies' axis, model and training keys (defined in
// studies.cpp, used by studies_utilisation.cpp and studies_scaling_gap.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/trained/compositional_task.hpp"
#include "moelab/trained/scaling_experiment.hpp"
#include "moelab/trained/sraven_task.hpp"

namespace moelab::trained::detail {

/// The standard error of a mean over seeds, 0 with a single seed (the column is then only the estimate).
inline double se_if_several(const Welford& w) { return w.count() > 1 ? w.standard_error() : 0.0; }

/// The task, model, training and gate parameters of trained.compositional_kstar, without k.
std::vector<ParamDecl> compositional_task_params();
/// The point's CompositionalSpec (k left at its default), validated with messages naming the key.
CompositionalSpec read_compositional_task(const PointParams& p);
/// Peak bytes of one run per thread, and the training flops of one run at k.
double compositional_run_bytes(const CompositionalSpec& s);
double compositional_run_work(const CompositionalSpec& s, int k);

/// A list of k values under `key`, each in 1..T, at least one (messages naming the key and `what`).
std::vector<int> read_k_list(const PointParams& p, const std::string& key, int T, const char* what);

/// `trial(spec at k, ctx.key, seed)` for every k of `ks` and seed below ctx.trials, in parallel
/// (ctx.advance() after each); the run of (ks[j], seed t) at j * trials + t.
template <class Run, class Trial>
std::vector<Run> run_per_k(const CompositionalSpec& spec, const std::vector<int>& ks, const RunContext& ctx, const Trial& trial) {
  const auto seeds = static_cast<std::size_t>(ctx.trials);
  return parallel_map<Run>(ks.size() * seeds, [&](std::size_t i) {
    CompositionalSpec s = spec;
    s.k = ks[i / seeds];
    auto r = trial(s, ctx.key, static_cast<std::int64_t>(i % seeds));
    ctx.advance();
    return r;
  });
}

/// The axis of trained.scaling and trained.scaling_gap: params.axis (active, data or experts) and its
/// three value lists (widths, train_sizes, expert_counts), each of at least `min_values` values.
std::vector<ParamDecl> scaling_axis_params(int min_values);
/// The teacher and student keys of trained.scaling and trained.scaling_gap (params.d, teacher_E,
/// teacher_k, teacher_w, E, k, w) and their training keys (steps, batch, train_size, test_size, lr),
/// in describe order, declared once with trained.scaling's docs, defaults and limits; a study that
/// differs changes its own copy through declared().
std::vector<ParamDecl> scaling_model_params();
std::vector<ParamDecl> scaling_training_params();
/// The declaration of `key` in `params` (an internal error when it is not there).
ParamDecl& declared(std::vector<ParamDecl>& params, const std::string& key);
/// Reads those keys into `s` (the gate and the axis are the study's).
void read_scaling_model(const PointParams& p, ScalingSpec& s);
/// The values of the list that `axis` (named `axis_name` in messages) reads: required, at least
/// `min_values` of them (else `too_few`, the study's reason), each inside the axis's domain (widths
/// 1..2^14, training-set sizes min_train_size..2^24, expert counts k..64) and all distinct (the fits
/// need distinct regressors: refused now, not after the training).
std::vector<std::int64_t> read_scaling_axis(const PointParams& p, ScalingAxis axis, const std::string& axis_name, int k,
                                            std::size_t min_values, const std::string& too_few, std::int64_t min_train_size);

/// trained.sraven's point (shared with trained.sraven_difficulty): the spec, the k list, the bootstrap
/// resamples of the k* interval.
struct SravenPoint {
  SravenSpec spec;
  std::vector<int> ks;
  std::int64_t bootstrap = 2000;
};
/// trained.sraven's parameters, in its order.
std::vector<ParamDecl> sraven_params();
/// The point of trained.sraven's parameters, validated with messages naming the key.
SravenPoint read_sraven_point(const PointParams& p);
/// Peak bytes and training flops of `trials` seeds at every k of `ks`.
StudyCost sraven_cost(const SravenSpec& spec, const std::vector<int>& ks, std::int64_t trials);

/// k* (the k of `ks` of largest mean over seeds of acc[j][seed], ties: smallest k) and its 90%
/// percentile-bootstrap interval over seeds (the k's of one seed resampled together: paired).
struct KStarInterval {
  int k = 0, lo = 0, hi = 0;
};
KStarInterval kstar_interval(const std::vector<int>& ks, const std::vector<std::vector<double>>& acc, std::int64_t draws,
                             std::uint64_t seed);

}  // namespace moelab::trained::detail
