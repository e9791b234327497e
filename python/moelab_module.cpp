// The Python module `moelab` (pybind11): the catalogue's studies and claims, and closed forms, for
// notebooks. Everything runs the same C++ as the CLI: `moelab.run(...)` is `moelab run` on a
// scenario built from a dict, `moelab.check(...)` is `moelab check`. Bad input raises ValueError with
// the CLI's message (file, key, reason); nothing is printed.
//
//   import moelab, pandas as pd
//   r = moelab.run("spectra.spike", {"params": {"M": 100, "c": 0.5, "ell": 4.0}}, trials=200)
//   df = pd.DataFrame(r["data"]); r["metadata"]["backend"]
//   moelab.run("spectra.spike", {...}, sweep={"params.ell": [1.0, 2.0, 4.0]})
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <toml++/toml.h>

#include "moelab/catalogue/catalogue.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/progress.hpp"
#include "moelab/core/version.hpp"
#include "moelab/scenario/runner.hpp"
#include "bind_common.hpp"

namespace py = pybind11;
using namespace moelab;

namespace {

// The deepest nesting of dicts and lists converted (a scenario needs 3 or 4 levels); deeper input
// (30,000 levels, or a dict that contains itself) raises ValueError instead of exhausting the stack.
constexpr std::size_t kMaxDepth = 64;

/// The containers on the path from the root to the value being converted (cycle detection).
using Path = std::vector<const PyObject*>;

/// A Python value as a TOML node (dict -> table, list/tuple -> array, bool, int, float, str).
void insert_value(toml::table& t, const std::string& key, const py::handle& v, const std::string& path, Path& open);

void enter(const py::handle& v, const std::string& path, Path& open) {
  if (std::find(open.begin(), open.end(), v.ptr()) != open.end())
    throw py::value_error(fmt::format("{}: the value contains itself (a cyclic dict or list)", path.empty() ? "params" : path));
  if (open.size() >= kMaxDepth)
    throw py::value_error(fmt::format("{}: nested deeper than {} levels", path.empty() ? "params" : path, kMaxDepth));
  open.push_back(v.ptr());
}

toml::array to_array(const py::handle& seq, const std::string& path, Path& open) {
  enter(seq, path, open);
  toml::array a;
  std::size_t i = 0;
  for (const auto& item : seq) {
    toml::table holder;
    insert_value(holder, "x", item, fmt::format("{}[{}]", path, i++), open);
    a.push_back(std::move(*holder.get("x")));
  }
  open.pop_back();
  return a;
}

toml::table to_table(const py::dict& d, const std::string& path, Path& open) {
  enter(d, path, open);
  toml::table t;
  for (const auto& [k, v] : d) {
    if (!py::isinstance<py::str>(k)) throw py::value_error(fmt::format("{}: keys must be strings", path.empty() ? "params" : path));
    const auto key = k.cast<std::string>();
    insert_value(t, key, v, path.empty() ? key : path + "." + key, open);
  }
  open.pop_back();
  return t;
}

toml::table to_table(const py::dict& d, const std::string& path) {
  Path open;
  return to_table(d, path, open);
}

/// True for a Python int or a NumPy integer scalar (anything with __index__ that is not a bool, a
/// float or a container).
bool is_integer(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return false;
  if (py::isinstance<py::int_>(v)) return true;
  return PyIndex_Check(v.ptr()) && !py::isinstance<py::float_>(v) && !py::hasattr(v, "__len__");
}

/// An integer value as int64: OverflowError naming `what` when it does not fit (not pybind11's
/// "Unable to cast").
std::int64_t checked_int64(const py::handle& v, const std::string& what) {
  const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0) {
    const std::string text = std::string(py::str(i));
    PyErr_SetString(PyExc_OverflowError,
                    fmt::format("{}: {} is outside the 64-bit integer range", what,
                                text.size() > 40 ? text.substr(0, 40) + "..." : text).c_str());
    throw py::error_already_set();
  }
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<std::int64_t>(x);
}

