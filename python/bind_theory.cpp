// moelab.bounds, moelab.sparsity, moelab.scaling: the closed forms of the compositional paper
// (Theorem 1 in its printed, Eq. 17 and derived forms; growth functions; the k* trade-off of Sec. 4.3)
// and of the scaling paper (Lemma 3.7's covering bound, approximation rates, compute-optimal
// allocation). Every argument is checked here with a message naming the function, argument, domain
// and value (the library's own checks are internal invariants, not user-facing).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bind_common.hpp"
#include "moelab/bounds/generalization.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/scaling_laws.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::python {

namespace {

constexpr double kMaxCount = 9007199254740992.0;  // 2^53: counts beyond it are not exact doubles

py::dict terms_dict(const bounds::Theorem1Terms& t) {
  py::dict d;
  d["rademacher_term"] = t.rademacher_term;
  d["log_growth_routing"] = t.log_growth_routing;
  d["log_growth_sample"] = t.log_growth_sample;
  d["log_confidence"] = t.log_confidence;
  d["denominator"] = t.denominator;
  d["deviation_term"] = t.deviation_term;
  d["total"] = t.total;
  return d;
}

sparsity::EstimationForm estimation_form(const std::string& s) {
  if (s == "definition5") return sparsity::EstimationForm::definition5;
  if (s == "definition5_e") return sparsity::EstimationForm::definition5_e;
  if (s == "theorem1") return sparsity::EstimationForm::theorem1;
  throw py::value_error(fmt::format("sparsity: form must be definition5, definition5_e or theorem1, got '{}'", s));
}

sparsity::TradeoffParams tradeoff(double N, double m, double d_N, double T, double a, double b, double delta) {
  const char* fn = "sparsity";
  sparsity::TradeoffParams p;
  p.N = finite_at_least(fn, "N", N, 1.0);
  p.m = finite_at_least(fn, "m", m, 1.0);
  p.d_N = finite_positive(fn, "d_N", d_N);
  p.T = static_cast<std::int64_t>(integral(fn, "T", T, 1.0, 1099511627776.0));  // 2^40, the library's limit
  p.a = finite_positive(fn, "a", a);
  p.b = finite_positive(fn, "b", b);
  p.delta = probability_open(fn, "delta", delta);
  return p;
}

/// The task-difficulty model (sparsity::DifficultySpec) from the keyword arguments, checked with messages
/// naming the argument; the trade-off under it through sparsity::with_difficulty (the studies' path).
sparsity::TradeoffParams with_difficulty(const char* fn, const sparsity::TradeoffParams& p, const std::string& difficulty,
                                         double alpha, const std::string& profile, double gamma,
                                         const std::optional<std::vector<double>>& D) {
  sparsity::DifficultySpec spec;
  if (!sparsity::parse_difficulty(difficulty, spec.kind))
    throw py::value_error(fmt::format("{}: difficulty must be uniform or powerlaw, got '{}'", fn, difficulty));
  if (!sparsity::parse_difficulty_profile(profile, spec.profile))
    throw py::value_error(fmt::format("{}: profile must be index, power or list, got '{}'", fn, profile));
  if (spec.kind == sparsity::Difficulty::uniform) return p;
  require(std::isfinite(alpha) && alpha > 1.0, fn, "alpha", "> 1 (App. A.5)", alpha);
  spec.alpha = alpha;
  require(p.N == std::floor(p.N) && p.N <= 1e4, fn, "N", "an integer <= 1e4 for a power-law difficulty", p.N);
  if (spec.profile == sparsity::DifficultyProfile::power) spec.gamma = finite_positive(fn, "gamma", gamma);
  if (spec.profile == sparsity::DifficultyProfile::list) {
    if (!D || static_cast<double>(D->size()) != p.N)
      throw py::value_error(fmt::format("{}: profile 'list' needs D with N = {} entries", fn, p.N));
    for (double x : *D) finite_positive(fn, "D", x);
    spec.D = *D;
  } else if (D) {
    throw py::value_error(fmt::format("{}: D is used only with profile='list'", fn));
  }
  return sparsity::with_difficulty(p, spec);
}

}  // namespace

