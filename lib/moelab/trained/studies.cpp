// Studies of the trained topic: the theory of the compositional and scaling papers measured on
// trained MoEs (docs/trained.md).
//   trained.generalization_gap  gap of trained top-k MoEs vs Theorem 1 (printed, Eq. 17, derived);
//                               one trial = one training run (seed);
//   trained.compositional_kstar ID / OOD accuracy of T = 8-expert MoEs over k on an SRAVEN-like task
//                               of M rules, best k per M beside the sparsity topic's k*;
//   trained.inference_k         models trained at k0 evaluated at every k (the compositional paper's
//                               Tables 1-2, inference-time experts per token);
//   trained.scaling             loss vs N_act, D or E with a fitted power law, and routing-pattern
//                               usage of the trained router;
//   trained.scaling_gap         (studies_scaling_gap.cpp) the gap on a fixed set vs N_act, D or E beside
//                               the scaling paper's uniform bound, fits with bootstrap intervals;
//   trained.sraven              SRAVEN (the public generator's 8 rules) through one transformer block
//                               with an MoE FFN: ID / OOD accuracy over k per M, k* with a seed
//                               bootstrap interval (the compositional paper's Figs. 1-5).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/bounds/generalization.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/scaling_laws.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"
#include "moelab/trained/compositional_task.hpp"
#include "moelab/trained/detail/scaling_gap_study.hpp"
#include "moelab/trained/generalization_gap.hpp"
#include "moelab/trained/scaling_experiment.hpp"
#include "moelab/trained/sraven_task.hpp"
#include "moelab/trained/detail/study_support.hpp"

