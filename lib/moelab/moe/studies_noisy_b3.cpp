// Study moe.noisy_robustness: the noisy paper's App. B.3, Tables 2 and 3 (dense vs correctly routed
// MoE trained on noisy features with a perfect modular structure; accuracy / MSE with and without
// test noise). The experiment is noisy_robustness.hpp; the linear case is set beside Theorem 3.
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/noisy_robustness.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::moe {

StudyDef noisy_robustness_study() {
  StudyDef d;
  d.name = "moe.noisy_robustness";
  d.summary = "dense vs correctly routed MoE trained on noisy modular data: test MSE (linear regression) or accuracy (ReLU classification) with and without feature noise";
  d.figure = "noisy paper, App. B.3, Tables 2 (linear regression) and 3 (two-layer ReLU classification); Thm 3";
  d.trial_unit = "training runs (seeds)";
  d.min_trials = 2;
  d.params = {
      choice("params.task", {"regression", "classification"},
             "Table 2: single-layer linear regression (MSE); Table 3: two-layer ReLU classification (accuracy)"),
      integer("params.blocks", "k: blocks of features = experts (p_i = 1/k)").in(1, 1024).or_default(4),
      integer("params.block_dim", "b: features per block (d = k b)").in(1, 4096).or_default(8),
      integer("params.classes", "classes C (classification)").in(2, 1024).or_default(4),
      integer("params.teacher_width", "width of each block's random two-layer ReLU labelling net (classification)").in(1, 1 << 14).or_default(16),
      integer("params.expert_width", "width of each MoE expert (classification; the dense MLP gets the iso-parameter width)").in(1, 1 << 14).or_default(16),
      real("params.lambda", "Sigma_i = lambda I: variance of a block's clean features").positive().or_default(1.0),
      real("params.sigma", "feature-noise standard deviation, in training and at the noisy test").nonnegative().at_most(100.0),
      integer("params.steps", "AdamW steps (online: fresh samples every step)").in(1, std::int64_t{1} << 30).or_default(2000),
      integer("params.batch", "samples per step").in(1, 1 << 20).or_default(256),
      real("params.lr", "AdamW learning rate (cosine decay to 0)").positive().below(10.0).or_default(1e-2),
      integer("params.test_samples", "test samples (clean and noisy: the same inputs, the same noise draws as scaled)").in(1, 1 << 24).or_default(16384),
  };
  d.columns = {{"task", "regression (Table 2) or classification (Table 3)"},
               {"metric", "mse or accuracy"},
               {"blocks", "k"},
               {"block_dim", "b"},
               {"d", "k b"},
               {"sigma", "feature-noise standard deviation"},
               {"dense_parameters", "dense model parameters"},
               {"moe_parameters", "MoE parameters in use (each expert reads its block)"},
               {"dense_width", "dense MLP width (classification; 0 for regression)"},
               {"dense_noisy", "dense: metric with test noise sigma, mean over seeds"},
               {"dense_noisy_se", "its standard error"},
               {"moe_noisy", "MoE: metric with test noise sigma, mean over seeds"},
               {"moe_noisy_se", "its standard error"},
               {"dense_clean", "dense: metric on clean test features"},
               {"moe_clean", "MoE: metric on clean test features"},
               {"dense_drop", "dense robustness drop (MSE: noisy - clean; accuracy: clean - noisy), mean over seeds"},
               {"dense_drop_se", "its standard error"},
               {"moe_drop", "MoE robustness drop, mean over seeds"},
               {"moe_drop_se", "its standard error"},
               {"drop_gap", "dense_drop - moe_drop, paired over seeds, mean"},
               {"drop_gap_se", "its standard error"},
               {"dense_thm3_noisy", "regression: Thm 3 risk of the dense Bayes estimator at sigma_o = sigma (Thm 2), mean over seeds' beta*"},
               {"moe_thm3_noisy", "regression: Thm 3 risk of the sparse Bayes estimators at sigma_o = sigma"},
               {"dense_thm3_drop", "regression: Thm 3 drop, sigma^2 times the dense slope in sigma_o^2"},
               {"moe_thm3_drop", "regression: Thm 3 drop of the sparse estimators"},
               {"signal", "regression: E y^2, mean over seeds"},
               {"trials", "training runs (seeds)"}};
  struct Point {
    RobustnessSpec spec;
  };
  StudyDef def = define_trial_study<Point, RobustnessRun>(
      std::move(d),
      [](const PointParams& p) {
        Point pt;
        auto& s = pt.spec;
        const bool cls = p.text("params.task") == "classification";
        s.task.blocks = p.small("params.blocks");
        s.task.block_dim = p.small("params.block_dim");
        s.task.classes = cls ? p.small("params.classes") : 0;
        s.task.teacher_width = p.small("params.teacher_width");
        s.task.lambda = p.real("params.lambda");
        if (static_cast<std::int64_t>(s.task.blocks) * s.task.block_dim > (1 << 16))
          p.fail("params.block_dim", fmt::format("d = blocks x block_dim = {} exceeds 65536", static_cast<std::int64_t>(s.task.blocks) * s.task.block_dim));
        s.expert_width = p.small("params.expert_width");
        s.sigma = p.real("params.sigma");
        s.steps = p.integer("params.steps");
        s.batch = p.integer("params.batch");
        s.lr = p.real("params.lr");
        s.test_size = p.integer("params.test_samples");
        return pt;
      },
      [](const Point& pt, const RunContext& ctx, std::int64_t t) { return run_robustness_trial(pt.spec, ctx.key, t); },
      [](const Point& pt, std::span<const RobustnessRun> runs, const RunContext& ctx, RowSink& rows) {
        const bool cls = pt.spec.task.classes >= 2;
        Welford dn, mn, dc, mc, dd, md, gap, tdn, tmn, tdd, tmd, sig;
        for (const auto& r : runs) {
          dn.add(r.dense_noisy), mn.add(r.moe_noisy), dc.add(r.dense_clean), mc.add(r.moe_clean);
          const double ddrop = cls ? r.dense_clean - r.dense_noisy : r.dense_noisy - r.dense_clean;
          const double mdrop = cls ? r.moe_clean - r.moe_noisy : r.moe_noisy - r.moe_clean;
          dd.add(ddrop), md.add(mdrop), gap.add(ddrop - mdrop);
          tdn.add(r.dense_bayes_noisy), tmn.add(r.moe_bayes_noisy);
          tdd.add(r.dense_bayes_noisy - r.dense_bayes_clean), tmd.add(r.moe_bayes_noisy - r.moe_bayes_clean);
          sig.add(r.signal);
        }
        const auto& r0 = runs.front();
        rows.row()
            .set("task", cls ? "classification" : "regression")
            .set("metric", cls ? "accuracy" : "mse")
            .set("blocks", pt.spec.task.blocks)
            .set("block_dim", pt.spec.task.block_dim)
            .set("d", pt.spec.task.d())
            .set("sigma", pt.spec.sigma)
            .set("dense_parameters", r0.dense_parameters)
            .set("moe_parameters", r0.moe_parameters)
            .set("dense_width", r0.dense_width)
            .set("dense_noisy", dn.mean())
            .set("dense_noisy_se", dn.standard_error())
            .set("moe_noisy", mn.mean())
            .set("moe_noisy_se", mn.standard_error())
            .set("dense_clean", dc.mean())
            .set("moe_clean", mc.mean())
            .set("dense_drop", dd.mean())
            .set("dense_drop_se", dd.standard_error())
            .set("moe_drop", md.mean())
            .set("moe_drop_se", md.standard_error())
            .set("drop_gap", gap.mean())
            .set("drop_gap_se", gap.standard_error())
            .set("dense_thm3_noisy", cls ? NAN : tdn.mean())
            .set("moe_thm3_noisy", cls ? NAN : tmn.mean())
            .set("dense_thm3_drop", cls ? NAN : tdd.mean())
            .set("moe_thm3_drop", cls ? NAN : tmd.mean())
            .set("signal", cls ? NAN : sig.mean())
            .set("trials", ctx.trials);
      });
  // Per running trial: the two models with gradient and AdamW moments, one batch and the test set
  // (clean, noisy and the masked copy: 3 d x n doubles) with the forward caches. Work: forward +
  // backward ~6 flops per parameter per sample for both models, evaluation 2 per parameter x 4.
  set_cost<Point>(def, [](const Point& pt, std::int64_t trials) {
    const auto& s = pt.spec;
    const double dim = s.task.d(), C = std::max(1, s.task.classes);
    const double width = s.task.classes >= 2 ? static_cast<double>(s.expert_width) * s.task.blocks : 1.0;
    const double params = s.task.classes >= 2 ? 2.0 * width * (dim + C) * 2.0 : 2.0 * dim * s.task.blocks;
    const double per = 8.0 * (5.0 * params + 6.0 * dim * (static_cast<double>(s.batch) + static_cast<double>(s.test_size)));
    const double running = std::min(static_cast<double>(num_threads()), static_cast<double>(trials));
    const double work = static_cast<double>(trials) *
                        (6.0 * params * static_cast<double>(s.steps * s.batch) + 8.0 * params * static_cast<double>(s.test_size));
    return StudyCost{running * per, work};
  });
  return def;
}

}  // namespace moelab::moe
