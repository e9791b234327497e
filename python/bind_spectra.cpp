// moelab.spectra: random-matrix closed forms (Marchenko-Pastur, Tracy-Widom, spiked covariance),
// vectorised over NumPy arrays. The C++ is lib/moelab/spectra (docs/accuracy.md for their accuracy).
#include <cmath>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bind_common.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"
#include "moelab/spectra/spiked_covariance.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace moelab::python {

void bind_spectra(py::module_& m) {
  auto sp = m.def_submodule("spectra", "Random-matrix closed forms");
  sp.def("mp_density", [](double c, double sigma2, const py::array_t<double>& x) {
    need(std::isfinite(c) && c > 0 && std::isfinite(sigma2) && sigma2 > 0, "c and sigma2 must be finite and > 0");
    const spectra::MarchenkoPastur mp(c, sigma2);
    return py::array_t<double>(py::vectorize([&mp](double v) { return mp.density(v); })(x));
  }, py::arg("c"), py::arg("sigma2"), py::arg("x"), "Marchenko-Pastur density of (1/N) X X', c = M/N, entry variance sigma2.");
  sp.def("mp_cdf", [](double c, double sigma2, const py::array_t<double>& x) {
    need(std::isfinite(c) && c > 0 && std::isfinite(sigma2) && sigma2 > 0, "c and sigma2 must be finite and > 0");
    const spectra::MarchenkoPastur mp(c, sigma2);
    return py::array_t<double>(py::vectorize([&mp](double v) { return mp.cdf(v); })(x));
  }, py::arg("c"), py::arg("sigma2"), py::arg("x"), "Marchenko-Pastur CDF (atom 1 - 1/c at 0 included for c > 1).");
  sp.def("mp_edges", [](double c, double sigma2) {
    need(std::isfinite(c) && c > 0 && std::isfinite(sigma2) && sigma2 > 0, "c and sigma2 must be finite and > 0");
    const spectra::MarchenkoPastur mp(c, sigma2);
    return py::make_tuple(mp.lower_edge(), mp.upper_edge());
  }, py::arg("c"), py::arg("sigma2") = 1.0, "Support edges sigma2 (1 -+ sqrt c)^2.");
  sp.def("tw_cdf", [](const py::array_t<double>& s, int beta) {
    need(beta == 1 || beta == 2 || beta == 4, "beta must be 1, 2 or 4");
    return py::array_t<double>(py::vectorize([beta](double v) { return spectra::tracy_widom_cdf(v, beta); })(s));
  }, py::arg("s"), py::arg("beta") = 1, "Tracy-Widom CDF F_beta (Bornemann's Fredholm determinants).");
  sp.def("tw_pdf", [](const py::array_t<double>& s, int beta) {
    need(beta == 1 || beta == 2 || beta == 4, "beta must be 1, 2 or 4");
    return py::array_t<double>(py::vectorize([beta](double v) { return spectra::tracy_widom_pdf(v, beta); })(s));
  }, py::arg("s"), py::arg("beta") = 1, "Tracy-Widom density.");
  sp.def("spiked_limit", [](double ell, double c, double sigma2) {
    need(ell > 0 && c > 0 && sigma2 > 0 && std::isfinite(ell + c + sigma2), "ell, c, sigma2 must be finite and > 0");
    return spectra::spiked_eigenvalue_limit(ell, c, sigma2);
  }, py::arg("ell"), py::arg("c"), py::arg("sigma2") = 1.0, "BBP limit of the top sample eigenvalue of a spiked covariance.");
  sp.def("spiked_overlap", [](double ell, double c) {
    need(ell > 0 && c > 0 && std::isfinite(ell + c), "ell and c must be finite and > 0");
    return spectra::spiked_eigenvector_overlap(ell, c);
  }, py::arg("ell"), py::arg("c"), "Limit of <v_hat, e_1>^2 (Paul 2007).");
}

}  // namespace moelab::python