namespace moelab::trained {

namespace {

// ---- the layer's gate and routing, shared by every study here ----

std::vector<ParamDecl> gating_params() {
  return {
      choice("params.gate", {"softmax_selected", "softmax_all", "sigmoid"},
             "gate of the MoE layer: softmax over the k selected logits (the compositional paper's Eq. 2), softmax over all "
             "logits then the top-k probabilities unrenormalised (Switch; trains a top-1 router), or sigmoid of each selected "
             "logit")
          .or_default("softmax_selected"),
      choice("params.routing", {"top_k", "top_p", "threshold"},
             "expert selection: the k largest logits, or adaptive per input (top_p: fewest experts whose softmax mass reaches "
             "top_p; threshold: every expert with probability >= threshold; both at most k, need gate = softmax_all)")
          .or_default("top_k"),
      real("params.top_p", "routing top_p: the softmax mass to reach, in (0, 1]").positive().at_most(1.0).optional(),
      real("params.threshold", "routing threshold: the least softmax probability kept, in [0, 1]").in(0.0, 1.0).optional(),
  };
}

std::vector<ParamDecl> with_gating(std::vector<ParamDecl> params) {
  for (auto& d : gating_params()) params.push_back(std::move(d));
  return params;
}

/// The gate and routing of a point; a key that does not fit the routing is refused by name.
Gating read_gating(const PointParams& p) {
  Gating g;
  const std::string gate = p.text("params.gate"), routing = p.text("params.routing");
  if (!moe::parse_gate(gate, g.gate)) p.fail("params.gate", fmt::format("unknown gate '{}'", gate));
  if (!moe::parse_routing(routing, g.routing)) p.fail("params.routing", fmt::format("unknown routing '{}'", routing));
  if (g.routing != moe::Routing::top_k && g.gate != moe::Gate::softmax_all)
    p.fail("params.gate", fmt::format("routing = {} selects by, and weights with, the softmax over all logits: set gate = "
                                      "\"softmax_all\" (got \"{}\")", routing, gate));
  if (g.routing == moe::Routing::top_p) {
    if (!p.has("params.top_p")) p.fail("params.top_p", "routing = top_p needs top_p (the mass to reach, in (0, 1])");
    g.top_p = p.real("params.top_p");
  } else if (p.has("params.top_p")) {
    p.fail("params.top_p", fmt::format("top_p is used only with routing = top_p (routing is {})", routing));
  }
  if (g.routing == moe::Routing::threshold) {
    if (!p.has("params.threshold")) p.fail("params.threshold", "routing = threshold needs threshold (in [0, 1])");
    g.threshold = p.real("params.threshold");
  } else if (p.has("params.threshold")) {
    p.fail("params.threshold", fmt::format("threshold is used only with routing = threshold (routing is {})", routing));
  }
  return g;
}

// ---- trained.generalization_gap ----

StudyDef gap_study() {
  StudyDef d;
  d.name = "trained.generalization_gap";
  d.summary = "generalization gap (bounded loss) of trained top-k MoEs with linear experts on a noisy random teacher, "
              "beside Theorem 1 as printed, Eq. 17 and derived";
  d.figure = "compositional paper, Theorem 1 (Eq. 5), Eq. 17; docs/bounds.md";
  d.trial_unit = "training runs (seeds)";
  d.min_trials = 2;
  d.params = {
      integer("params.d", "input dimension").in(1, 256).or_default(8),
      integer("params.teacher_T", "experts of the teacher (linear experts, top-k softmax)").in(1, 64).or_default(4),
      integer("params.teacher_k", "active experts of the teacher").in(1, 64).or_default(1),
      integer("params.T", "experts of the student (above 64: top-k routing only)").in(1, 4096),
      integer("params.k", "active experts of the student (k <= T)").in(1, 64),
      integer("params.m", "training points").in(2, 1 << 24).unit("points"),
      integer("params.test_size", "test points for the test loss").in(1, 1 << 24).or_default(8192).unit("points"),
      real("params.noise", "label noise standard deviation").nonnegative().at_most(100.0).or_default(0.5),
      integer("params.steps", "AdamW steps (cosine decay)").in(1, 1 << 24).or_default(1500),
      integer("params.batch", "samples per step (capped at m)").in(1, 1 << 20).or_default(64),
      real("params.lr", "AdamW learning rate").positive().below(10.0).or_default(1e-2),
      integer("params.rademacher_draws", "sign vectors per Rademacher estimate").in(2, 1 << 20).or_default(200),
  };
  d.params = with_gating(std::move(d.params));
  d.columns = {
      {"d", "input dimension"},
      {"T", "student experts"},
      {"k", "student active experts"},
      {"m", "training points"},
      {"train_loss_mean", "training loss min(1, |f - y|), mean over seeds"},
      {"test_loss_mean", "test loss min(1, |f - y|), mean over seeds"},
      {"gap_mean", "test - train bounded loss, mean over seeds"},
      {"gap_std_error", "its standard error over seeds"},
      {"gap_ci_low", "95% Student-t interval of the mean gap, lower end"},
      {"gap_ci_high", "upper end"},
      {"mse_gap_mean", "test - train MSE (the trained loss), mean over seeds"},
      {"mse_gap_std_error", "its standard error"},
      {"expert_norm_mean", "largest trained expert norm B_E, mean over seeds"},
      {"expert_rademacher_mean", "R(H, S) of {x -> <w, x>: ||w|| <= B_E} on the training inputs, mean over seeds"},
      {"router_rademacher_mean", "R of the router's logit class {x -> <r, x>: ||r|| <= B_R} on the training inputs"},
      {"d_N", "Natarajan dimension used for Theorem 1: d T (router parameters)"},
      {"printed_rademacher_term", "4 C R_m(H) (Theorem 1 as printed)"},
      {"printed_routing_log", "2 k N d_N log T (Eq. 18, the printed routing part of log Gamma)"},
      {"eq17_routing_log", "2 N d_N log C(T, k) (Eq. 13 / 17)"},
      {"derived_rademacher_term", "4 C T w_max R_m(H), w_max = 1 (derived, docs/bounds.md finding 4)"},
      {"bound_printed", "Theorem 1 as printed (Eq. 5)"},
      {"bound_eq17", "Theorem 1 with Eq. 17's exact log C(T, k)"},
      {"bound_derived", "the derived form (docs/bounds.md)"},
      {"bound_over_gap", "bound_eq17 / gap_mean (how far the tightest printed form exceeds the measured gap)"},
      {"mean_k", "mean active experts per test point of the trained student, mean over seeds (k under top-k routing)"},
      {"trials", "training runs (seeds)"},
  };
  return define_trial_study<GapSpec, GapRun>(
      std::move(d),
      [](const PointParams& p) {
        GapSpec s;
        s.d = p.small("params.d");
        s.teacher_T = p.small("params.teacher_T");
        s.teacher_k = p.small("params.teacher_k");
        s.T = p.small("params.T");
        s.k = p.small("params.k");
        s.m = p.integer("params.m");
        s.test_size = p.integer("params.test_size");
        s.noise = p.real("params.noise");
        s.steps = p.integer("params.steps");
        s.batch = p.integer("params.batch");
        s.lr = p.real("params.lr");
        s.rademacher_draws = p.integer("params.rademacher_draws");
        s.gating = read_gating(p);
        if (s.teacher_k > s.teacher_T)
          p.fail("params.teacher_k", fmt::format("teacher_k = {} exceeds teacher_T = {}", s.teacher_k, s.teacher_T));
        if (s.k > s.T) p.fail("params.k", fmt::format("k = {} exceeds T = {}", s.k, s.T));
        if (s.T > 64 && s.gating.routing != moe::Routing::top_k)
          p.fail("params.T", fmt::format("T = {} above 64 needs top-k routing (adaptive routing is read through 64-bit masks)", s.T));
        return s;
      },
      [](const GapSpec& s, const RunContext& ctx, std::int64_t t) { return run_gap_trial(s, ctx.key, t); },
      [](const GapSpec& s, std::span<const GapRun> runs, const RunContext& ctx, RowSink& rows) {
        Welford tr, te, gap, mgap, bn, rr, ro, mk;
        for (const auto& r : runs) {
          tr.add(r.train_loss), te.add(r.test_loss), gap.add(r.gap()), mgap.add(r.mse_gap()), mk.add(r.mean_k);
          bn.add(r.expert_norm), rr.add(r.expert_rademacher), ro.add(r.router_rademacher);
        }
        const auto ci = t_interval(gap, 0.95);
        const auto p = theorem1_params(s, rr.mean());
        const auto printed = bounds::theorem1_printed(p), eq17 = bounds::theorem1_eq17(p), derived = bounds::theorem1_derived(p);
        rows.row()
            .set("d", s.d)
            .set("T", s.T)
            .set("k", s.k)
            .set("m", s.m)
            .set("train_loss_mean", tr.mean())
            .set("test_loss_mean", te.mean())
            .set("gap_mean", gap.mean())
            .set("gap_std_error", detail::se_if_several(gap))
            .set("gap_ci_low", ci.lower)
            .set("gap_ci_high", ci.upper)
            .set("mse_gap_mean", mgap.mean())
            .set("mse_gap_std_error", detail::se_if_several(mgap))
            .set("expert_norm_mean", bn.mean())
            .set("expert_rademacher_mean", rr.mean())
            .set("router_rademacher_mean", ro.mean())
            .set("d_N", p.d_N)
            .set("printed_rademacher_term", printed.rademacher_term)
            .set("printed_routing_log", printed.log_growth_routing)
            .set("eq17_routing_log", eq17.log_growth_routing)
            .set("derived_rademacher_term", derived.rademacher_term)
            .set("bound_printed", printed.total)
            .set("bound_eq17", eq17.total)
            .set("bound_derived", derived.total)
            .set("bound_over_gap", eq17.total / gap.mean())
            .set("mean_k", mk.mean())
            .set("trials", ctx.trials);
      });
}

// ---- trained.compositional_kstar ----

/// The task, model and budget keys shared by trained.compositional_kstar and trained.inference_k
/// (everything but the k compared), validated with messages naming the key.
CompositionalSpec read_task(const PointParams& p) {
  CompositionalSpec s;
  s.M = p.small("params.M");
  s.R = p.small("params.R");
  s.V = p.small("params.V");
  s.rows = p.small("params.rows");
  s.ood_fraction = p.real("params.ood_fraction");
  s.T = p.small("params.T");
  s.width = p.small("params.width");
  s.train_size = p.integer("params.train_size");
  s.test_size = p.integer("params.test_size");
  s.steps = p.integer("params.steps");
  s.batch = p.integer("params.batch");
  s.lr = p.real("params.lr");
  s.weight_decay = p.real("params.weight_decay");
  if (s.R > s.V * s.V * s.V) p.fail("params.R", fmt::format("R = {} exceeds the V^3 = {} affine rules", s.R, s.V * s.V * s.V));
  if (s.M > 1 && s.ood_fraction > 0.0 && std::pow(static_cast<double>(s.R), s.M) < 4.0)
    p.fail("params.R", "fewer than 4 rule combinations: nothing to split into ID and OOD");
  // Over 2^20 tuples the split is not enumerated (compositional_task.cpp) and problems of a side
  // are found by rejection: a side under 1e-4 of the tuples would take ~10^4 draws per problem.
  if (s.M > 1 && s.ood_fraction > 0.0 && std::pow(static_cast<double>(s.R), s.M) > static_cast<double>(1 << 20) &&
      (s.ood_fraction < 1e-4 || s.ood_fraction > 1.0 - 1e-4))
    p.fail("params.ood_fraction", fmt::format("{} holds out too few (or too many) of the R^M = {:g} rule combinations to "
                                              "sample both sides; use 0 (no OOD split) or a value in [1e-4, 1 - 1e-4]",
                                              s.ood_fraction, std::pow(static_cast<double>(s.R), s.M)));
  if (static_cast<double>(s.M) * (3 * s.rows - 1) * s.V > 1e6) p.fail("params.M", "input dimension M (3 rows - 1) V above 1e6");
  s.gating = read_gating(p);
  return s;
}

using detail::read_k_list;

/// The compositional studies' cost: the data (train and two test sets), the parameters with their
/// gradient and AdamW moments, and a batch's activations, per thread; and the flops of training at k
/// (6 per active parameter and sample) and of evaluating both test sets at k (2 per active parameter).
double compositional_bytes(const CompositionalSpec& s) {
  const double din = static_cast<double>(s.M) * (3 * s.rows - 1) * s.V, dout = static_cast<double>(s.M) * s.V;
  const double data = 8.0 * din * static_cast<double>(s.train_size + 2 * s.test_size);
  const double params = static_cast<double>(s.T) * (s.width * (din + dout + 1) + dout) + s.T * din;
  return num_threads() * (data + 8.0 * 4.0 * params + 8.0 * s.batch * (din + 4.0 * s.width * 8));
}
double compositional_active(const CompositionalSpec& s, int k) {
  const double din = static_cast<double>(s.M) * (3 * s.rows - 1) * s.V, dout = static_cast<double>(s.M) * s.V;
  return k * s.width * (din + dout) + s.T * din;
}
double compositional_train_work(const CompositionalSpec& s, int k) {
  return 6.0 * static_cast<double>(s.steps) * s.batch * compositional_active(s, k);
}

/// The parameters of the task, the model and the training (trained.compositional_kstar's, without k).
std::vector<ParamDecl> task_params() {
  return {
      integer("params.M", "rules composed per problem (features per panel), 1..16").in(1, 16),
      integer("params.R", "rules to draw from (the paper: 8)").in(1, 4096).or_default(8),
      integer("params.V", "values per panel entry (Z_V)").in(2, 64).or_default(5),
      integer("params.rows", "rows of the grid (the last one is queried; the paper: 3)").in(2, 16).or_default(3),
      real("params.ood_fraction", "fraction of rule combinations held out as OOD (the paper: 0.25)").nonnegative().below(1.0).or_default(0.25),
      integer("params.T", "experts (the paper: 8)").in(1, 64).or_default(8),
      integer("params.width", "hidden width of each ReLU expert").in(1, 1 << 14).or_default(32),
      integer("params.train_size", "ID training problems").in(1, 1 << 24).unit("problems"),
      integer("params.test_size", "ID and OOD test problems (each)").in(1, 1 << 24).or_default(2048).unit("problems"),
      integer("params.steps", "AdamW steps (cosine decay)").in(1, 1 << 24),
      integer("params.batch", "problems per step").in(1, 1 << 20).or_default(128),
      real("params.lr", "AdamW learning rate").positive().below(10.0).or_default(3e-3),
      real("params.weight_decay", "AdamW decoupled weight decay").nonnegative().or_default(0.0),
  };
}


struct KStarPoint {
  CompositionalSpec spec;
  std::vector<int> ks;
  double a = 1.0, b = 1.0, d_N = 1.0;
};

StudyDef compositional_study() {
  StudyDef d;
  d.name = "trained.compositional_kstar";
  d.summary = "ID and OOD exact-match accuracy of 8-expert top-k MoEs on an SRAVEN-like task of M composed rules, best k "
              "per M beside the sparsity topic's k* (Definition 5, Theorem 1's k-term)";
  d.figure = "compositional paper, Sec. 3.1, Figs. 1-2 (SRAVEN, 8 experts, top-k); Sec. 4.3 (k*)";
  d.trial_unit = "training runs (seeds) per k";
  d.min_trials = 2;
  d.params = {
      integer("params.M", "rules composed per problem (features per panel), 1..16").in(1, 16),
      integer("params.R", "rules to draw from (the paper: 8)").in(1, 4096).or_default(8),
      integer("params.V", "values per panel entry (Z_V)").in(2, 64).or_default(5),
      integer("params.rows", "rows of the grid (the last one is queried; the paper: 3)").in(2, 16).or_default(3),
      real("params.ood_fraction", "fraction of rule combinations held out as OOD (the paper: 0.25)").nonnegative().below(1.0).or_default(0.25),
      integer("params.T", "experts (the paper: 8)").in(1, 64).or_default(8),
      integer_list("params.k_list", "active experts compared (the paper: 1, 2, 4, 8)"),
      integer("params.width", "hidden width of each ReLU expert").in(1, 1 << 14).or_default(32),
      integer("params.train_size", "ID training problems").in(1, 1 << 24).unit("problems"),
      integer("params.test_size", "ID and OOD test problems (each)").in(1, 1 << 24).or_default(2048).unit("problems"),
      integer("params.steps", "AdamW steps (cosine decay)").in(1, 1 << 24),
      integer("params.batch", "problems per step").in(1, 1 << 20).or_default(128),
      real("params.lr", "AdamW learning rate").positive().below(10.0).or_default(3e-3),
      real("params.weight_decay", "AdamW decoupled weight decay").nonnegative().or_default(0.0),
      real("params.kstar_a", "constant a of E_approx = a N^2 / k (sparsity topic; N := M)").positive().or_default(1.0),
      real("params.kstar_b", "constant b of E_est (sparsity topic)").positive().or_default(1.0),
      real("params.kstar_d_N", "router base Natarajan dimension d_N for the k* forms").positive().or_default(1.0),
  };
  d.params = with_gating(std::move(d.params));
  d.columns = {
      {"M", "rules composed per problem"},
      {"R", "rules"},
      {"V", "values per entry"},
      {"rows", "grid rows"},
      {"T", "experts"},
      {"k", "active experts"},
      {"train_size", "ID training problems"},
      {"id_accuracy_mean", "exact-match accuracy on ID test problems, mean over seeds"},
      {"id_accuracy_std_error", "its standard error"},
      {"ood_accuracy_mean", "exact-match accuracy on held-out combinations (NaN for M = 1: no combination to hold out)"},
      {"ood_accuracy_std_error", "its standard error"},
      {"id_head_accuracy_mean", "fraction of entries right, ID"},
      {"ood_head_accuracy_mean", "fraction of entries right, OOD"},
      {"train_accuracy_mean", "exact-match accuracy on the training set"},
      {"bayes_id_mean", "Bayes-optimal exact-match accuracy on the ID test problems (rule ambiguity ceiling)"},
      {"best_k_id", "the k of the list with the largest ID accuracy at this M (ties: smallest k)"},
      {"best_k_ood", "the k with the largest OOD accuracy (-1 for M = 1)"},
      {"kstar_definition5", "integer k* of a M^2/k + b sqrt(M k d_N log(T/k)/m), Definition 5 (sparsity topic)"},
      {"kstar_theorem1", "integer k* with Theorem 1's k-term as E_est (sparsity topic, form theorem1)"},
      {"mean_k", "mean active experts per ID test problem, mean over seeds (k under top-k; under top_p / threshold k is the cap)"},
      {"trials", "training runs per k"},
  };
  auto def = define_study<KStarPoint>(
      std::move(d),
      [](const PointParams& p) {
        KStarPoint pt;
        auto& s = pt.spec;
        s = read_task(p);
        pt.a = p.real("params.kstar_a");
        pt.b = p.real("params.kstar_b");
        pt.d_N = p.real("params.kstar_d_N");
        pt.ks = read_k_list(p, "params.k_list", s.T, "k");
        return pt;
      },
      [](const KStarPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t nk = pt.ks.size(), seeds = static_cast<std::size_t>(ctx.trials);
        const auto runs = detail::run_per_k<CompositionalRun>(
            pt.spec, pt.ks, ctx, [](const CompositionalSpec& s, const RngKey& key, std::int64_t t) { return run_compositional_trial(s, key, t); });
        std::vector<Welford> id(nk), ood(nk), idh(nk), oodh(nk), tr(nk), bay(nk), mk(nk);
        for (std::size_t i = 0; i < runs.size(); ++i) {
          const auto j = i / seeds;
          mk[j].add(runs[i].mean_k);
          id[j].add(runs[i].id_accuracy), ood[j].add(runs[i].ood_accuracy), idh[j].add(runs[i].id_head_accuracy);
          oodh[j].add(runs[i].ood_head_accuracy), tr[j].add(runs[i].train_accuracy), bay[j].add(runs[i].bayes_id);
        }
        std::size_t best_id = 0, best_ood = 0;
        for (std::size_t j = 1; j < nk; ++j) {
          if (id[j].mean() > id[best_id].mean()) best_id = j;
          if (ood[j].mean() > ood[best_ood].mean()) best_ood = j;
        }
        const bool has_ood = pt.spec.M > 1 && pt.spec.ood_fraction > 0.0;
        sparsity::TradeoffParams tp;
        tp.N = pt.spec.M, tp.m = static_cast<double>(pt.spec.train_size), tp.d_N = pt.d_N, tp.T = pt.spec.T, tp.a = pt.a, tp.b = pt.b;
        const auto k_def5 = sparsity::integer_k_star(tp, sparsity::EstimationForm::definition5).k;
        const auto k_thm1 = sparsity::integer_k_star(tp, sparsity::EstimationForm::theorem1).k;
        for (std::size_t j = 0; j < nk; ++j)
          rows.row()
              .set("M", pt.spec.M)
              .set("R", pt.spec.R)
              .set("V", pt.spec.V)
              .set("rows", pt.spec.rows)
              .set("T", pt.spec.T)
              .set("k", pt.ks[j])
              .set("train_size", pt.spec.train_size)
              .set("id_accuracy_mean", id[j].mean())
              .set("id_accuracy_std_error", detail::se_if_several(id[j]))
              .set("ood_accuracy_mean", ood[j].mean())
              .set("ood_accuracy_std_error", has_ood ? detail::se_if_several(ood[j]) : std::numeric_limits<double>::quiet_NaN())
              .set("id_head_accuracy_mean", idh[j].mean())
              .set("ood_head_accuracy_mean", oodh[j].mean())
              .set("train_accuracy_mean", tr[j].mean())
              .set("bayes_id_mean", bay[j].mean())
              .set("best_k_id", pt.ks[best_id])
              .set("best_k_ood", has_ood ? pt.ks[best_ood] : -1)
              .set("kstar_definition5", k_def5)
              .set("kstar_theorem1", k_thm1)
              .set("mean_k", mk[j].mean())
              .set("trials", ctx.trials);
      },
      [](const KStarPoint& pt, std::int64_t trials) { return pt.ks.size() * static_cast<std::size_t>(trials); });
  set_cost<KStarPoint>(def, [](const KStarPoint& pt, std::int64_t trials) {
    double work = 0.0;
    for (int k : pt.ks) work += compositional_train_work(pt.spec, k);
    return StudyCost{compositional_bytes(pt.spec), work * static_cast<double>(trials)};
  });
  return def;
}

// ---- trained.inference_k ----

struct InferenceKPoint {
  CompositionalSpec spec;
  std::vector<int> k0s;     // training k
  std::vector<int> eval_ks; // inference k
};

StudyDef inference_k_study() {
  StudyDef d;
  d.name = "trained.inference_k";
  d.summary = "models trained at k0 active experts on the SRAVEN-like task, evaluated with k = 1..T active experts at "
              "inference (the trained router's k largest logits, the trained gate), ID and OOD accuracy against k";
  d.figure = "compositional paper, Sec. 3.2.1, Tables 1-2 (Skill-Mix: Mixtral-8x7B / DBRX evaluated at several "
             "experts-per-token), on the CPU reduction of Sec. 3.1's task";
  d.trial_unit = "training runs (seeds) per k0";
  d.min_trials = 2;
  d.params = task_params();
  d.params.push_back(integer_list("params.k0_list", "active experts at training (each model is trained once per k0)"));
  d.params.push_back(integer_list("params.eval_k_list", "active experts at inference (default: 1..T)").optional());
  d.params = with_gating(std::move(d.params));
  d.columns = {
      {"M", "rules composed per problem"},
      {"R", "rules"},
      {"V", "values per entry"},
      {"T", "experts"},
      {"k0", "active experts at training"},
      {"k", "active experts at inference"},
      {"train_size", "ID training problems"},
      {"id_accuracy_mean", "exact-match accuracy on ID test problems at inference k, mean over seeds"},
      {"id_accuracy_std_error", "its standard error"},
      {"ood_accuracy_mean", "exact-match accuracy on held-out combinations at inference k (NaN for M = 1)"},
      {"ood_accuracy_std_error", "its standard error"},
      {"id_head_accuracy_mean", "fraction of entries right, ID"},
      {"ood_head_accuracy_mean", "fraction of entries right, OOD"},
      {"id_head_gain_mean", "per-entry ID accuracy at k minus at k0, same model (paired), mean over seeds"},
      {"id_head_gain_std_error", "its standard error"},
      {"ood_head_gain_mean", "per-entry OOD accuracy at k minus at k0, same model (paired), mean over seeds"},
      {"ood_head_gain_std_error", "its standard error"},
      {"best_k_ood", "the inference k with the largest OOD exact-match accuracy for this k0 (-1 for M = 1)"},
      {"trials", "training runs per k0"},
  };
  auto def = define_study<InferenceKPoint>(
      std::move(d),
      [](const PointParams& p) {
        InferenceKPoint pt;
        pt.spec = read_task(p);
        const int T = pt.spec.T;
        if (pt.spec.gating.routing != moe::Routing::top_k)
          p.fail("params.routing", "inference-time k sets the number of experts: use routing = top_k");
        pt.k0s = read_k_list(p, "params.k0_list", T, "k0");
        if (p.has("params.eval_k_list")) {
          pt.eval_ks = read_k_list(p, "params.eval_k_list", T, "k");
        } else {
          for (int k = 1; k <= T; ++k) pt.eval_ks.push_back(k);
        }
        return pt;
      },
      [](const InferenceKPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t n0 = pt.k0s.size(), ne = pt.eval_ks.size(), seeds = static_cast<std::size_t>(ctx.trials);
        // Every eval list includes k0 itself (the paired reference), so the gain at k = k0 is exactly 0.
        const auto runs = parallel_map<CompositionalRun>(n0 * seeds, [&](std::size_t i) {
          CompositionalSpec s = pt.spec;
          s.k = pt.k0s[i / seeds];
          std::vector<int> ks = pt.eval_ks;
          ks.push_back(s.k);
          auto r = run_compositional_trial(s, ctx.key, static_cast<std::int64_t>(i % seeds), ks);
          ctx.advance();
          return r;
        });
        const bool has_ood = pt.spec.M > 1 && pt.spec.ood_fraction > 0.0;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t a = 0; a < n0; ++a) {
          std::vector<Welford> id(ne), ood(ne), idh(ne), oodh(ne), gid(ne), good(ne);
          for (std::size_t t = 0; t < seeds; ++t) {
            const auto& r = runs[a * seeds + t];
            const AtK& ref = r.at_k.back();  // k = k0
            for (std::size_t j = 0; j < ne; ++j) {
              const AtK& e = r.at_k[j];
              id[j].add(e.id_accuracy), ood[j].add(e.ood_accuracy), idh[j].add(e.id_head_accuracy), oodh[j].add(e.ood_head_accuracy);
              gid[j].add(e.id_head_accuracy - ref.id_head_accuracy), good[j].add(e.ood_head_accuracy - ref.ood_head_accuracy);
            }
          }
          std::size_t best = 0;
          for (std::size_t j = 1; j < ne; ++j)
            if (ood[j].mean() > ood[best].mean()) best = j;
          for (std::size_t j = 0; j < ne; ++j)
            rows.row()
                .set("M", pt.spec.M)
                .set("R", pt.spec.R)
                .set("V", pt.spec.V)
                .set("T", pt.spec.T)
                .set("k0", pt.k0s[a])
                .set("k", pt.eval_ks[j])
                .set("train_size", pt.spec.train_size)
                .set("id_accuracy_mean", id[j].mean())
                .set("id_accuracy_std_error", detail::se_if_several(id[j]))
                .set("ood_accuracy_mean", ood[j].mean())
                .set("ood_accuracy_std_error", has_ood ? detail::se_if_several(ood[j]) : nan)
                .set("id_head_accuracy_mean", idh[j].mean())
                .set("ood_head_accuracy_mean", oodh[j].mean())
                .set("id_head_gain_mean", gid[j].mean())
                .set("id_head_gain_std_error", detail::se_if_several(gid[j]))
                .set("ood_head_gain_mean", good[j].mean())
                .set("ood_head_gain_std_error", has_ood ? detail::se_if_several(good[j]) : nan)
                .set("best_k_ood", has_ood ? pt.eval_ks[best] : -1)
                .set("trials", ctx.trials);
        }
      },
      [](const InferenceKPoint& pt, std::int64_t trials) { return pt.k0s.size() * static_cast<std::size_t>(trials); });
  set_cost<InferenceKPoint>(def, [](const InferenceKPoint& pt, std::int64_t trials) {
    const auto& s = pt.spec;
    double work = 0.0;
    for (int k : pt.k0s) {
      work += compositional_train_work(s, k);
      for (int ke : pt.eval_ks) work += 2.0 * 2.0 * static_cast<double>(s.test_size) * compositional_active(s, ke);
    }
    return StudyCost{compositional_bytes(s), work * static_cast<double>(trials)};
  });
  return def;
}

// ---- trained.scaling ----

struct ScalingPoint {
  ScalingSpec base;
  ScalingAxis axis = ScalingAxis::active;
  std::vector<std::int64_t> values;
  double beta = 1.0;
};

StudyDef scaling_study() {
  StudyDef d;
  d.name = "trained.scaling";
  d.summary = "normalized test MSE of trained MoE students vs active parameters, data or experts, a weighted power-law "
              "fit beside the scaling paper's rates, and the trained router's mask usage";
  d.figure = "scaling paper, Theorem 4.3 (N^(-beta/d), E^(-beta/d)), Sec. 5; Lemma 3.7 / compositional Eq. 13 (routing patterns)";
  d.trial_unit = "training runs (seeds) per value";
  d.min_trials = 2;
  d.params = detail::scaling_axis_params(2);
  // The keys shared with trained.scaling_gap (detail::scaling_model_params) in their describe order,
  // experts_k between the model and the training keys.
  auto model = detail::scaling_model_params(), training = detail::scaling_training_params();
  d.params.insert(d.params.end(), model.begin(), model.end());
  d.params.push_back(integer("params.experts_k", "student active experts on the experts axis (each E >= it)").in(1, 64).or_default(1));
  d.params.insert(d.params.end(), training.begin(), training.end());
  d.params.push_back(
      real("params.beta", "smoothness beta of the target for the predicted rate (1: the ReLU teacher is Lipschitz)").positive().or_default(1.0));
  d.params = with_gating(std::move(d.params));
  d.columns = {
      {"axis", "active, data or experts"},
      {"value", "the axis value (w, D or E)"},
      {"x", "the regressor of the fit: N_active, D or E"},
      {"d", "input dimension"},
      {"E", "student experts"},
      {"k", "student active experts"},
      {"w", "student expert width"},
      {"N_active", "student parameters used per input (router + k experts)"},
      {"D", "training samples seen: the fixed set size, or steps x batch online"},
      {"nmse_mean", "normalized test MSE, mean over seeds"},
      {"nmse_std_error", "its standard error"},
      {"init_nmse_mean", "before training"},
      {"fitted_exponent", "alpha of nmse ~ x^(-alpha), WLS in log-log over all values of this point"},
      {"fitted_exponent_se", "its standard error from (X'WX)^-1"},
      {"fitted_exponent_se_scaled", "times max(1, sqrt(chi2/dof))"},
      {"chi2_dof", "residual chi2 / dof of the fit (NaN with 2 values)"},
      {"predicted_exponent", "active/experts: 2 beta / d (Theorem 4.3's error rate, squared); data: 1 (ERM rate for squared loss)"},
      {"distinct_masks_trained_mean", "distinct top-k masks of the trained router on the test inputs, mean over seeds"},
      {"effective_masks_trained_mean", "exp(entropy) of the trained router's mask frequencies"},
      {"distinct_masks_init_mean", "distinct masks of the same router at initialisation"},
      {"effective_masks_init_mean", "exp(entropy) at initialisation"},
      {"all_masks", "C(E, k): every mask (the per-slot count of Eq. 13 / Lemma 3.7)"},
      {"lemma37_per_slot", "k log(e E / k): Lemma 3.7's per-slot routing overhead (nats), >= log C(E, k)"},
      {"mean_k", "mean active experts per test input of the trained student, mean over seeds (k under top-k routing)"},
      {"trials", "training runs per value"},
  };
  auto def = define_study<ScalingPoint>(
      std::move(d),
      [](const PointParams& p) {
        ScalingPoint pt;
        auto& s = pt.base;
        const std::string axis = p.text("params.axis");
        pt.axis = axis == "active" ? ScalingAxis::active : axis == "data" ? ScalingAxis::data : ScalingAxis::experts;
        detail::read_scaling_model(p, s);
        pt.beta = p.real("params.beta");
        s.gating = read_gating(p);
        if (pt.axis == ScalingAxis::experts) s.k = p.small("params.experts_k");
        if (s.teacher_k > s.teacher_E) p.fail("params.teacher_k", "teacher_k exceeds teacher_E");
        pt.values = detail::read_scaling_axis(p, pt.axis, axis, s.k, 2, "give at least 2 values to fit a power law", 1);
        if (pt.axis != ScalingAxis::experts && s.k > s.E) p.fail("params.k", "k exceeds E");
        return pt;
      },
      [](const ScalingPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t nv = pt.values.size(), seeds = static_cast<std::size_t>(ctx.trials);
        const auto runs = parallel_map<ScalingRun>(nv * seeds, [&](std::size_t i) {
          const auto s = at_axis(pt.base, pt.axis, pt.values[i / seeds]);
          // The same key for every value: seed t has one teacher and one data stream across the axis
          // (paired values; the fit sees the effect of the axis, not of a new teacher per value).
          auto r = run_scaling_trial(s, ctx.key, static_cast<std::int64_t>(i % seeds));
          ctx.advance();
          return r;
        });
        std::vector<Welford> nm(nv), in(nv), dt(nv), et(nv), di(nv), ei(nv), mk(nv);
        for (std::size_t i = 0; i < runs.size(); ++i) {
          const auto j = i / seeds;
          nm[j].add(runs[i].nmse), in[j].add(runs[i].init_nmse), mk[j].add(runs[i].mean_k);
          dt[j].add(runs[i].trained.distinct), et[j].add(runs[i].trained.effective);
          di[j].add(runs[i].initial.distinct), ei[j].add(runs[i].initial.effective);
        }
        std::vector<double> x(nv), mean(nv), se(nv);
        for (std::size_t j = 0; j < nv; ++j) {
          const auto s = at_axis(pt.base, pt.axis, pt.values[j]);
          x[j] = pt.axis == ScalingAxis::active ? static_cast<double>(moe::active_parameter_count(s.student()))
                 : pt.axis == ScalingAxis::data ? static_cast<double>(s.train_size)
                                                : static_cast<double>(s.E);
          mean[j] = nm[j].mean();
          se[j] = detail::se_if_several(nm[j]);
        }
        const auto fit = fit_power_law(x, mean, se);
        const double predicted = pt.axis == ScalingAxis::data ? 1.0 : 2.0 * pt.beta / pt.base.d;
        for (std::size_t j = 0; j < nv; ++j) {
          const auto s = at_axis(pt.base, pt.axis, pt.values[j]);
          rows.row()
              .set("axis", to_string(pt.axis))
              .set("value", pt.values[j])
              .set("x", x[j])
              .set("d", s.d)
              .set("E", s.E)
              .set("k", s.k)
              .set("w", s.w)
              .set("N_active", moe::active_parameter_count(s.student()))
              .set("D", s.train_size > 0 ? s.train_size : s.steps * s.batch)
              .set("nmse_mean", mean[j])
              .set("nmse_std_error", se[j])
              .set("init_nmse_mean", in[j].mean())
              .set("fitted_exponent", fit.exponent)
              .set("fitted_exponent_se", fit.se)
              .set("fitted_exponent_se_scaled", fit.se_scaled)
              .set("chi2_dof", fit.chi2_dof)
              .set("predicted_exponent", predicted)
              .set("distinct_masks_trained_mean", dt[j].mean())
              .set("effective_masks_trained_mean", et[j].mean())
              .set("distinct_masks_init_mean", di[j].mean())
              .set("effective_masks_init_mean", ei[j].mean())
              .set("all_masks", std::exp(log_binomial(s.E, s.k)))
              .set("lemma37_per_slot", scaling::log_binomial_bound(s.E, s.k))
              .set("mean_k", mk[j].mean())
              .set("trials", ctx.trials);
        }
      },
      [](const ScalingPoint& pt, std::int64_t trials) { return pt.values.size() * static_cast<std::size_t>(trials); });
  set_cost<ScalingPoint>(def, [](const ScalingPoint& pt, std::int64_t trials) {
    double bytes = 0.0, work = 0.0;
    for (auto v : pt.values) {
      const auto s = at_axis(pt.base, pt.axis, v);
      const double d = s.d, data = static_cast<double>(std::max<std::int64_t>(s.train_size, s.batch) + s.test_size);
      bytes = std::max(bytes, num_threads() * 8.0 * (2.0 * data * (d + 1) + 4.0 * (s.E * (2.0 * s.w * d + d) + s.teacher_E * 2.0 * s.teacher_w * d)));
      work += 6.0 * static_cast<double>(s.steps) * s.batch * (s.k * 2.0 * s.w * d + s.E * d + s.teacher_k * 2.0 * s.teacher_w * d);
    }
    return StudyCost{bytes, work * static_cast<double>(trials)};
  });
  return def;
}


// ---- trained.sraven ----

}  // namespace

