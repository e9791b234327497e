// Shared helpers of the Python bindings: argument checks that raise ValueError naming the function,
// the argument, its domain and the value (the CLI's message form), and NumPy vectorisation.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <toml++/toml.h>

namespace moelab::python {

namespace py = pybind11;

inline void need(bool ok, const std::string& what) {
  if (!ok) throw py::value_error(what);
}

/// `fn: name must be <domain>, got <value>` unless `ok`.
inline void require(bool ok, const char* fn, const char* name, const char* domain, double value) {
  if (!ok) throw py::value_error(fmt::format("{}: {} must be {}, got {}", fn, name, domain, value));
}
inline double finite_positive(const char* fn, const char* name, double v) {
  require(std::isfinite(v) && v > 0.0, fn, name, "finite and > 0", v);
  return v;
}
inline double finite_at_least(const char* fn, const char* name, double v, double lo) {
  require(std::isfinite(v) && v >= lo, fn, name, lo == 0.0 ? "finite and >= 0" : lo == 1.0 ? "finite and >= 1" : "finite and in range", v);
  return v;
}
inline double probability_open(const char* fn, const char* name, double v) {
  require(v > 0.0 && v < 1.0, fn, name, "in (0, 1)", v);
  return v;
}
/// An integer-valued double in [lo, hi] (sizes the papers state as reals but mean as counts).
inline double integral(const char* fn, const char* name, double v, double lo, double hi) {
  require(std::isfinite(v) && v == std::floor(v) && v >= lo && v <= hi, fn, name,
          fmt::format("an integer in [{}, {}]", lo, hi).c_str(), v);
  return v;
}

/// A Python dict as a TOML table (nested dicts, lists, numbers, strings); `path` names it in messages.
toml::table to_toml_table(const py::dict& d, const std::string& path);

void bind_spectra(py::module_& m);
void bind_bounds(py::module_& m);
void bind_sparsity(py::module_& m);
void bind_scaling(py::module_& m);
void bind_noisy(py::module_& m);

}  // namespace moelab::python