void bind_bounds(py::module_& m) {
  auto b = m.def_submodule("bounds", "Generalization bounds of the compositional paper (Theorem 1, growth functions)");
  b.def("theorem1", [](double C, double rademacher, double k, double N, double d_N, double T, double m_, double delta,
                       const std::string& form, double max_gate_weight) {
    const char* fn = "theorem1";
    bounds::Theorem1Params p;
    p.C = finite_positive(fn, "C", C);
    p.rademacher = finite_at_least(fn, "rademacher", rademacher, 0.0);
    p.T = integral(fn, "T", T, 1.0, kMaxCount);
    p.k = integral(fn, "k", k, 1.0, p.T);
    p.N = integral(fn, "N", N, 1.0, kMaxCount);
    p.d_N = integral(fn, "d_N", d_N, 0.0, kMaxCount);
    p.m = integral(fn, "m", m_, 1.0, kMaxCount);
    p.delta = probability_open(fn, "delta", delta);
    require(max_gate_weight > 0.0 && max_gate_weight <= 1.0, fn, "max_gate_weight", "in (0, 1]", max_gate_weight);
    p.max_gate_weight = max_gate_weight;
    if (form == "printed") return terms_dict(bounds::theorem1_printed(p));
    if (form == "eq17") return terms_dict(bounds::theorem1_eq17(p));
    if (form == "derived") return terms_dict(bounds::theorem1_derived(p));
    throw py::value_error(fmt::format("theorem1: form must be printed, eq17 or derived, got '{}'", form));
  }, py::kw_only(), py::arg("C"), py::arg("rademacher"), py::arg("k"), py::arg("N"), py::arg("d_N"), py::arg("T"),
     py::arg("m"), py::arg("delta") = 0.05, py::arg("form") = "printed", py::arg("max_gate_weight") = 1.0,
     "Theorem 1 (compositional, Eq. 5) term by term, keyword arguments only (the names of `moelab bound "
     "theorem1`'s options: m, T, k, N, d_N, C, rademacher, delta): form 'printed' (Eq. 5 = Eq. 18), 'eq17' (log C(T, k) "
     "kept exact) or 'derived' (the proof with its arithmetic corrected; docs/bounds.md). Returns a dict "
     "with rademacher_term, log_growth_routing, log_growth_sample, log_confidence, denominator, "
     "deviation_term, total.");
  b.def("log_binomial", [](double n, double k) {
    integral("log_binomial", "n", n, 0.0, kMaxCount);
    integral("log_binomial", "k", k, 0.0, n);
    return moelab::log_binomial(n, k);
  }, py::arg("n"), py::arg("k"), "log C(n, k), accurate to a few eps for n < 2^53.");
  b.def("log_natarajan_growth", [](double m_, double d, double labels) {
    finite_at_least("log_natarajan_growth", "m", m_, 1.0);
    finite_at_least("log_natarajan_growth", "d", d, 0.0);
    finite_at_least("log_natarajan_growth", "labels", labels, 1.0);
    return bounds::log_natarajan_growth(m_, d, labels);
  }, py::arg("m"), py::arg("d"), py::arg("labels"), "Natarajan lemma as printed (Lemma 6): d log m + 2 d log(labels).");
  b.def("log_haussler_long", [](double m_, double d, double labels) {
    integral("log_haussler_long", "m", m_, 1.0, kMaxCount);
    integral("log_haussler_long", "d", d, 0.0, 1e7);
    integral("log_haussler_long", "labels", labels, 2.0, kMaxCount);
    return bounds::log_haussler_long(m_, d, labels);
  }, py::arg("m"), py::arg("d"), py::arg("labels"), "Haussler-Long: log sum_{i<=d} C(m, i) C(labels, 2)^i (exact).");
  b.def("log_mask_growth", [](double T, double k, double N, double d_N, double m_, bool relaxed) {
    const char* fn = "log_mask_growth";
    integral(fn, "T", T, 1.0, kMaxCount);
    integral(fn, "k", k, 1.0, T);
    finite_at_least(fn, "N", N, 1.0);
    finite_at_least(fn, "d_N", d_N, 0.0);
    finite_at_least(fn, "m", m_, 1.0);
    return relaxed ? bounds::log_mask_growth_relaxed(T, k, N, d_N, m_) : bounds::log_mask_growth(T, k, N, d_N, m_);
  }, py::arg("T"), py::arg("k"), py::arg("N"), py::arg("d_N"), py::arg("m"), py::arg("relaxed") = false,
     "Eq. 13: 2 N d_N log C(T, k) + N d_N log(2m); relaxed=True gives Eq. 18's 2 k N d_N log T + N d_N log(2m).");
}