// The SRAVEN point, its k* interval and cost: shared with trained.sraven_difficulty
// (studies_sraven_difficulty.cpp, declared in detail/study_support.hpp).
namespace detail {

/// The k of `ks` with the largest mean of `acc[j][seed]` over the seeds in `pick` (ties: smallest k).
static int argmax_k(const std::vector<int>& ks, const std::vector<std::vector<double>>& acc, const std::vector<std::size_t>& pick) {
  std::size_t best = 0;
  double top = -1.0;
  for (std::size_t j = 0; j < ks.size(); ++j) {
    double m = 0.0;
    for (std::size_t s : pick) m += acc[j][s];
    if (m > top) top = m, best = j;
  }
  return ks[best];
}

/// k* (argmax over k of the seed mean) and its 90% percentile-bootstrap interval over seeds: seeds
/// resampled with replacement (RandomStream(seed, moe_shuffle, b) for resample b), the k's of one seed
/// kept together (they share the split, the data and the initial parameters: a paired design).
KStarInterval kstar_interval(const std::vector<int>& ks, const std::vector<std::vector<double>>& acc, std::int64_t draws,
                             std::uint64_t seed) {
  const std::size_t seeds = acc.empty() ? 0 : acc[0].size();
  std::vector<std::size_t> all(seeds);
  std::iota(all.begin(), all.end(), std::size_t{0});
  KStarInterval out;
  out.k = argmax_k(ks, acc, all);
  std::vector<int> boot;
  std::vector<std::size_t> pick(seeds);
  for (std::int64_t b = 0; b < draws; ++b) {
    const RandomStream rs(seed, StreamTag::moe_shuffle, static_cast<std::uint64_t>(b));
    for (std::size_t s = 0; s < seeds; ++s)
      pick[s] = std::min(seeds - 1, static_cast<std::size_t>(rs.uniform(s) * static_cast<double>(seeds)));
    boot.push_back(argmax_k(ks, acc, pick));
  }
  std::sort(boot.begin(), boot.end());
  if (boot.empty()) {
    out.lo = out.hi = out.k;
  } else {
    // The 5% and 95% order statistics.
    out.lo = boot[static_cast<std::size_t>(0.05 * static_cast<double>(boot.size() - 1))];
    out.hi = boot[static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(boot.size() - 1)))];
  }
  return out;
}