void insert_value(toml::table& t, const std::string& key, const py::handle& v, const std::string& path, Path& open) {
  if (py::isinstance<py::bool_>(v)) t.insert_or_assign(key, v.cast<bool>());
  else if (is_integer(v)) t.insert_or_assign(key, checked_int64(v, path));  // int and NumPy integer scalars
  else if (py::isinstance<py::float_>(v)) t.insert_or_assign(key, v.cast<double>());
  else if (py::isinstance<py::str>(v)) t.insert_or_assign(key, v.cast<std::string>());
  else if (py::isinstance<py::dict>(v)) t.insert_or_assign(key, to_table(v.cast<py::dict>(), path, open));
  else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v) || py::isinstance<py::array>(v)) t.insert_or_assign(key, to_array(v, path, open));
  else if (py::hasattr(v, "__float__") && !py::hasattr(v, "__len__")) t.insert_or_assign(key, v.cast<double>());  // numpy scalars
  else throw py::value_error(fmt::format("{}: unsupported value type {}", path, std::string(py::str(v.get_type()))));
}

/// An integer argument (int or NumPy integer): TypeError for another type, OverflowError naming the
/// argument beyond 64 bits.
std::int64_t int_arg(const py::handle& v, const char* name) {
  if (!is_integer(v))
    throw py::type_error(fmt::format("{}: must be an integer, got {}", name, std::string(py::str(v.get_type()))));
  return checked_int64(v, name);
}

std::string toml_text(const toml::table& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

/// {"data": {column: numpy array or list of str}, "metadata": {key: value}, "columns": [...]}.
py::dict to_python(const CsvTable& t) {
  py::dict data;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool all_int = true, all_num = true;
    for (const auto& row : t.rows) {
      all_int &= std::holds_alternative<std::int64_t>(row[c]);
      all_num &= !std::holds_alternative<std::string>(row[c]);
    }
    if (all_int && !t.rows.empty()) {
      py::array_t<std::int64_t> a(static_cast<py::ssize_t>(t.rows.size()));
      auto w = a.mutable_unchecked<1>();
      for (std::size_t r = 0; r < t.rows.size(); ++r) w(static_cast<py::ssize_t>(r)) = std::get<std::int64_t>(t.rows[r][c]);
      data[py::str(t.columns[c])] = a;
    } else if (all_num) {
      py::array_t<double> a(static_cast<py::ssize_t>(t.rows.size()));
      auto w = a.mutable_unchecked<1>();
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& cell = t.rows[r][c];
        w(static_cast<py::ssize_t>(r)) = std::holds_alternative<double>(cell) ? std::get<double>(cell)
                                                                              : static_cast<double>(std::get<std::int64_t>(cell));
      }
      data[py::str(t.columns[c])] = a;
    } else {
      py::list l;
      for (const auto& row : t.rows) l.append(py::str(format_cell(row[c])));
      data[py::str(t.columns[c])] = l;
    }
  }
  py::dict meta;
  for (const auto& [k, v] : t.metadata) {
    if (meta.contains(k)) meta[py::str(k)] = py::str(std::string(py::str(meta[py::str(k)])) + ", " + v);  // repeated keys (sweep)
    else meta[py::str(k)] = py::str(v);
  }
  py::dict out;
  out["data"] = data;
  out["metadata"] = meta;
  out["columns"] = t.columns;
  return out;
}

/// The result dict as a pandas DataFrame (columns in the table's order) with the metadata in
/// df.attrs["metadata"]; ImportError naming the Debian package when pandas is missing.
py::object as_frame(const py::dict& r) {
  py::module_ pd;
  try {
    pd = py::module_::import("pandas");
  } catch (py::error_already_set&) {
    throw py::import_error("moelab: frame=True needs pandas (Debian: apt-get install python3-pandas)");
  }
  py::object df = pd.attr("DataFrame")(r["data"], py::arg("columns") = r["columns"]);
  df.attr("attrs")[py::str("metadata")] = r["metadata"];
  return df;
}

