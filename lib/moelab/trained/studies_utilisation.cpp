// Study trained.utilisation: expert utilisation of trained top-k MoEs against k = 1..T on the
// SRAVEN-like task (utilisation.hpp), the runs of trained.compositional_kstar (same seeds, so the same
// models at the same points), for the gate the point names.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/log_binomial.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/trained/detail/study_support.hpp"
#include "moelab/trained/utilisation.hpp"

namespace moelab::trained {

namespace {

struct UtilisationPoint {
  CompositionalSpec spec;
  std::vector<int> ks;
};

}  // namespace

StudyDef utilisation_study() {
  StudyDef d;
  d.name = "trained.utilisation";
  d.summary = "expert utilisation of trained top-k MoEs against k = 1..T (distinct and effective masks, effective experts, "
              "load balance, dead experts) on the SRAVEN-like task";
  d.figure = "compositional paper, Sec. 3.1 setting; its open question on routing collapse / expert utilisation across k";
  d.trial_unit = "training runs (seeds) per k";
  d.min_trials = 2;
  d.params = detail::compositional_task_params();
  d.params.push_back(integer_list("params.k_list", "active experts trained and measured (default: 1..T)").optional());
  d.columns = {
      {"M", "rules composed per problem"},
      {"T", "experts"},
      {"k", "active experts"},
      {"gate", "gate of the layer"},
      {"id_accuracy_mean", "exact-match ID test accuracy, mean over seeds"},
      {"masks_possible", "C(T, k): the top-k masks there are"},
      {"distinct_masks_mean", "distinct masks on the ID test problems, mean over seeds"},
      {"distinct_masks_se", "its standard error"},
      {"effective_masks_mean", "exp(entropy of the mask frequencies), mean over seeds"},
      {"effective_masks_se", "its standard error"},
      {"effective_experts_mean", "exp(entropy of the expert loads), mean over seeds (T: balanced)"},
      {"effective_experts_se", "its standard error"},
      {"load_max_over_mean_mean", "largest expert load / mean load, mean over seeds (1: balanced)"},
      {"load_max_over_mean_se", "its standard error"},
      {"dead_fraction_mean", "fraction of experts no test problem reaches, mean over seeds"},
      {"dead_fraction_se", "its standard error"},
      {"trials", "training runs per k"},
  };
  auto def = define_study<UtilisationPoint>(
      std::move(d),
      [](const PointParams& p) {
        UtilisationPoint pt;
        pt.spec = detail::read_compositional_task(p);
        if (pt.spec.gating.routing != moe::Routing::top_k)
          p.fail("params.routing", "utilisation against k needs top-k routing (k is the number of active experts)");
        if (p.has("params.k_list")) {
          pt.ks = detail::read_k_list(p, "params.k_list", pt.spec.T, "k");
        } else {
          for (int k = 1; k <= pt.spec.T; ++k) pt.ks.push_back(k);
        }
        return pt;
      },
      [](const UtilisationPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t nk = pt.ks.size(), seeds = static_cast<std::size_t>(ctx.trials);
        const auto runs = detail::run_per_k<UtilisationRun>(pt.spec, pt.ks, ctx, run_utilisation_trial);
        for (std::size_t j = 0; j < nk; ++j) {
          Welford acc, dm, em, ee, lb, dead;
          for (std::size_t t = 0; t < seeds; ++t) {
            const auto& r = runs[j * seeds + t];
            acc.add(r.run.id_accuracy), dm.add(r.usage.distinct_masks), em.add(r.usage.effective_masks);
            ee.add(r.usage.effective_experts), lb.add(r.usage.load_max_over_mean), dead.add(r.usage.dead_fraction);
          }
          rows.row()
              .set("M", pt.spec.M)
              .set("T", pt.spec.T)
              .set("k", pt.ks[j])
              .set("gate", moe::to_string(pt.spec.gating.gate))
              .set("id_accuracy_mean", acc.mean())
              .set("masks_possible", std::round(std::exp(log_binomial(pt.spec.T, pt.ks[j]))))
              .set("distinct_masks_mean", dm.mean())
              .set("distinct_masks_se", detail::se_if_several(dm))
              .set("effective_masks_mean", em.mean())
              .set("effective_masks_se", detail::se_if_several(em))
              .set("effective_experts_mean", ee.mean())
              .set("effective_experts_se", detail::se_if_several(ee))
              .set("load_max_over_mean_mean", lb.mean())
              .set("load_max_over_mean_se", detail::se_if_several(lb))
              .set("dead_fraction_mean", dead.mean())
              .set("dead_fraction_se", detail::se_if_several(dead))
              .set("trials", ctx.trials);
        }
      },
      [](const UtilisationPoint& pt, std::int64_t trials) { return pt.ks.size() * static_cast<std::size_t>(trials); });
  // One training run per (k, seed), as trained.compositional_kstar's; the test masks cost a forward pass.
  set_cost<UtilisationPoint>(def, [](const UtilisationPoint& pt, std::int64_t trials) {
    double work = 0.0;
    for (int k : pt.ks) work += detail::compositional_run_work(pt.spec, k);
    return StudyCost{detail::compositional_run_bytes(pt.spec), work * static_cast<double>(trials)};
  });
  return def;
}

}  // namespace moelab::trained