/// Peak bytes and training flops of `trials` seeds at every k of `ks` (trained.sraven's estimate).
StudyCost sraven_cost(const SravenSpec& spec, const std::vector<int>& ks, std::int64_t trials) {
  const auto& s = spec;
  const double d = s.width_d(s.M * s.V + 3 * s.rows), P = static_cast<double>(s.heads) * s.d_head, tok = 3.0 * s.rows;
  const double params = 4.0 * P * d + s.T * (s.width * (2.0 * d + 1) + d) + s.T * d + d * s.M * s.V;
  const double acts = tok * (6.0 * d + 4.0 * P + s.T * s.width) + tok * tok * s.heads * 2.0;
  const double bytes = num_threads() * 4.0 * (4.0 * params + 3.0 * static_cast<double>(std::max<std::int64_t>(s.batch, 512)) * acts);
  double work = 0.0;
  for (int k : ks)
    work += 6.0 * static_cast<double>(s.steps) * s.batch * tok * (4.0 * P * d + 2.0 * tok * P + k * 2.0 * s.width * d + s.T * d);
  // Measured on the 2-core machine (one thread, float, the CPU scenario's block): 2 runs of 100 steps at
  // M = 1, k = 8 (1.04e11 of these operations) in 4.16 s of CPU, 2.5e10 per second, the same for softmax
  // and HYLA attention; the whole HYLA scenario (2.45e13) in 794 s, 3.1e10. The device path's rate is
  // not measured (the nominal rate applies).
  const double rate = s.backend == Backend::cpu ? 2.5e10 : 0.0;
  return StudyCost{bytes, work * static_cast<double>(trials), rate};
}