void bind_sparsity(py::module_& m) {
  auto s = m.def_submodule("sparsity", "The k* trade-off of the compositional paper (Sec. 4.3)");
  s.def("total_error", [](const py::array_t<double>& k, double N, double m_, double d_N, double T, double a, double b,
                          double delta, const std::string& form, const std::string& part, const std::string& difficulty,
                          double alpha, const std::string& profile, double gamma, const std::optional<std::vector<double>>& D) {
    const auto p = with_difficulty("total_error", tradeoff(N, m_, d_N, T, a, b, delta), difficulty, alpha, profile, gamma, D);
    const auto f = estimation_form(form);
    if (part != "total" && part != "approximation" && part != "estimation")
      throw py::value_error(fmt::format("total_error: part must be total, approximation or estimation, got '{}'", part));
    return py::array_t<double>(py::vectorize([&](double kk) {
      require(std::isfinite(kk) && kk >= 1.0 && kk <= static_cast<double>(p.T), "total_error", "k", "in [1, T]", kk);
      if (part == "approximation") return sparsity::approximation_error(kk, p);
      if (part == "estimation") return sparsity::estimation_error(kk, p, f);
      return sparsity::total_error(kk, p, f);
    })(k));
  }, py::arg("k"), py::arg("N"), py::arg("m"), py::arg("d_N"), py::arg("T"), py::arg("a") = 1.0, py::arg("b") = 1.0,
     py::arg("delta") = 0.05, py::arg("form") = "definition5", py::arg("part") = "total", py::arg("difficulty") = "uniform",
     py::arg("alpha") = 2.0, py::arg("profile") = "index", py::arg("gamma") = 1.0, py::arg("D") = py::none(),
     "E_total(k) = a N^2/k + E_est(k) (or one part), vectorised over k; form: definition5 (as printed), "
     "definition5_e (e restored) or theorem1 (Theorem 1's k-term). difficulty='powerlaw' weights the "
     "compositions by App. A.5's (D_i + D_i')^-alpha (E_approx = a W / k), D_i = i (profile 'index'), "
     "i^gamma ('power') or the list D ('list'): the parameters of sparsity.kstar_difficulty.");
  s.def("k_star", [](double N, double m_, double d_N, double T, double a, double b, double delta, const std::string& form,
                     const std::string& difficulty, double alpha, const std::string& profile, double gamma,
                     const std::optional<std::vector<double>>& D) {
    const auto p = with_difficulty("k_star", tradeoff(N, m_, d_N, T, a, b, delta), difficulty, alpha, profile, gamma, D);
    const auto f = estimation_form(form);
    const auto ki = sparsity::integer_k_star(p, f);
    const auto kr = sparsity::real_k_star(p, f);
    py::dict d;
    d["k_integer"] = ki.k;
    d["error_integer"] = ki.error;
    d["k_real"] = kr.k;
    d["error_real"] = kr.error;
    return d;
  }, py::arg("N"), py::arg("m"), py::arg("d_N"), py::arg("T"), py::arg("a") = 1.0, py::arg("b") = 1.0,
     py::arg("delta") = 0.05, py::arg("form") = "definition5", py::arg("difficulty") = "uniform", py::arg("alpha") = 2.0,
     py::arg("profile") = "index", py::arg("gamma") = 1.0, py::arg("D") = py::none(),
     "k* over the integers 1..T and over the reals [1, T]. Under Definition 5 as printed k* = T always "
     "(docs/sparsity.md); form='theorem1' gives Theorem 1's own trade-off. difficulty='powerlaw' (alpha > 1, "
     "profile, gamma, D as in total_error) uses App. A.5's weights: the same code as sparsity.kstar_difficulty.");
}