McBudget budget_of(std::int64_t trials, std::int64_t seed, std::int64_t threads, const std::string& backend) {
  if (trials < 1) throw py::value_error(fmt::format("trials: must be >= 1, got {}", trials));
  if (seed < 0) throw py::value_error(fmt::format("seed: must be >= 0, got {}", seed));
  if (threads < 0 || threads > 4096) throw py::value_error(fmt::format("threads: must be in 0..4096, got {}", threads));
  const auto b = parse_backend(backend);
  if (!b) throw py::value_error(fmt::format("backend: must be cpu, cuda or auto, got '{}'", backend));
  McBudget out;
  out.trials = trials;
  out.seed = static_cast<std::uint64_t>(seed);
  out.threads = static_cast<int>(threads);
  out.backend = *b;
  return out;
}

py::object run_study(const std::string& name, const py::dict& tables, const py::dict& sweep, const py::object& trials_arg,
                     const py::object& seed_arg, const py::object& threads_arg, const std::string& backend, bool frame) {
  const std::int64_t trials = int_arg(trials_arg, "trials"), seed = int_arg(seed_arg, "seed");
  const std::int64_t threads = int_arg(threads_arg, "threads");
  const StudyDef* s = catalogue::find_study(name);
  if (s == nullptr) throw py::value_error(fmt::format("unknown study '{}' (moelab.studies() lists them)", name));
  toml::table doc = to_table(tables, "");
  doc.insert_or_assign("study", name);
  if (!sweep.empty()) doc.insert_or_assign("sweep", to_table(sweep, "sweep"));
  const McBudget b = budget_of(trials, seed, threads, backend);
  CsvTable t;
  {
    py::gil_scoped_release release;  // the run is pure C++ (OpenMP inside)
    const Scenario sc = parse_scenario(toml_text(doc), "<python>");
    t = run_scenario(*s, sc, b);
  }
  py::dict r = to_python(t);
  return frame ? as_frame(r) : py::object(r);
}

py::object run_scenario_file(const std::string& path, const py::object& trials_arg, const py::object& seed_arg,
                             const py::object& threads_arg, const std::string& backend, bool frame) {
  const std::optional<std::int64_t> trials = trials_arg.is_none() ? std::nullopt : std::optional(int_arg(trials_arg, "trials"));
  const std::optional<std::int64_t> seed = seed_arg.is_none() ? std::nullopt : std::optional(int_arg(seed_arg, "seed"));
  const std::int64_t threads = int_arg(threads_arg, "threads");
  CsvTable t;
  {
    py::gil_scoped_release release;
    const Scenario sc = load_scenario(path);
    const McBudget b = budget_of(trials.value_or(sc.budget.trials), seed.value_or(static_cast<std::int64_t>(sc.budget.seed)),
                                 threads, backend);
    t = run_scenario(study_for(sc, catalogue::studies()), sc, b);
  }
  py::dict r = to_python(t);
  return frame ? as_frame(r) : py::object(r);
}

py::list check(const std::string& only, const py::object& seed_arg, bool full, double alpha) {
  const std::int64_t seed = int_arg(seed_arg, "seed");
  if (!(alpha > 0.0 && alpha <= 0.5)) throw py::value_error(fmt::format("alpha: must be in (0, 0.5], got {}", alpha));
  if (seed < 0) throw py::value_error(fmt::format("seed: must be >= 0, got {}", seed));
  const auto selected = catalogue::claims().select(only);
  if (selected.empty()) throw py::value_error(fmt::format("no claim matches '{}'", only));
  claims::CheckBudget budget;
  budget.full = full;
  budget.seed = static_cast<std::uint64_t>(seed);
  claims::SuiteResult r;
  {
    py::gil_scoped_release release;
    r = claims::run_suite(selected, budget, alpha, catalogue::claims().all().size(), false);
  }
  catalogue::annotate_documented(r);
  py::list out;
  for (const auto& o : r.outcomes) {
    py::dict d;
    d["id"] = o.claim->id;
    d["source"] = o.claim->source;
    d["verdict"] = claims::to_string(o.verdict);
    d["documented"] = o.documented ? py::cast(claims::to_string(*o.documented)) : py::none();
    d["status"] = claims::documented_status(o, budget);
    d["reason"] = o.reason;
    d["printed_estimate"] = o.evidence.printed.estimate;
    d["printed_std_error"] = o.evidence.printed.std_error;
    d["printed_reference"] = o.evidence.printed.reference;
    d["printed_p"] = o.evidence.printed.p_value;
    d["printed_p_adj"] = o.printed_p_adj;
    d["exact_reference"] = o.evidence.exact ? py::cast(o.evidence.exact->reference) : py::none();
    d["exact_p_adj"] = o.evidence.exact ? py::cast(o.exact_p_adj) : py::none();
    d["controls_rejected"] = o.controls_rejected;
    d["controls"] = o.evidence.controls.size();
    d["relevance"] = o.relevance;
    d["min_detectable"] = o.min_detectable;
    d["note"] = o.evidence.note;
    out.append(d);
  }
  return out;
}

}  // namespace