/// trained.sraven's point: the spec, the k list and the bootstrap count, validated with messages naming
/// the key.
SravenPoint read_sraven_point(const PointParams& p) {
  SravenPoint pt;
  auto& s = pt.spec;
  s.M = p.small("params.M"), s.R = p.small("params.R"), s.V = p.small("params.V"), s.rows = p.small("params.rows");
  s.ood_fraction = p.real("params.ood_fraction");
  s.T = p.small("params.T"), s.width = p.small("params.width"), s.d = p.small("params.d");
  s.heads = p.small("params.heads"), s.d_head = p.small("params.d_head");
  const std::string att = p.text("params.attention");
  s.attention = att == "hyla" ? moe::AttentionKind::hyla : att == "linear" ? moe::AttentionKind::linear : moe::AttentionKind::softmax;
  s.norm = p.text("params.norm") == "layernorm" ? moe::BlockNorm::layernorm : moe::BlockNorm::none;
  if (!moe::parse_gate(p.text("params.gate"), s.gate)) p.fail("params.gate", "unknown gate");
  s.backend = p.backend();
  if (s.backend == Backend::cuda && s.gate != moe::Gate::softmax_selected)
    p.fail("params.gate", fmt::format("the device MoE layer computes the softmax over the selected logits only; gate {} "
                                      "runs on the CPU (--backend cpu)", moe::to_string(s.gate)));
  s.steps = p.integer("params.steps"), s.batch = p.integer("params.batch");
  s.lr = p.real("params.lr"), s.weight_decay = p.real("params.weight_decay");
  s.test_size = p.integer("params.test_size");
  pt.bootstrap = p.integer("params.bootstrap");
  const std::int64_t combos = SravenTask::combination_count(s.R, s.M);
  const auto n_ood = static_cast<std::int64_t>(std::floor(static_cast<double>(combos) * s.ood_fraction));
  if (s.ood_fraction > 0.0 && (n_ood < 1 || n_ood >= combos))
    p.fail("params.ood_fraction", fmt::format("holds out {} of the C(R + M - 1, M) = {} rule combinations: both sides "
                                              "must be non-empty (or set 0)", n_ood, combos));
  if (combos > 300000) p.fail("params.M", fmt::format("{} rule combinations: above 300000", combos));
  const int width = s.M * s.V + 3 * s.rows;
  if (s.d != 0 && s.d < width)
    p.fail("params.d", fmt::format("d = {} is below the token width M V + 3 rows = {} (0 uses it)", s.d, width));
  pt.ks = read_k_list(p, "params.k_list", s.T, "k");
  return pt;
}