void bind_scaling(py::module_& m) {
  auto s = m.def_submodule("scaling", "The scaling paper's covering bound, rates and compute-optimal allocation");
  s.def("covering_bound", [](double P_attn, double P_exp, double L, double k, double M, double ell, double kappa,
                             double R, double delta) {
    const char* fn = "covering_bound";
    scaling::CoveringParams p;
    p.P_attn = finite_at_least(fn, "P_attn", P_attn, 0.0);
    p.P_exp = finite_positive(fn, "P_exp", P_exp);
    p.L = finite_at_least(fn, "L", L, 1.0);
    p.M = finite_at_least(fn, "M", M, 1.0);
    require(std::isfinite(k) && k >= 1.0 && k <= p.M, fn, "k", "in [1, M]", k);
    p.k = k;
    p.ell = finite_at_least(fn, "ell", ell, 1.0);
    p.kappa = finite_positive(fn, "kappa", kappa);
    p.R = finite_positive(fn, "R", R);
    finite_positive(fn, "delta", delta);
    const auto c = scaling::covering_number_bound(p, delta);
    py::dict d;
    d["active_parameters"] = c.active_parameters;
    d["log_scale"] = c.log_scale;
    d["parameter_entropy"] = c.parameter_entropy;
    d["routing_overhead"] = c.routing_overhead;
    d["routing_overhead_exact"] = scaling::routing_overhead_exact(p);
    d["total"] = c.total;
    return d;
  }, py::arg("P_attn"), py::arg("P_exp"), py::arg("L"), py::arg("k"), py::arg("M"), py::arg("ell"), py::arg("kappa") = 1.0,
     py::arg("R") = 1.0, py::arg("delta") = 0.01,
     "Lemma 3.7 (constant 1): (P_attn + L k P_exp) log(kappa R M0/delta) + L ell k log(e M/k), term by term, "
     "with the exact routing count L ell log C(M, k) beside it.");
  s.def("approximation_rate", [](const py::array_t<double>& n, double beta, double d, double C) {
    finite_positive("approximation_rate", "beta", beta);
    finite_at_least("approximation_rate", "d", d, 1.0);
    finite_positive("approximation_rate", "C", C);
    return py::array_t<double>(py::vectorize([=](double v) {
      require(std::isfinite(v) && v >= 1.0, "approximation_rate", "n", "finite and >= 1", v);
      return scaling::approximation_rate_active(v, beta, d, C);
    })(n));
  }, py::arg("n"), py::arg("beta"), py::arg("d"), py::arg("C") = 1.0,
     "C n^(-beta/d): Theorem 4.3's rate in active parameters or in experts (vectorised over n).");
  s.def("compute_optimal", [](const py::array_t<double>& F, double E0, double A, double alpha_N, double B, double alpha_D,
                              double c) {
    const char* fn = "compute_optimal";
    scaling::LossModel lm;
    lm.E0 = finite_at_least(fn, "E0", E0, 0.0);
    lm.A = finite_positive(fn, "A", A);
    lm.alpha_N = finite_positive(fn, "alpha_N", alpha_N);
    lm.B = finite_positive(fn, "B", B);
    lm.alpha_D = finite_positive(fn, "alpha_D", alpha_D);
    finite_positive(fn, "c", c);
    auto Fa = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(F);
    std::vector<double> fs(Fa.data(), Fa.data() + Fa.size());
    for (double f : fs) require(std::isfinite(f) && f > c, fn, "F", "finite and > c", f);
    const auto pts = scaling::compute_optimal_curve(lm, fs, c);
    py::array_t<double> N(Fa.size()), D(Fa.size()), L(Fa.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
      N.mutable_at(i) = pts[i].N_opt;
      D.mutable_at(i) = pts[i].D_opt;
      L.mutable_at(i) = pts[i].loss;
    }
    py::dict d;
    d["N_opt"] = N;
    d["D_opt"] = D;
    d["loss"] = L;
    const auto ex = scaling::allocation_exponents(lm);
    d["exponent_N"] = ex.a;
    d["exponent_D"] = ex.b;
    return d;
  }, py::arg("F"), py::arg("E0") = 0.0, py::arg("A") = 1.0, py::arg("alpha_N") = 0.5, py::arg("B") = 1.0,
     py::arg("alpha_D") = 0.5, py::arg("c") = 6.0,
     "Compute-optimal N_act and D under F = c N D for L = E0 + A N^-alpha_N + B D^-alpha_D (closed form; "
     "the assumed loss model is stated in docs/sparsity.md). Arrays over F, and the allocation exponents.");
}

}  // namespace moelab::python