namespace moelab::python {
toml::table to_toml_table(const py::dict& d, const std::string& path) { return to_table(d, path); }
}  // namespace moelab::python

PYBIND11_MODULE(moelab, m) {
  m.doc() = "moelab: closed forms, studies and claims of the sparse Mixture-of-Experts papers (docs/python.md)";
  m.attr("__version__") = std::string(kVersion);
  Progress::set_enabled(false);  // no progress bars inside notebooks
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const RuntimeFailure& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  m.def("studies", [] {
    std::vector<std::string> out;
    for (const auto& s : catalogue::studies()) out.push_back(s.name);
    return out;
  }, "Names of every registered study.");
  m.def("describe", [](const std::string& name) {
    const StudyDef* s = catalogue::find_study(name);
    if (s == nullptr) throw py::value_error(fmt::format("unknown study '{}'", name));
    return describe_study(*s);
  }, py::arg("study"), "A study's parameters (type, domain, default, unit) and columns, as text.");
  m.def("run", &run_study, py::arg("study"), py::arg("tables"), py::arg("sweep") = py::dict(), py::arg("trials") = 1000,
        py::arg("seed") = 1, py::arg("threads") = 0, py::arg("backend") = "cpu", py::arg("frame") = false,
        "Runs a study on the parameters `tables` ({'params': {...}, 'model': {...}}), over the cartesian "
        "`sweep` ({'params.n': [...]}) if given. Returns {'data': {column: array}, 'metadata': {...}, "
        "'columns': [...]} (frame=True: a pandas DataFrame with df.attrs['metadata']); the same numbers as "
        "`moelab run` on the equivalent scenario file.");
  m.def("run_scenario", &run_scenario_file, py::arg("path"), py::arg("trials") = py::none(), py::arg("seed") = py::none(),
        py::arg("threads") = 0, py::arg("backend") = "auto", py::arg("frame") = false,
        "Runs a scenario file (as `moelab run`), returning the table (frame=True: a pandas DataFrame).");
  m.def("frame", &as_frame, py::arg("result"), "A run's result dict as a pandas DataFrame (metadata in df.attrs['metadata']).");
  m.def("claims", [] {
    py::list out;
    for (const auto& c : catalogue::claims().all()) {
      py::dict d;
      d["id"] = c.id;
      d["source"] = c.source;
      d["statement"] = c.statement;
      d["kind"] = claims::to_string(c.kind);
      out.append(d);
    }
    return out;
  }, "Every registered claim: id, source, statement, kind.");
  m.def("check", &check, py::arg("only") = "", py::arg("seed") = 1, py::arg("full") = false, py::arg("alpha") = 0.01,
        "Runs the claims whose id matches `only` (substring or glob) and judges them as `moelab check` does "
        "(each test at alpha / the number of registered claims, whichever claims are selected). Returns one dict per claim.");

  python::bind_spectra(m);
  python::bind_bounds(m);
  python::bind_sparsity(m);
  python::bind_scaling(m);
  python::bind_noisy(m);
}
