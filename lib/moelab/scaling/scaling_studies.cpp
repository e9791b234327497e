#include "moelab/scaling/scaling_studies.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/scaling_laws.hpp"

namespace moelab::scaling {

namespace {

// ---- scaling.compute_optimal ----
class ComputeOptimalPoint_ : public PreparedPoint {
 public:
  ComputeOptimalPoint_(LossModel m, double F, double c, double beta, double dim)
      : m_(m), F_(F), c_(c), beta_(beta), dim_(dim) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    const auto a = compute_optimal(m_, F_, c_);
    const auto x = compute_optimal_numeric(m_, F_, c_);
    const auto e = allocation_exponents(m_);
    progress.advance();
    return {{F_, c_, m_.E0, m_.A, m_.alpha_N, m_.B, m_.alpha_D, a.N_opt, a.D_opt, a.loss, x.N_opt, x.loss, e.a, e.b,
             approximation_rate_active(a.N_opt, beta_, dim_)}};
  }

 private:
  LossModel m_;
  double F_, c_, beta_, dim_;
};

class ComputeOptimalStudy : public Study {
 public:
  std::string name() const override { return "scaling.compute_optimal"; }
  std::string summary() const override {
    return "compute-optimal active parameters and tokens under F = c N D for L = E0 + A N^-aN + B D^-aD (closed form and Brent)";
  }
  std::vector<std::string> columns() const override {
    return {"F", "flops_per_param_token", "E0", "A", "alpha_N", "B", "alpha_D", "N_opt", "D_opt", "loss", "N_opt_numeric",
            "loss_numeric", "exponent_N", "exponent_D", "approximation_rate_at_N_opt"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    LossModel m;
    m.E0 = v.get_nonnegative("params.E0", 0.0);
    m.A = v.get_positive("params.A");
    m.alpha_N = v.get_positive("params.alpha_N");
    m.B = v.get_positive("params.B");
    m.alpha_D = v.get_positive("params.alpha_D");
    const double c = v.get_positive("params.flops_per_param_token", 6.0);
    const double F = v.get_positive("params.F");
    if (F <= c) v.fail("params.F", fmt::format("must exceed flops_per_param_token = {} (N, D >= 1), got {}", c, F));
    const double beta = v.get_positive("params.beta", 1.0), dim = v.get_positive("params.manifold_dim", 1.0);
    return std::make_unique<ComputeOptimalPoint_>(m, F, c, beta, dim);
  }
};

// ---- scaling.covering ----
class CoveringPoint : public PreparedPoint {
 public:
  CoveringPoint(CoveringParams p, double delta) : p_(p), delta_(delta) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    progress.advance();
    return {covering_row(p_, delta_)};
  }

 private:
  CoveringParams p_;
  double delta_;
};

class CoveringStudy : public Study {
 public:
  std::string name() const override { return "scaling.covering"; }
  std::string summary() const override { return "the terms of the MoE covering-number bound (scaling Lemma 3.7) and the exact routing count"; }
  std::vector<std::string> columns() const override { return covering_columns(); }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    CoveringParams p;
    p.P_attn = v.get_nonnegative("params.P_attn", 0.0);
    p.P_exp = v.get_positive("params.P_exp");
    p.L = v.get_positive("params.L", 1.0);
    p.M = v.get_positive("params.M");
    p.k = v.get_positive("params.k");
    p.ell = v.get_positive("params.ell", 1.0);
    p.kappa = v.get_positive("params.kappa", 1.0);
    p.R = v.get_positive("params.R", 1.0);
    p.M0 = v.get_positive("params.M0", 1.0);
    if (p.k > p.M) v.fail("params.k", fmt::format("must be at most M = {}, got {}", p.M, p.k));
    const double delta = v.get_positive("params.delta");
    if (delta >= p.kappa * p.R * p.M0)
      v.fail("params.delta", fmt::format("must be below kappa R M0 = {} (the log must be positive), got {}", p.kappa * p.R * p.M0, delta));
    return std::make_unique<CoveringPoint>(p, delta);
  }
};

}  // namespace

std::vector<std::string> covering_columns() {
  return {"delta", "P_attn", "P_exp", "L", "k", "M", "ell", "active_parameters", "log_scale", "parameter_entropy",
          "routing_overhead", "routing_overhead_exact", "total"};
}

CsvRow covering_row(const CoveringParams& p, double delta) {
  const auto b = covering_number_bound(p, delta);
  return {delta, p.P_attn, p.P_exp, p.L, p.k, p.M, p.ell, b.active_parameters, b.log_scale, b.parameter_entropy,
          b.routing_overhead, routing_overhead_exact(p), b.total};
}

void add_scaling_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<ComputeOptimalStudy>());
  out.push_back(std::make_unique<CoveringStudy>());
}

}  // namespace moelab::scaling
