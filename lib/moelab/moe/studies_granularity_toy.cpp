// Study moe.granularity_toy: the granularity paper's Fig. 1 (T topics x L languages) as a trained toy
// (granularity_toy.hpp). Per trial (seed): a target, then three MoEs trained on the same batches at the
// same active parameters: (T L, 1) one expert per combination, (T + L, 2) topic + language experts, and
// the control (T + L, 1); one row per configuration with the seeds' mean normalised test error and,
// for the two configurations that can represent the target, the constructive solution's exact error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/granularity_toy.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::moe {

namespace {

struct ToyPoint {
  ToyTask task;
  ToyTraining training;
  std::vector<double> learning_rates;
};

}  // namespace

StudyDef granularity_toy_study() {
  StudyDef d;
  d.name = "moe.granularity_toy";
  d.summary = "granularity Fig. 1 toy: topics x languages, (T L, 1) vs (T + L, 2) vs (T + L, 1) MoEs at equal active parameters, trained";
  d.figure = "granularity paper, Fig. 1 (3 topics x 3 languages: 9 experts at granularity 1, 6 at granularity 2)";
  d.trial_unit = "seeds (a target and three trained MoEs each)";
  d.min_trials = 2;
  d.params = {
      integer("params.topics", "T: topics (one-hot in x)").in(1, 16).or_default(3),
      integer("params.languages", "L: languages (one-hot in x)").in(1, 16).or_default(3),
      integer("params.content_dim", "p: dimension of the content z ~ N(0, I_p)").in(1, 1024).or_default(8),
      integer("params.width", "h: width of each topic / language ReLU function (experts: 2h at k = 1, h at k = 2)")
          .in(1, 1024)
          .or_default(4),
      integer("params.steps", "AdamW steps (cosine decay; fresh batches every step)").in(1, 1 << 24).or_default(3000),
      integer("params.batch", "samples per step").in(1, 1 << 16).or_default(256),
      real_list("params.learning_rates", "AdamW learning rates tried per run; the best final test error is kept (default 3e-2, 1e-2)")
          .optional(),
      integer("params.test_samples", "test samples").in(2, 1 << 22).or_default(8192),
  };
  d.columns = {{"config", "granularity1_all (T L, 1), granularity2 (T + L, 2), granularity1_few (T + L, 1: the control)"},
               {"topics", "T"},
               {"languages", "L"},
               {"m", "experts"},
               {"k", "active experts"},
               {"w", "expert width (2h / k)"},
               {"active_parameters", "router + k experts"},
               {"total_parameters", "router + m experts"},
               {"normalized_mse", "test MSE / Var(y), mean over seeds (trained)"},
               {"normalized_mse_se", "its standard error over seeds"},
               {"normalized_mse_min", "least over seeds"},
               {"normalized_mse_max", "largest over seeds"},
               {"gap_vs_all", "normalized_mse minus granularity1_all's, paired over seeds, mean"},
               {"gap_vs_all_se", "its standard error"},
               {"constructive_normalized_mse", "the exact construction's test error / Var(y), largest over seeds (NaN: none exists)"},
               {"distinct_masks", "routing masks used on the test set, mean over seeds"},
               {"trials", "seeds"}};
  StudyDef def = define_trial_study<ToyPoint, ToyComparison>(
      std::move(d),
      [](const PointParams& p) {
        ToyPoint pt;
        pt.task.topics = p.small("params.topics");
        pt.task.languages = p.small("params.languages");
        pt.task.p = p.small("params.content_dim");
        pt.task.h = p.small("params.width");
        if (pt.task.topics * pt.task.languages > 64)
          p.fail("params.languages", fmt::format("T L = {} experts exceeds 64 (routing masks are 64-bit)", pt.task.topics * pt.task.languages));
        pt.training.steps = p.small("params.steps");
        pt.training.batch = p.small("params.batch");
        pt.training.test_n = p.small("params.test_samples");
        pt.learning_rates = p.has("params.learning_rates") ? p.real_list("params.learning_rates") : std::vector<double>{3e-2, 1e-2};
        if (pt.learning_rates.empty()) p.fail("params.learning_rates", "must not be empty");
        for (double lr : pt.learning_rates)
          if (!(std::isfinite(lr) && lr > 0 && lr < 10)) p.fail("params.learning_rates", fmt::format("each must be in (0, 10), got {}", lr));
        return pt;
      },
      [](const ToyPoint& pt, const RunContext& ctx, std::int64_t t) {
        return toy_comparison_trial(pt.task, pt.training, pt.learning_rates, ctx.key, t);
      },
      [](const ToyPoint& pt, std::span<const ToyComparison> runs, const RunContext& ctx, RowSink& rows) {
        for (int c = 0; c < kToyConfigs; ++c) {
          const auto [m, k] = toy_config(pt.task, c);
          const MoeShape s = toy_shape(pt.task, m, k);
          Welford e, g, masks;
          double lo = HUGE_VAL, hi = -HUGE_VAL, cons = c == 2 ? std::nan("") : 0.0;
          for (const auto& r : runs) {
            e.add(r.normalized[c]);
            g.add(r.normalized[c] - r.normalized[0]);
            masks.add(r.masks[c]);
            lo = std::min(lo, r.normalized[c]);
            hi = std::max(hi, r.normalized[c]);
            if (c != 2) cons = std::max(cons, r.constructive[c]);
          }
          rows.row()
              .set("config", toy_config_name(c))
              .set("topics", pt.task.topics)
              .set("languages", pt.task.languages)
              .set("m", m)
              .set("k", k)
              .set("w", s.w)
              .set("active_parameters", active_parameter_count(s))
              .set("total_parameters", parameter_count(s))
              .set("normalized_mse", e.mean())
              .set("normalized_mse_se", e.standard_error())
              .set("normalized_mse_min", lo)
              .set("normalized_mse_max", hi)
              .set("gap_vs_all", g.mean())
              .set("gap_vs_all_se", g.standard_error())
              .set("constructive_normalized_mse", cons)
              .set("distinct_masks", masks.mean())
              .set("trials", ctx.trials);
        }
      });
  // Per running trial: three small models with AdamW moments, one batch and the test set with its
  // forward cache (~ (d + 4 k w) doubles per sample). Work: ~6 flops per active parameter per sample
  // per step and learning rate, three configurations.
  set_cost<ToyPoint>(def, [](const ToyPoint& pt, std::int64_t trials) {
    const double d = pt.task.d(), w2 = 2.0 * pt.task.h;
    const double active = (pt.task.topics * pt.task.languages) * d + w2 * (d + 1);
    const double per = 8.0 * (4.0 * 64.0 * active + (d + 8 * w2) * (pt.training.batch + pt.training.test_n));
    const double running = std::min(static_cast<double>(num_threads()), static_cast<double>(trials));
    const double work = static_cast<double>(trials) * 3.0 * static_cast<double>(pt.learning_rates.size()) * 6.0 * active *
                        static_cast<double>(pt.training.steps) * static_cast<double>(pt.training.batch);
    return StudyCost{running * per, work};
  });
  return def;
}

}  // namespace moelab::moe
