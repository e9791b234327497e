// Study trained.sraven_difficulty: the trained counterpart of the k* trade-off under non-uniform task
// difficulty (compositional paper, App. A.5; the closed form is sparsity::with_difficulty,
// docs/sparsity.md). SRAVEN through one transformer block (trained.sraven's task, model and budget),
// with the training problems' rule combinations drawn uniformly (Assumption 5) and with the A.5 power
// law generalised to M rules, w_c = (D_{r_1} + ... + D_{r_M})^(-alpha) (sraven_task.hpp), at every
// alpha of the point. The uniform draw and every alpha of one seed share the split, the initial
// parameters, the training stream's indices and the uniform test problems (a paired design: the
// runner hashes a point's coordinates into its key, so the weightings are compared inside one point,
// as the k's are). Accuracy is reported on test problems drawn uniformly on the side and drawn with
// the training weights (the weighted error that A.5's E_approx averages); k* per weighting with a
// seed-bootstrap interval, beside the closed form's integer k* for the matching weights (N := R
// tasks, the rules; m := the training problems seen; Theorem 1's k-term as E_est).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"
#include "moelab/trained/detail/study_support.hpp"
#include "moelab/trained/sraven_task.hpp"

namespace moelab::trained {

namespace {

struct DifficultyPoint {
  detail::SravenPoint base;
  /// The weightings compared: uniform first, then one power law per alpha of difficulty_alphas.
  std::vector<sparsity::DifficultySpec> weightings;
  double a = 1.0, b = 1.0, d_N = 1.0;
};

/// 1 / sum_c p_c^2 over the ID combinations: the number of equally likely combinations with the same
/// collision probability (C(R + M - 1, M) minus the held-out ones under uniform draws).
double effective_combinations(const SravenTask& task) {
  double s = 0.0;
  for (int c : task.id_indices()) {
    const double p = task.combination_probability(c, false);
    s += p * p;
  }
  return 1.0 / s;
}

}  // namespace

StudyDef sraven_difficulty_study() {
  StudyDef d;
  d.name = "trained.sraven_difficulty";
  d.summary = "SRAVEN through one transformer block with the training rule combinations drawn uniformly and by App. A.5's "
              "power law (per alpha): accuracy on uniform and weighted test problems over k, k* per weighting with a "
              "seed-bootstrap interval, beside the closed form's k*";
  d.figure = "compositional paper, App. A.5 (power-law task difficulty), Assumption 5, Sec. 3.1; docs/sparsity.md";
  d.trial_unit = "training runs (seeds) per k and weighting";
  d.min_trials = 2;
  d.params = detail::sraven_params();
  for (auto& p : std::vector<ParamDecl>{
           real_list("params.difficulty_alphas",
                     "power-law exponents alpha of App. A.5 compared (each > 1, distinct); the uniform draw (Assumption 5) "
                     "is always trained beside them, with the same seeds"),
           choice("params.difficulty_profile", {"index", "power", "list"},
                  "inverse difficulties D of the R rules: index (rule r has D = r + 1, App. A.5's D_i = i), power "
                  "(D = (r + 1)^gamma) or list (difficulty_D)")
               .or_default("index"),
           real("params.difficulty_gamma", "exponent gamma of the power profile (> 0)").positive().or_default(1.0),
           real_list("params.difficulty_D", "explicit D of rules 0..R-1 (profile list; R entries, each > 0)").optional(),
           real("params.kstar_a", "constant a of the closed form's E_approx = a W / k (sparsity topic)").positive().or_default(1.0),
           real("params.kstar_b", "constant b of the closed form's E_est (Theorem 1's k-term)").positive().or_default(1.0),
           real("params.kstar_d_N", "router base Natarajan dimension d_N of the closed form").positive().or_default(1.0),
       })
    d.params.push_back(std::move(p));
  d.columns = {
      {"M", "rules composed per problem"},
      {"R", "rules"},
      {"V", "values per entry"},
      {"T", "experts"},
      {"k", "active experts"},
      {"combination_weights", "how the training combinations are drawn: uniform (Assumption 5) or powerlaw (App. A.5)"},
      {"difficulty_alpha", "power-law exponent alpha (NaN under uniform)"},
      {"difficulty_profile", "profile of the rules' inverse difficulties D (index, power, list)"},
      {"effective_combinations", "1 / sum_c p_c^2 over the ID combinations under the training draw, mean over seeds"},
      {"attention", "attention kind"},
      {"gate", "gate of the MoE FFN"},
      {"steps", "AdamW steps"},
      {"id_accuracy_mean", "exact match on ID test problems drawn uniformly on the ID side, mean over seeds"},
      {"id_accuracy_std_error", "its standard error over seeds"},
      {"id_weighted_accuracy_mean", "exact match on ID test problems drawn with the training weights (= id_accuracy_mean under uniform)"},
      {"id_weighted_accuracy_std_error", "its standard error"},
      {"ood_accuracy_mean", "exact match on held-out combinations drawn uniformly (at M = 1: held-out rules)"},
      {"ood_accuracy_std_error", "its standard error"},
      {"ood_weighted_accuracy_mean", "exact match on held-out combinations drawn with the same power law over the OOD side"},
      {"ood_weighted_accuracy_std_error", "its standard error"},
      {"id_entry_accuracy_mean", "fraction of the M entries right, ID uniform"},
      {"id_weighted_entry_accuracy_mean", "fraction of the M entries right, ID weighted"},
      {"ood_entry_accuracy_mean", "fraction of the M entries right, OOD uniform"},
      {"ood_weighted_entry_accuracy_mean", "fraction of the M entries right, OOD weighted"},
      {"bayes_id_mean", "Bayes ceiling on the uniform ID test problems (uniform prior)"},
      {"bayes_id_weighted_mean", "Bayes ceiling on the weighted ID test problems (weighted prior)"},
      {"bayes_ood_mean", "Bayes ceiling on the uniform OOD test problems"},
      {"bayes_ood_weighted_mean", "Bayes ceiling on the weighted OOD test problems"},
      {"chance", "exact match of a uniform guess, V^-M"},
      {"final_loss_mean", "ID (uniform) test cross-entropy per entry after training"},
      {"train_loss_mean", "training loss over the last 5% of steps"},
      {"kstar_id", "k of the list with the largest mean ID (uniform test) accuracy for this weighting (ties: smallest k)"},
      {"kstar_id_lo", "5% bootstrap quantile of kstar_id over seeds"},
      {"kstar_id_hi", "95% bootstrap quantile"},
      {"kstar_id_weighted", "k with the largest mean ID accuracy on the weighted test problems"},
      {"kstar_id_weighted_lo", "5% bootstrap quantile"},
      {"kstar_id_weighted_hi", "95% bootstrap quantile"},
      {"kstar_ood", "k with the largest mean OOD (uniform) accuracy (-1 without OOD)"},
      {"kstar_ood_lo", "5% bootstrap quantile"},
      {"kstar_ood_hi", "95% bootstrap quantile"},
      {"kstar_ood_weighted", "k with the largest mean OOD weighted accuracy (-1 without OOD)"},
      {"kstar_ood_weighted_lo", "5% bootstrap quantile"},
      {"kstar_ood_weighted_hi", "95% bootstrap quantile"},
      {"weight_sum", "App. A.5's W = sum over the R^2 ordered rule pairs of (D_i + D_i')^-alpha (R^2 under uniform)"},
      {"kstar_closed_form", "integer k* of a W / k + Theorem 1's k-term (N := R, m := steps x batch, T, d_N, b) for this "
                            "weighting (sparsity::with_difficulty)"},
      {"trials", "training runs per k and weighting"},
  };
  auto def = define_study<DifficultyPoint>(
      std::move(d),
      [](const PointParams& p) {
        DifficultyPoint pt;
        pt.base = detail::read_sraven_point(p);
        const int R = pt.base.spec.R;
        sparsity::DifficultySpec powerlaw;
        powerlaw.kind = sparsity::Difficulty::powerlaw;
        (void)sparsity::parse_difficulty_profile(p.text("params.difficulty_profile"), powerlaw.profile);  // a declared choice
        powerlaw.gamma = p.real("params.difficulty_gamma");
        if (powerlaw.profile == sparsity::DifficultyProfile::list) {
          if (!p.has("params.difficulty_D")) p.fail("params.difficulty_profile", "profile list needs params.difficulty_D");
          powerlaw.D = p.real_list("params.difficulty_D");
          if (static_cast<int>(powerlaw.D.size()) != R)
            p.fail("params.difficulty_D", fmt::format("must have one D per rule, R = {} entries, got {}", R, powerlaw.D.size()));
          for (double x : powerlaw.D)
            if (!(std::isfinite(x) && x > 0.0)) p.fail("params.difficulty_D", fmt::format("every D must be > 0, got {}", x));
        } else if (p.has("params.difficulty_D")) {
          p.fail("params.difficulty_D", "is used only with difficulty_profile = \"list\"");
        }
        const auto alphas = p.real_list("params.difficulty_alphas");
        if (alphas.empty()) p.fail("params.difficulty_alphas", "give at least one alpha");
        pt.weightings.push_back(sparsity::DifficultySpec{});  // uniform
        for (std::size_t i = 0; i < alphas.size(); ++i) {
          const double a = alphas[i];
          if (!(std::isfinite(a) && a > 1.0))
            p.fail("params.difficulty_alphas",
                   fmt::format("must be > 1 (App. A.5: w = (D_i + D_i')^-alpha with alpha > 1), got {}", a));
          for (std::size_t j = 0; j < i; ++j)
            if (alphas[j] == a) p.fail("params.difficulty_alphas", fmt::format("alpha {} is given twice; give distinct values", a));
          powerlaw.alpha = a;
          pt.weightings.push_back(powerlaw);
        }
        pt.a = p.real("params.kstar_a");
        pt.b = p.real("params.kstar_b");
        pt.d_N = p.real("params.kstar_d_N");
        return pt;
      },
      [](const DifficultyPoint& pt, const RunContext& ctx, RowSink& rows) {
        const auto& ks = pt.base.ks;
        const std::size_t nw = pt.weightings.size(), nk = ks.size(), seeds = static_cast<std::size_t>(ctx.trials);
        // Run i: weighting i / (nk seeds), k (i / seeds) % nk, seed i % seeds.
        const auto runs = parallel_map<SravenRun>(nw * nk * seeds, [&](std::size_t i) {
          SravenSpec s = pt.base.spec;
          s.combination_weights = pt.weightings[i / (nk * seeds)];
          const std::size_t j = (i / seeds) % nk;
          s.k = ks[j];
          // The Bayes ceilings depend on the weighting and the seed, not on k: the first k only.
          s.bayes = j == 0;
          auto r = run_sraven_trial(s, ctx.key, static_cast<std::int64_t>(i % seeds));
          ctx.advance();
          return r;
        });
        const bool has_ood = pt.base.spec.ood_fraction > 0.0;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const std::uint64_t bseed = ctx.key.with("bootstrap").seed();
        sparsity::TradeoffParams tp;
        tp.N = pt.base.spec.R, tp.m = static_cast<double>(pt.base.spec.steps * pt.base.spec.batch), tp.d_N = pt.d_N;
        tp.T = pt.base.spec.T, tp.a = pt.a, tp.b = pt.b;
        for (std::size_t w = 0; w < nw; ++w) {
          const auto& spec_w = pt.weightings[w];
          const bool uniform = spec_w.kind == sparsity::Difficulty::uniform;
          std::vector<Welford> id(nk), idw(nk), ood(nk), oodw(nk), ide(nk), idwe(nk), oode(nk), oodwe(nk), fl(nk), tl(nk);
          Welford bid, bidw, bood, boodw, eff;
          std::vector<std::vector<double>> a_id(nk, std::vector<double>(seeds)), a_idw = a_id, a_ood = a_id, a_oodw = a_id;
          for (std::size_t j = 0; j < nk; ++j)
            for (std::size_t s = 0; s < seeds; ++s) {
              const auto& r = runs[(w * nk + j) * seeds + s];
              id[j].add(r.id_accuracy), idw[j].add(r.id_weighted_accuracy), ood[j].add(r.ood_accuracy);
              oodw[j].add(r.ood_weighted_accuracy), ide[j].add(r.id_entry_accuracy), idwe[j].add(r.id_weighted_entry_accuracy);
              oode[j].add(r.ood_entry_accuracy), oodwe[j].add(r.ood_weighted_entry_accuracy);
              fl[j].add(r.final_loss), tl[j].add(r.final_train_loss);
              a_id[j][s] = r.id_accuracy, a_idw[j][s] = r.id_weighted_accuracy;
              a_ood[j][s] = r.ood_accuracy, a_oodw[j][s] = r.ood_weighted_accuracy;
              if (j == 0) bid.add(r.bayes_id), bidw.add(r.bayes_id_weighted), bood.add(r.bayes_ood), boodw.add(r.bayes_ood_weighted);
            }
          for (std::size_t s = 0; s < seeds; ++s) {
            SravenSpec sp = pt.base.spec;
            sp.combination_weights = spec_w;
            eff.add(effective_combinations(make_sraven_task(sp, ctx.key, static_cast<std::int64_t>(s))));
          }
          const auto kid = detail::kstar_interval(ks, a_id, pt.base.bootstrap, bseed);
          const auto kidw = detail::kstar_interval(ks, a_idw, pt.base.bootstrap, bseed);
          const detail::KStarInterval none{-1, -1, -1};
          const auto kood = has_ood ? detail::kstar_interval(ks, a_ood, pt.base.bootstrap, bseed) : none;
          const auto koodw = has_ood ? detail::kstar_interval(ks, a_oodw, pt.base.bootstrap, bseed) : none;
          const auto closed = sparsity::integer_k_star(sparsity::with_difficulty(tp, spec_w), sparsity::EstimationForm::theorem1).k;
          const double W = sparsity::difficulty_weight_sum(spec_w, tp.N);
          for (std::size_t j = 0; j < nk; ++j)
            rows.row()
                .set("M", pt.base.spec.M)
                .set("R", pt.base.spec.R)
                .set("V", pt.base.spec.V)
                .set("T", pt.base.spec.T)
                .set("k", ks[j])
                .set("combination_weights", sparsity::to_string(spec_w.kind))
                .set("difficulty_alpha", uniform ? nan : spec_w.alpha)
                .set("difficulty_profile", sparsity::to_string(spec_w.profile))
                .set("effective_combinations", eff.mean())
                .set("attention", moe::to_string(pt.base.spec.attention))
                .set("gate", moe::to_string(pt.base.spec.gate))
                .set("steps", pt.base.spec.steps)
                .set("id_accuracy_mean", id[j].mean())
                .set("id_accuracy_std_error", detail::se_if_several(id[j]))
                .set("id_weighted_accuracy_mean", idw[j].mean())
                .set("id_weighted_accuracy_std_error", detail::se_if_several(idw[j]))
                .set("ood_accuracy_mean", has_ood ? ood[j].mean() : nan)
                .set("ood_accuracy_std_error", has_ood ? detail::se_if_several(ood[j]) : nan)
                .set("ood_weighted_accuracy_mean", has_ood ? oodw[j].mean() : nan)
                .set("ood_weighted_accuracy_std_error", has_ood ? detail::se_if_several(oodw[j]) : nan)
                .set("id_entry_accuracy_mean", ide[j].mean())
                .set("id_weighted_entry_accuracy_mean", idwe[j].mean())
                .set("ood_entry_accuracy_mean", has_ood ? oode[j].mean() : nan)
                .set("ood_weighted_entry_accuracy_mean", has_ood ? oodwe[j].mean() : nan)
                .set("bayes_id_mean", bid.mean())
                .set("bayes_id_weighted_mean", bidw.mean())
                .set("bayes_ood_mean", has_ood ? bood.mean() : nan)
                .set("bayes_ood_weighted_mean", has_ood ? boodw.mean() : nan)
                .set("chance", std::pow(static_cast<double>(pt.base.spec.V), -pt.base.spec.M))
                .set("final_loss_mean", fl[j].mean())
                .set("train_loss_mean", tl[j].mean())
                .set("kstar_id", kid.k)
                .set("kstar_id_lo", kid.lo)
                .set("kstar_id_hi", kid.hi)
                .set("kstar_id_weighted", kidw.k)
                .set("kstar_id_weighted_lo", kidw.lo)
                .set("kstar_id_weighted_hi", kidw.hi)
                .set("kstar_ood", kood.k)
                .set("kstar_ood_lo", kood.lo)
                .set("kstar_ood_hi", kood.hi)
                .set("kstar_ood_weighted", koodw.k)
                .set("kstar_ood_weighted_lo", koodw.lo)
                .set("kstar_ood_weighted_hi", koodw.hi)
                .set("weight_sum", W)
                .set("kstar_closed_form", closed)
                .set("trials", ctx.trials);
        }
      },
      [](const DifficultyPoint& pt, std::int64_t trials) {
        return pt.weightings.size() * pt.base.ks.size() * static_cast<std::size_t>(trials);
      });
  set_cost<DifficultyPoint>(def, [](const DifficultyPoint& pt, std::int64_t trials) {
    StudyCost c = detail::sraven_cost(pt.base.spec, pt.base.ks, trials);
    c.work *= static_cast<double>(pt.weightings.size());  // every weighting trains every k; memory is per thread
    return c;
  });
  return def;
}

}  // namespace moelab::trained
