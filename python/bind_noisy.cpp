// moelab.noisy: the noisy paper's closed forms on a block model given as the scenario file's [model]
// table (a dict): Bayes estimators (Eq. 3), risks (Eq. 4), Theorems 2-5 printed and exact, App. A.6.3.
// The model goes through the same parser as scenario files (noisy/model_params.hpp), so its domain
// checks and messages are the CLI's.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <toml++/toml.h>

#include "bind_common.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/model.hpp"
#include "moelab/noisy/model_params.hpp"
#include "moelab/noisy/risk.hpp"
#include "moelab/noisy/theorems.hpp"
#include "moelab/scenario/params.hpp"

namespace moelab::python {

namespace {

noisy::Model parse(const py::dict& d) {
  toml::table root;
  root.insert_or_assign("model", to_toml_table(d, "model"));
  const ParamView v(root, "<python>");
  noisy::Model m = noisy::parse_model(v, "model");
  v.check_all_used();
  return m;
}

noisy::Misroute misroute(const noisy::Model& m, int i, int j, double eta) {
  if (i < 0 || i >= m.k() || j < 0 || j >= m.k() || i == j)
    throw py::value_error(fmt::format("thm4: i and j must be distinct experts in 0..{}, got i = {}, j = {}", m.k() - 1, i, j));
  require(std::isfinite(eta), "thm4", "eta", "finite", eta);
  return noisy::Misroute{i, j, eta};
}

void check_a63(double beta, double lambda2, double sigma2, double n) {
  require(std::isfinite(beta), "a63", "beta", "finite", beta);
  finite_positive("a63", "lambda2", lambda2);
  finite_positive("a63", "sigma2", sigma2);
  require(std::isfinite(n) && n >= 3.0, "a63", "n", "finite and >= 3 (the exact forms need E[1/chi2_n])", n);
}

}  // namespace

void bind_noisy(py::module_& m) {
  auto s = m.def_submodule("noisy", "The noisy paper's block model: Bayes estimators, risks, Theorems 2-5");
  py::class_<noisy::Model>(s, "Model", "A block model (noisy paper, Sec. 3.2); build it with moelab.noisy.model({...}).")
      .def_property_readonly("k", &noisy::Model::k, "number of experts (blocks)")
      .def_property_readonly("d", &noisy::Model::d, "total dimension")
      .def_property_readonly("p", [](const noisy::Model& x) { return x.p; }, "routing probabilities")
      .def_property_readonly("sigma2", [](const noisy::Model& x) { return x.sigma2; }, "feature-noise variance")
      .def_property_readonly("covariances", [](const noisy::Model& x) { return x.sigma; }, "Sigma_i, one matrix per block")
      .def_property_readonly("beta", [](const noisy::Model& x) { return x.beta_star; }, "beta_i*, one vector per block")
      .def("__repr__", [](const noisy::Model& x) { return fmt::format("<moelab.noisy.Model k={} d={} sigma2={}>", x.k(), x.d(), x.sigma2); });

  s.def("model", &parse, py::arg("table"),
        "The scenario file's [model] table as a dict, e.g. {'k': 4, 'block_size': 8, 'p': 'uniform', 'sigma2': 0.5, "
        "'covariance': {'kind': 'toeplitz', 'rho': 0.5}, 'beta': {'kind': 'random', 'seed': 7}} (docs/scenarios.md).");
  s.def("bayes_dense", [](const noisy::Model& x) { return noisy::bayes_dense_estimator(x); }, py::arg("model"),
        "Bayes-optimal dense estimator under feature noise (Eq. 3), a d-vector.");
  s.def("bayes_sparse", [](const noisy::Model& x) { return noisy::bayes_sparse_estimator(x); }, py::arg("model"),
        "Bayes-optimal correctly routed sparse estimator (Eq. 3 per block), one vector per expert.");
  s.def("dense_risk", [](const noisy::Model& x, const Eigen::VectorXd& b, std::optional<double> test_noise) {
    if (b.size() != x.d()) throw py::value_error(fmt::format("dense_risk: b must have length d = {}, got {}", x.d(), b.size()));
    if (!b.allFinite()) throw py::value_error("dense_risk: b must be finite");
    if (test_noise) finite_at_least("dense_risk", "test_noise", *test_noise, 0.0);
    noisy::RiskOptions o;
    o.test_noise = test_noise;
    return noisy::dense_risk(x, b, o);
  }, py::arg("model"), py::arg("b"), py::arg("test_noise") = py::none(),
     "Exact risk (Eq. 4) of a dense estimator b; test_noise = sigma_o^2 (Thm 3), default the training sigma2.");
  s.def("thm2", [](const noisy::Model& x) {
    py::dict d;
    d["dense"] = noisy::thm2_dense_risk(x);
    d["sparse"] = noisy::thm2_sparse_risk(x);
    return d;
  }, py::arg("model"), "Theorem 2: Bayes risks of the dense and the correctly routed sparse estimator.");
  s.def("thm3", [](const noisy::Model& x, double sigma_o2) {
    finite_at_least("thm3", "sigma_o2", sigma_o2, 0.0);
    py::dict d;
    d["dense"] = noisy::thm3_dense_risk(x, sigma_o2);
    d["sparse"] = noisy::thm3_sparse_risk(x, sigma_o2);
    d["slope_difference"] = noisy::thm3_slope_difference(x);
    d["crossover_noise"] = noisy::thm3_crossover_noise(x);
    d["printed_condition"] = noisy::thm3_printed_sufficient_condition(x, sigma_o2);
    d["exact_condition"] = noisy::thm3_exact_sufficient_condition(x);
    return d;
  }, py::arg("model"), py::arg("sigma_o2"),
     "Theorem 3: risks under test-time noise sigma_o^2, the slope difference, the crossover noise, and the "
     "printed and exact sufficient conditions (docs/errata.md).");
  s.def("thm4", [](const noisy::Model& x, int i, int j, double eta) {
    const auto r = misroute(x, i, j, eta);
    py::dict d;
    d["dense_printed"] = noisy::thm4_dense_risk_printed(x, r);
    d["sparse_printed"] = noisy::thm4_sparse_risk_printed(x, r);
    d["dense_exact"] = noisy::thm4_dense_risk_exact(x, r);
    d["sparse_exact"] = noisy::thm4_sparse_risk_exact(x, r);
    return d;
  }, py::arg("model"), py::arg("i"), py::arg("j"), py::arg("eta") = 1.0,
     "Theorem 4: risks when an input of expert i carries eta x_j and the router picks j; printed and exact.");
  s.def("thm5_rate", [](const std::vector<double>& atoms, const std::vector<double>& weights, double c, double sigma2) {
    need(!atoms.empty() && atoms.size() == weights.size(), "thm5_rate: atoms and weights must be non-empty and of equal length");
    double total = 0.0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      require(std::isfinite(atoms[i]) && atoms[i] >= 0.0, "thm5_rate", "atoms[i]", "finite and >= 0", atoms[i]);
      require(std::isfinite(weights[i]) && weights[i] > 0.0, "thm5_rate", "weights[i]", "finite and > 0", weights[i]);
      total += weights[i];
    }
    require(std::abs(total - 1.0) <= 1e-9, "thm5_rate", "sum of weights", "1 (within 1e-9)", total);
    finite_positive("thm5_rate", "c", c);
    finite_positive("thm5_rate", "sigma2", sigma2);
    return noisy::thm5_rate_exact(atoms, weights, c, sigma2);
  }, py::arg("atoms"), py::arg("weights"), py::arg("c"), py::arg("sigma2"),
     "Theorem 5's GD contraction, exact large-size limit for a signal whose squared singular values have the "
     "law sum_j weights_j delta(atoms_j) (Dozier-Silverstein edges; docs/errata.md).");
  s.def("thm5_rate_printed", [](double lambda_max, double lambda_min, double c, double sigma2) {
    finite_positive("thm5_rate_printed", "lambda_max", lambda_max);
    require(std::isfinite(lambda_min) && lambda_min > 0.0 && lambda_min <= lambda_max, "thm5_rate_printed", "lambda_min",
            "in (0, lambda_max]", lambda_min);
    finite_positive("thm5_rate_printed", "c", c);
    finite_positive("thm5_rate_printed", "sigma2", sigma2);
    return noisy::thm5_rate_printed(lambda_max, lambda_min, c, sigma2);
  }, py::arg("lambda_max"), py::arg("lambda_min"), py::arg("c"), py::arg("sigma2"), "Theorem 5 as printed.");
  s.def("a63", [](double beta, double lambda2, double sigma2, double n) {
    check_a63(beta, lambda2, sigma2, n);
    py::dict d;
    d["bias_printed"] = noisy::a63_bias_printed(beta, lambda2, sigma2);
    d["bias_limit_exact"] = noisy::a63_bias_limit_exact(beta, lambda2, sigma2);
    d["bias_exact"] = noisy::a63_bias_exact(beta, lambda2, sigma2, n);
    d["variance_printed"] = noisy::a63_variance_printed(beta, lambda2, sigma2, n);
    d["variance_exact"] = noisy::a63_variance_exact(beta, lambda2, sigma2, n);
    d["excess_printed"] = noisy::a63_excess_printed(beta, lambda2, sigma2, n);
    d["excess_exact"] = noisy::a63_excess_exact(beta, lambda2, sigma2, n);
    return d;
  }, py::arg("beta"), py::arg("lambda2"), py::arg("sigma2"), py::arg("n"),
     "App. A.6.3 (1-D sparse expert, OLS on n noisy samples): bias, variance and excess, printed and exact.");
}

}  // namespace moelab::python
