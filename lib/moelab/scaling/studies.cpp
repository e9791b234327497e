// Scenario studies of scaling/, in the declarative form (scenario/study.hpp; `moelab describe <name>`
// prints the declarations below). Both are closed forms (deterministic):
//   scaling.compute_optimal  N_opt, D_opt and the loss at a FLOP budget (closed form and Brent);
//   scaling.covering         the terms of Lemma 3.7 and the exact routing count at one resolution.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/scaling_laws.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::scaling {

namespace {

// ---- scaling.compute_optimal ----

struct ComputeOptimalInput {
  LossModel model;
  double F = 0.0, c = 6.0, beta = 1.0, dim = 1.0;
};

ComputeOptimalInput prepare_compute_optimal(const PointParams& v) {
  ComputeOptimalInput in;
  in.model.E0 = v.real("params.E0");
  in.model.A = v.real("params.A");
  in.model.alpha_N = v.real("params.alpha_N");
  in.model.B = v.real("params.B");
  in.model.alpha_D = v.real("params.alpha_D");
  in.c = v.real("params.flops_per_param_token");
  in.F = v.real("params.F");
  if (in.F <= in.c) v.fail("params.F", fmt::format("must exceed flops_per_param_token = {} (N, D >= 1), got {}", in.c, in.F));
  in.beta = v.real("params.beta");
  in.dim = v.real("params.manifold_dim");
  return in;
}

void compute_optimal_rows(const ComputeOptimalInput& in, const RunContext&, RowSink& rows) {
  const auto a = compute_optimal(in.model, in.F, in.c);
  const auto x = compute_optimal_numeric(in.model, in.F, in.c);
  const auto e = allocation_exponents(in.model);
  rows.row()
      .set("F", in.F)
      .set("flops_per_param_token", in.c)
      .set("E0", in.model.E0)
      .set("A", in.model.A)
      .set("alpha_N", in.model.alpha_N)
      .set("B", in.model.B)
      .set("alpha_D", in.model.alpha_D)
      .set("N_opt", a.N_opt)
      .set("D_opt", a.D_opt)
      .set("loss", a.loss)
      .set("N_opt_numeric", x.N_opt)
      .set("loss_numeric", x.loss)
      .set("exponent_N", e.a)
      .set("exponent_D", e.b)
      .set("approximation_rate_at_N_opt", approximation_rate_active(a.N_opt, in.beta, in.dim));
}

StudyDef compute_optimal_study() {
  StudyDef s;
  s.name = "scaling.compute_optimal";
  s.summary = "compute-optimal active parameters and tokens under F = c N D for L = E0 + A N^-aN + B D^-aD (closed form and Brent)";
  s.trial_unit = "";
  s.params = {
      real("params.E0", "irreducible loss E0").nonnegative().or_default(0.0),
      real("params.A", "coefficient of the parameter term A N^-alpha_N").positive(),
      real("params.alpha_N", "exponent of the active parameters").positive(),
      real("params.B", "coefficient of the data term B D^-alpha_D").positive(),
      real("params.alpha_D", "exponent of the tokens").positive(),
      real("params.F", "training compute F (> flops_per_param_token, so that N, D >= 1)").positive().unit("FLOPs"),
      real("params.flops_per_param_token", "c in F = c N D").positive().or_default(6.0).unit("FLOPs"),
      real("params.beta", "smoothness beta of the target (approximation_rate_at_N_opt only)").positive().or_default(1.0),
      real("params.manifold_dim", "intrinsic dimension d of the data manifold (approximation_rate_at_N_opt only)")
          .at_least(1)
          .or_default(1.0),
  };
  s.columns = {
      {"F", "training FLOPs"},
      {"flops_per_param_token", "c in F = c N D"},
      {"E0", "irreducible loss"},
      {"A", "parameter-term coefficient"},
      {"alpha_N", "parameter exponent"},
      {"B", "data-term coefficient"},
      {"alpha_D", "data exponent"},
      {"N_opt", "loss-minimising active parameters, closed form"},
      {"D_opt", "tokens at N_opt, F / (c N_opt)"},
      {"loss", "L(N_opt, D_opt)"},
      {"N_opt_numeric", "N_opt by Brent minimisation in log N"},
      {"loss_numeric", "the loss at N_opt_numeric"},
      {"exponent_N", "N_opt ~ F^exponent_N, alpha_D / (alpha_N + alpha_D)"},
      {"exponent_D", "D_opt ~ F^exponent_D, alpha_N / (alpha_N + alpha_D)"},
      {"approximation_rate_at_N_opt", "N_opt^(-beta/d): the approximation rate at the optimum"},
  };
  s.figure = "scaling, Sec. 5 (F = 6 N_act D); Hoffmann et al. 2022, Eq. 4";
  StudyDef def = define_study<ComputeOptimalInput>(std::move(s), prepare_compute_optimal, compute_optimal_rows);
  // Closed forms and one Brent minimisation (scaling_laws.cpp): a few hundred evaluations, one row.
  set_cost<ComputeOptimalInput>(def, [](const ComputeOptimalInput&, std::int64_t) { return StudyCost{4096.0, 1e4}; });
  return def;
}

// ---- scaling.covering ----

struct CoveringInput {
  CoveringParams p;
  double delta = 0.0;
};

CoveringInput prepare_covering(const PointParams& v) {
  CoveringInput in;
  in.p.P_attn = v.real("params.P_attn");
  in.p.P_exp = v.real("params.P_exp");
  in.p.L = v.real("params.L");
  in.p.M = v.real("params.M");
  in.p.k = v.real("params.k");
  in.p.ell = v.real("params.ell");
  in.p.kappa = v.real("params.kappa");
  in.p.R = v.real("params.R");
  in.p.M0 = v.real("params.M0");
  if (in.p.k > in.p.M) v.fail("params.k", fmt::format("must be at most M = {}, got {}", in.p.M, in.p.k));
  in.delta = v.real("params.delta");
  const double scale = in.p.kappa * in.p.R * in.p.M0;
  if (in.delta >= scale)
    v.fail("params.delta", fmt::format("must be below kappa R M0 = {} (the log must be positive), got {}", scale, in.delta));
  return in;
}

void covering_rows(const CoveringInput& in, const RunContext&, RowSink& rows) {
  const auto b = covering_number_bound(in.p, in.delta);
  rows.row()
      .set("delta", in.delta)
      .set("P_attn", in.p.P_attn)
      .set("P_exp", in.p.P_exp)
      .set("L", in.p.L)
      .set("k", in.p.k)
      .set("M", in.p.M)
      .set("ell", in.p.ell)
      .set("active_parameters", b.active_parameters)
      .set("log_scale", b.log_scale)
      .set("parameter_entropy", b.parameter_entropy)
      .set("routing_overhead", b.routing_overhead)
      .set("routing_overhead_exact", routing_overhead_exact(in.p))
      .set("total", b.total);
}

StudyDef covering_study() {
  StudyDef s;
  s.name = "scaling.covering";
  s.summary = "the terms of the MoE covering-number bound (scaling Lemma 3.7) and the exact routing count";
  s.trial_unit = "";
  s.params = {
      real("params.P_attn", "attention (always active) parameters").nonnegative().or_default(0.0).unit("parameters"),
      real("params.P_exp", "parameters of one expert").positive().unit("parameters"),
      real("params.L", "MoE layers (the paper's L_T)").at_least(1).or_default(1.0).unit("layers"),
      real("params.M", "experts per layer").at_least(1).unit("experts"),
      real("params.k", "active experts per token, k <= M").at_least(1).unit("experts"),
      real("params.ell", "tokens per input (the paper's l)").at_least(1).or_default(1.0).unit("tokens"),
      real("params.kappa", "Lipschitz constant of the lemma").positive().or_default(1.0),
      real("params.R", "parameter radius").positive().or_default(1.0),
      real("params.M0", "output bound").positive().or_default(1.0),
      real("params.delta", "covering resolution, below kappa R M0").positive(),
  };
  s.columns = {
      {"delta", "covering resolution"},
      {"P_attn", "attention parameters"},
      {"P_exp", "parameters per expert"},
      {"L", "MoE layers"},
      {"k", "active experts per token"},
      {"M", "experts per layer"},
      {"ell", "tokens per input"},
      {"active_parameters", "P_attn + L k P_exp"},
      {"log_scale", "log(kappa R M0 / delta)"},
      {"parameter_entropy", "active_parameters * log_scale"},
      {"routing_overhead", "L l k log(e M / k): the routing term of Lemma 3.7"},
      {"routing_overhead_exact", "L l log C(M, k): the exact log-count of routing patterns"},
      {"total", "parameter_entropy + routing_overhead: log N(delta) with constant 1"},
  };
  s.figure = "scaling, Lemma 3.7 (covering number of MoE Transformers)";
  StudyDef def = define_study<CoveringInput>(std::move(s), prepare_covering, covering_rows);
  // Closed forms (covering_number.cpp; log C(M, k) by lgamma): one row, constant work.
  set_cost<CoveringInput>(def, [](const CoveringInput&, std::int64_t) { return StudyCost{4096.0, 1e3}; });
  return def;
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(compute_optimal_study());
  out.push_back(covering_study());
}

}  // namespace moelab::scaling