/// trained.sraven's parameters (shared with trained.sraven_difficulty, studies_sraven_difficulty.cpp).
std::vector<ParamDecl> sraven_params() {
  return {
      integer("params.M", "rules composed per problem (entries per panel), the task difficulty").in(1, 16),
      integer("params.R", "rules drawn from: the first R of the generator's 8 (the paper: 8)").in(1, 8).or_default(8),
      integer("params.V", "values per entry (Z_V; the public configuration: 8)").in(5, 64).or_default(8),
      integer("params.rows", "rows of the grid of 3 columns (the paper: 3)").in(2, 16).or_default(3),
      real("params.ood_fraction", "fraction of rule combinations held out as OOD (the paper: 0.25)").nonnegative().below(1.0).or_default(0.25),
      integer_list("params.k_list", "active experts compared (the paper: 1, 2, 4, 8)"),
      integer("params.T", "experts of the MoE FFN (the paper: 8)").in(1, 64).or_default(8),
      integer("params.width", "hidden width of each ReLU expert").in(1, 1 << 12).or_default(32),
      integer("params.d", "residual width of the block; 0: the token width M V + 3 rows").in(0, 1 << 12).or_default(0),
      integer("params.heads", "attention heads").in(1, 64).or_default(4),
      integer("params.d_head", "per-head dimension").in(1, 1024).or_default(8),
      choice("params.attention", {"softmax", "linear", "hyla"},
             "attention: softmax (the paper's main runs), linear or hyla (App. A.2.1, Figs. 4-5)")
          .or_default("softmax"),
      choice("params.norm", {"none", "layernorm"}, "pre-norm of the block").or_default("none"),
      choice("params.gate", {"softmax_selected", "softmax_all", "sigmoid"},
             "gate of the MoE FFN: softmax over the k selected logits, softmax over all (Switch), or sigmoid")
          .or_default("softmax_selected"),
      integer("params.steps", "AdamW steps (cosine decay), each on fresh ID problems").in(0, 1 << 24),
      integer("params.batch", "problems per step").in(1, 1 << 16).or_default(64),
      real("params.lr", "AdamW learning rate").positive().below(10.0).or_default(3e-3),
      real("params.weight_decay", "AdamW decoupled weight decay").nonnegative().or_default(0.0),
      integer("params.test_size", "ID and OOD test problems (each)").in(1, 1 << 20).or_default(1024).unit("problems"),
      integer("params.bootstrap", "bootstrap resamples of the seeds for the k* interval").in(0, 1 << 20).or_default(2000),
  };
}

}  // namespace detail

namespace {

using detail::KStarInterval;
using detail::SravenPoint;

StudyDef sraven_study() {
  StudyDef d;
  d.name = "trained.sraven";
  d.summary = "SRAVEN (the public generator's 8 rules, held-out rule combinations) through one transformer block with an "
              "MoE FFN of T experts: ID and OOD exact-match accuracy over k per M, k* with a seed-bootstrap interval";
  d.figure = "compositional paper, Sec. 3.1, Figs. 1-3 (softmax attention), App. A.2.1, Figs. 4-5 (HYLA)";
  d.trial_unit = "training runs (seeds) per k";
  d.min_trials = 2;
  d.params = detail::sraven_params();
  d.columns = {
      {"M", "rules composed per problem"},
      {"R", "rules"},
      {"V", "values per entry"},
      {"T", "experts"},
      {"k", "active experts"},
      {"attention", "attention kind"},
      {"gate", "gate of the MoE FFN"},
      {"steps", "AdamW steps"},
      {"id_accuracy_mean", "exact-match accuracy on ID test problems, mean over seeds"},
      {"id_accuracy_std_error", "its standard error over seeds"},
      {"ood_accuracy_mean", "exact-match accuracy on held-out rule combinations (at M = 1: held-out rules)"},
      {"ood_accuracy_std_error", "its standard error"},
      {"id_entry_accuracy_mean", "fraction of the M entries right, ID"},
      {"id_entry_accuracy_std_error", "its standard error"},
      {"ood_entry_accuracy_mean", "fraction of the M entries right, OOD"},
      {"ood_entry_accuracy_std_error", "its standard error"},
      {"id_worst_entry_accuracy_mean", "accuracy of the worst of the M entry positions, ID"},
      {"bayes_id_mean", "Bayes ceiling of the exact match on the ID test problems (ID prior over combinations)"},
      {"bayes_ood_mean", "Bayes ceiling on the OOD test problems (OOD prior)"},
      {"chance", "exact match of a uniform guess, V^-M"},
      {"initial_loss_mean", "ID test cross-entropy per entry before training"},
      {"final_loss_mean", "ID test cross-entropy per entry after training"},
      {"train_loss_mean", "training loss over the last 5% of steps"},
      {"kstar_id", "k of the list with the largest mean ID accuracy at this point (ties: smallest k)"},
      {"kstar_id_lo", "5% bootstrap quantile of kstar_id over seeds"},
      {"kstar_id_hi", "95% bootstrap quantile"},
      {"kstar_ood", "k with the largest mean OOD accuracy"},
      {"kstar_ood_lo", "5% bootstrap quantile of kstar_ood over seeds"},
      {"kstar_ood_hi", "95% bootstrap quantile"},
      {"trials", "training runs per k"},
  };
  auto def = define_study<SravenPoint>(
      std::move(d),
      [](const PointParams& p) {
        return detail::read_sraven_point(p);
      },
      [](const SravenPoint& pt, const RunContext& ctx, RowSink& rows) {
        const std::size_t nk = pt.ks.size(), seeds = static_cast<std::size_t>(ctx.trials);
        const auto one = [&](std::size_t i) {
          SravenSpec s = pt.spec;
          s.k = pt.ks[i / seeds];
          // The Bayes ceilings do not depend on k: computed once per seed (the first k).
          s.bayes = i / seeds == 0;
          auto r = run_sraven_trial(s, ctx.key, static_cast<std::int64_t>(i % seeds));
          ctx.advance();
          return r;
        };
        // On the CPU the runs go in parallel over the threads; on the device one after another (each
        // run's step a sequence of launches: moe/sequence_trainer.hpp).
        std::vector<SravenRun> runs;
        if (pt.spec.backend == Backend::cuda)
          for (std::size_t i = 0; i < nk * seeds; ++i) runs.push_back(one(i));
        else
          runs = parallel_map<SravenRun>(nk * seeds, one);
        std::vector<Welford> id(nk), ood(nk), ide(nk), oode(nk), worst(nk), il(nk), fl(nk), tl(nk);
        Welford bid, bood;
        std::vector<std::vector<double>> id_acc(nk, std::vector<double>(seeds)), ood_acc(nk, std::vector<double>(seeds));
        for (std::size_t i = 0; i < runs.size(); ++i) {
          const auto j = i / seeds, s = i % seeds;
          const auto& r = runs[i];
          id[j].add(r.id_accuracy), ood[j].add(r.ood_accuracy), ide[j].add(r.id_entry_accuracy), oode[j].add(r.ood_entry_accuracy);
          worst[j].add(*std::min_element(r.id_feature_accuracy.begin(), r.id_feature_accuracy.end()));
          il[j].add(r.initial_loss), fl[j].add(r.final_loss), tl[j].add(r.final_train_loss);
          id_acc[j][s] = r.id_accuracy, ood_acc[j][s] = r.ood_accuracy;
          if (j == 0) bid.add(r.bayes_id), bood.add(r.bayes_ood);
        }
        const bool has_ood = pt.spec.ood_fraction > 0.0;
        const std::uint64_t bseed = ctx.key.with("bootstrap").seed();
        const auto kid = detail::kstar_interval(pt.ks, id_acc, pt.bootstrap, bseed);
        const auto kood = has_ood ? detail::kstar_interval(pt.ks, ood_acc, pt.bootstrap, bseed) : KStarInterval{-1, -1, -1};
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t j = 0; j < nk; ++j)
          rows.row()
              .set("M", pt.spec.M)
              .set("R", pt.spec.R)
              .set("V", pt.spec.V)
              .set("T", pt.spec.T)
              .set("k", pt.ks[j])
              .set("attention", moe::to_string(pt.spec.attention))
              .set("gate", moe::to_string(pt.spec.gate))
              .set("steps", pt.spec.steps)
              .set("id_accuracy_mean", id[j].mean())
              .set("id_accuracy_std_error", detail::se_if_several(id[j]))
              .set("ood_accuracy_mean", has_ood ? ood[j].mean() : nan)
              .set("ood_accuracy_std_error", has_ood ? detail::se_if_several(ood[j]) : nan)
              .set("id_entry_accuracy_mean", ide[j].mean())
              .set("id_entry_accuracy_std_error", detail::se_if_several(ide[j]))
              .set("ood_entry_accuracy_mean", has_ood ? oode[j].mean() : nan)
              .set("ood_entry_accuracy_std_error", has_ood ? detail::se_if_several(oode[j]) : nan)
              .set("id_worst_entry_accuracy_mean", worst[j].mean())
              .set("bayes_id_mean", bid.mean())
              .set("bayes_ood_mean", has_ood ? bood.mean() : nan)
              .set("chance", std::pow(static_cast<double>(pt.spec.V), -pt.spec.M))
              .set("initial_loss_mean", il[j].mean())
              .set("final_loss_mean", fl[j].mean())
              .set("train_loss_mean", tl[j].mean())
              .set("kstar_id", kid.k)
              .set("kstar_id_lo", kid.lo)
              .set("kstar_id_hi", kid.hi)
              .set("kstar_ood", kood.k)
              .set("kstar_ood_lo", kood.lo)
              .set("kstar_ood_hi", kood.hi)
              .set("trials", ctx.trials);
      },
      [](const SravenPoint& pt, std::int64_t trials) { return pt.ks.size() * static_cast<std::size_t>(trials); });
  // --backend cuda: the block's training step on the device (moe/sequence_trainer.hpp,
  // kernels/moe_layer.cu); experimental until tests/gpu/transformer_gpu_main.cpp has passed on a
  // device (docs/gpu.md).
  def.cuda = CudaPath::experimental;
  set_cost<SravenPoint>(def, [](const SravenPoint& pt, std::int64_t trials) { return detail::sraven_cost(pt.spec, pt.ks, trials); });
  return def;
}

}  // namespace

// For studies_utilisation.cpp and studies_scaling_gap.cpp (detail/study_support.hpp).
namespace detail {
std::vector<ParamDecl> compositional_task_params() { return with_gating(task_params()); }
std::vector<int> read_k_list(const PointParams& p, const std::string& key, int T, const char* what) {
  std::vector<int> out;
  for (auto k : p.integer_list(key)) {
    if (k < 1 || k > T) p.fail(key, fmt::format("{} = {} outside 1..T = {}", what, k, T));
    out.push_back(static_cast<int>(k));
  }
  if (out.empty()) p.fail(key, fmt::format("give at least one {}", what));
  return out;
}
std::vector<ParamDecl> scaling_model_params() {
  return {
      integer("params.d", "input dimension (the manifold dimension of the rates)").in(1, 1024).or_default(8),
      integer("params.teacher_E", "teacher experts").in(1, 64).or_default(16),
      integer("params.teacher_k", "teacher active experts").in(1, 64).or_default(2),
      integer("params.teacher_w", "teacher expert width").in(1, 1 << 14).or_default(16),
      integer("params.E", "student experts (base)").in(1, 64).or_default(8),
      integer("params.k", "student active experts").in(1, 64).or_default(2),
      integer("params.w", "student expert width (base)").in(1, 1 << 14).or_default(8),
  };
}
std::vector<ParamDecl> scaling_training_params() {
  return {
      integer("params.steps", "AdamW steps (cosine decay)").in(1, 1 << 24).or_default(2000),
      integer("params.batch", "samples per step").in(1, 1 << 20).or_default(128),
      integer("params.train_size", "0 = online (fresh samples every step); the data axis sets it").in(0, 1 << 24).or_default(0),
      integer("params.test_size", "test inputs (normalized test MSE and mask counts)").in(1, 1 << 22).or_default(4096),
      real("params.lr", "AdamW learning rate").positive().below(10.0).or_default(1e-2),
  };
}
ParamDecl& declared(std::vector<ParamDecl>& params, const std::string& key) {
  const auto it = std::find_if(params.begin(), params.end(), [&](const ParamDecl& p) { return p.key == key; });
  if (it == params.end()) throw std::logic_error("detail::declared: " + key + " is not declared");  // a study's bug
  return *it;
}
void read_scaling_model(const PointParams& p, ScalingSpec& s) {
  s.d = p.small("params.d");
  s.teacher_E = p.small("params.teacher_E");
  s.teacher_k = p.small("params.teacher_k");
  s.teacher_w = p.small("params.teacher_w");
  s.E = p.small("params.E");
  s.k = p.small("params.k");
  s.w = p.small("params.w");
  s.steps = p.integer("params.steps");
  s.batch = p.integer("params.batch");
  s.train_size = p.integer("params.train_size");
  s.test_size = p.integer("params.test_size");
  s.lr = p.real("params.lr");
}
std::vector<std::int64_t> read_scaling_axis(const PointParams& p, ScalingAxis axis, const std::string& axis_name, int k,
                                            std::size_t min_values, const std::string& too_few, std::int64_t min_train_size) {
  const std::string key = axis == ScalingAxis::active ? "params.widths"
                          : axis == ScalingAxis::data ? "params.train_sizes"
                                                      : "params.expert_counts";
  if (!p.has(key)) p.fail(key, fmt::format("axis {} needs {}", axis_name, key));
  std::vector<std::int64_t> values = p.integer_list(key);
  if (values.size() < min_values) p.fail(key, too_few);
  const std::int64_t lo = axis == ScalingAxis::data ? min_train_size : (axis == ScalingAxis::experts ? k : 1);
  const std::int64_t hi = axis == ScalingAxis::data ? (1 << 24) : (axis == ScalingAxis::experts ? 64 : (1 << 14));
  for (auto v : values)
    if (v < lo || v > hi) p.fail(key, fmt::format("value {} outside {}..{}", v, lo, hi));
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j]) p.fail(key, fmt::format("value {} is given twice; give distinct values", values[i]));
  return values;
}

std::vector<ParamDecl> scaling_axis_params(int min_values) {
  const std::string n = fmt::format("(>= {} values", min_values);
  return {
      choice("params.axis", {"active", "data", "experts"}, "what varies: expert width (N_act), training-set size D, or experts E"),
      integer_list("params.widths", "axis active: the expert widths w " + n + ")").optional(),
      integer_list("params.train_sizes", "axis data: the training-set sizes D " + n + ")").optional(),
      integer_list("params.expert_counts", "axis experts: the expert counts E " + n + ", each >= k)").optional(),
  };
}
CompositionalSpec read_compositional_task(const PointParams& p) { return read_task(p); }
double compositional_run_bytes(const CompositionalSpec& s) { return compositional_bytes(s); }
double compositional_run_work(const CompositionalSpec& s, int k) { return compositional_train_work(s, k); }
}  // namespace detail

StudyDef utilisation_study();        // studies_utilisation.cpp
StudyDef sraven_difficulty_study();  // studies_sraven_difficulty.cpp

void add_studies(std::vector<StudyDef>& out) {
  auto gap = gap_study();
  set_cost<GapSpec>(gap, [](const GapSpec& s, std::int64_t trials) {
    const double data = static_cast<double>(s.m + s.test_size) * (s.d + 2);
    const double bytes = num_threads() * 8.0 * (2.0 * data + 8.0 * s.T * s.d + 4.0 * s.batch * (s.d + s.T));
    const double work = 6.0 * static_cast<double>(s.steps) * std::min(s.batch, s.m) * (s.k + s.T) * s.d +
                        2.0 * static_cast<double>(s.rademacher_draws) * s.m * s.d;
    return StudyCost{bytes, work * static_cast<double>(trials)};
  });
  out.push_back(std::move(gap));
  out.push_back(compositional_study());
  out.push_back(inference_k_study());
  out.push_back(scaling_study());
  out.push_back(scaling_gap_study());  // studies_scaling_gap.cpp
  out.push_back(sraven_study());
  out.push_back(sraven_difficulty_study());
  out.push_back(utilisation_study());
}

}  // namespace moelab::trained
