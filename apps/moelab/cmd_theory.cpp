// `moelab bound` and `moelab kstar`: the learning-theory closed forms of bounds/, sparsity/ and scaling/
// as CSV. Every numeric option takes one value or a comma-separated list; the rows are the cartesian
// product of the lists (first option slowest), so one query prints one row with all its terms and a grid
// prints a table. Formulas and conventions: docs/bounds.md, docs/sparsity.md.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <limits>

#include "commands.hpp"
#include "options.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/catalogue/catalogue.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"

namespace moelab::cli {

namespace {

double max_memory = 0;  // --max-memory (0: the machine's memory)

/// One list-valued option: its name (for messages), values, and the study parameter it sets.
struct Axis {
  std::string name;
  std::vector<double>* values;
  std::string key = "";  // e.g. "params.m"; empty: not passed to the study
};

/// Calls body(point) for every point of the cartesian product of the axes (first axis slowest).
void for_each_point(const std::vector<Axis>& axes, const std::function<void(const std::vector<double>&)>& body) {
  std::vector<std::size_t> idx(axes.size(), 0);
  // Counted in double: a product of list lengths can exceed 2^64 and must not wrap to a small grid.
  double size = 1;
  for (const auto& a : axes) size *= static_cast<double>(a.values->size());
  if (size > 1e7) bad_option(axes.front().name, fmt::format("the grid has {:.4g} points (at most 1e7)", size));
  const auto total = static_cast<std::size_t>(size);
  std::vector<double> point(axes.size());
  for (std::size_t n = 0; n < total; ++n) {
    for (std::size_t j = 0; j < axes.size(); ++j) point[j] = (*axes[j].values)[idx[j]];
    body(point);
    for (std::size_t j = axes.size(); j-- > 0;) {
      if (++idx[j] < axes[j].values->size()) break;
      idx[j] = 0;
    }
  }
}

/// The study's rows over the cartesian grid of `axes` (first slowest), computed by the study itself
/// (one implementation for `moelab run` and these commands). `fixed` adds TOML lines to [params].
/// A study's InputError about "params.x" is reported against the option that set it.
CsvTable run_grid(const std::string& study_name, const std::vector<Axis>& axes, const std::string& fixed = "",
                  std::int64_t trials = 1, std::uint64_t seed = 1) {
  const StudyDef* study = catalogue::find_study(study_name);
  MOELAB_EXPECT(study != nullptr, "the CLI names a registered study");
  const auto is_integer_param = [&](const std::string& key) {
    for (const auto& p : study->params)
      if (p.key == key) return p.type == ParamType::integer;
    return false;
  };
  const auto value = [&](const std::string& key, double x) {
    if (is_integer_param(key)) return fmt::format("{}", static_cast<std::int64_t>(std::llround(x)));
    std::string t = fmt::format("{}", x);
    if (t.find_first_of(".eEn") == std::string::npos) t += ".0";  // a TOML float (n: inf, nan)
    return t;
  };
  std::string params = "[params]\n" + fixed, sweep = "[sweep]\n";
  for (const auto& a : axes) {
    if (a.key.empty()) continue;
    const std::string leaf = a.key.substr(a.key.find('.') + 1);
    params += fmt::format("{} = {}\n", leaf, value(a.key, a.values->front()));
    if (a.values->size() > 1) {
      std::vector<std::string> vs;
      for (double x : *a.values) vs.push_back(value(a.key, x));
      sweep += fmt::format("\"{}\" = [{}]\n", a.key, fmt::join(vs, ", "));
    }
  }
  McBudget b;
  b.trials = trials;
  b.seed = seed;
  b.backend = BackendRequest::cpu;
  try {
    const Scenario sc = parse_scenario(fmt::format("study = \"{}\"\n{}{}", study_name, params, sweep), "command line");
    return run_scenario(*study, sc, b);
  } catch (const InputError& e) {
    for (const auto& a : axes)
      if (!a.key.empty() && (e.key() == a.key || e.key() == "sweep.\"" + a.key + "\"")) bad_option(a.name, e.reason());
    throw;
  }
}

CLI::Option* list_option(CLI::App* cmd, const std::string& flag, std::vector<double>& v, const std::string& help) {
  return real_list_option(cmd, flag, v, help);
}

/// Refuses (exit 2, naming `key`) a command whose estimated memory exceeds --max-memory or the
/// machine's memory, before any work; prints the estimate when it is large.
void check_memory(const std::string& key, double bytes, const std::string& what) {
  const double limit = max_memory > 0 ? max_memory : machine_memory_bytes();
  if (!(bytes <= limit))
    bad_option(key, fmt::format("the command would need about {} ({}), more than {} ({})", format_bytes(bytes), what,
                                max_memory > 0 ? "--max-memory" : "this machine's memory", format_bytes(limit)));
  if (bytes > 1e9) fmt::print(stderr, "moelab: estimate: about {} of memory ({})\n", format_bytes(bytes), what);
}

void add_max_memory(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
         "--max-memory", [](const std::string& s) { (void)parse_memory_size(s, max_memory); },
         "refuse a command whose estimated memory exceeds this (e.g. 8G, 512M; default: the machine's memory)")
      ->check(CLI::Validator(
          [](std::string& s) {
            double b = 0;
            return parse_memory_size(s, b) ? std::string() : "must be a size such as 8G, 512M or a number of bytes > 0";
          },
          "SIZE"));
}

void need(bool ok, const std::string& key, double x, const std::string& domain) {
  if (!ok || !std::isfinite(x)) bad_option(key, fmt::format("must be {}, got {}", domain, x));
}
bool is_int(double x) { return x == std::floor(x); }
/// x must be an integer >= lo (and <= hi when given): exit 2 naming the key otherwise.
void need_int(double x, const std::string& key, double lo, double hi = HUGE_VAL, const std::string& hi_name = "") {
  const bool ok = x >= lo && x <= hi && is_int(x);
  if (hi == HUGE_VAL) need(ok, key, x, fmt::format("an integer >= {}", lo));
  else need(ok, key, x, fmt::format("an integer in {}..{}", lo, hi_name.empty() ? fmt::format("{}", hi) : hi_name));
}

}  // namespace

void add_bound(CLI::App& app, int& exit_code) {
  auto* root = app.add_subcommand("bound", "Generalization bounds of the compositional and scaling papers, term by term (CSV)");
  root->require_subcommand(1);
  static std::string out;
  static std::vector<double> m{10000}, T{64}, k{4}, N{1}, dN{1}, C{1}, R{0.01}, Rs{}, delta{0.05}, wmax{1}, labels{2}, d{1};

  // ---- bound theorem1 ----
  auto* thm = root->add_subcommand("theorem1", "Theorem 1 (Eq. 5) as printed, with Eq. 17, derived (docs/bounds.md), and the "
                                                "naive-ensemble rate: one row per form with every term");
  list_option(thm, "--m", m, "training points, integer >= 1");
  list_option(thm, "--T", T, "experts, integer >= 1");
  list_option(thm, "--k", k, "active experts, integer in 1..T");
  list_option(thm, "--N", N, "tasks, integer >= 1");
  list_option(thm, "--d-N", dN, "Natarajan dimension of the mask class for N = 1, integer >= 0");
  list_option(thm, "--C", C, "Lipschitz constant of the loss, > 0");
  list_option(thm, "--rademacher", R, "R_m(H) of the expert class, >= 0");
  list_option(thm, "--rademacher-scale", Rs, "instead of --rademacher: R_m(H) = scale / sqrt(m)");
  list_option(thm, "--delta", delta, "failure probability in (0, 1)");
  list_option(thm, "--max-gate-weight", wmax, "derived form: largest gate weight in (0, 1] (1/k for uniform weights)");
  output_option(thm, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  thm->callback([&exit_code] {
    check_output("--output", out);
    const bool scaled = !Rs.empty();
    std::vector<double>& rad = scaled ? Rs : R;
    const std::vector<Axis> axes{{"--m", &m, "params.m"}, {"--T", &T, "params.T"}, {"--k", &k, "params.k"},
                                 {"--N", &N, "params.N"}, {"--d-N", &dN, "params.d_N"}, {"--C", &C, "params.C"},
                                 {scaled ? "--rademacher-scale" : "--rademacher", &rad,
                                  scaled ? "params.rademacher_scale" : "params.rademacher"},
                                 {"--delta", &delta, "params.delta"}, {"--max-gate-weight", &wmax, "params.max_gate_weight"}};
    for_each_point(axes, [&](const std::vector<double>& x) {
                     need_int(x[0], "--m", 1);
                     need_int(x[1], "--T", 1);
                     need_int(x[2], "--k", 1, x[1], fmt::format("T = {}", x[1]));
                     need_int(x[3], "--N", 1);
                     need_int(x[4], "--d-N", 0);
                     need(x[5] > 0, "--C", x[5], "> 0");
                     need(x[6] >= 0, scaled ? "--rademacher-scale" : "--rademacher", x[6], ">= 0");
                     need(x[7] > 0 && x[7] < 1, "--delta", x[7], "in (0, 1)");
                     need(x[8] > 0 && x[8] <= 1, "--max-gate-weight", x[8], "in (0, 1]");
                   });
    CsvTable t = run_grid("bounds.theorem1", axes);
    t.add_metadata("source", "compositional paper (arXiv 2410.13964), Theorem 1 / Eq. 5, 17, 18; docs/bounds.md");
    emit_csv(t, out);
    exit_code = kExitOk;
  });

  // ---- bound growth ----
  auto* growth = root->add_subcommand("growth", "Growth-function bounds in log space: Natarajan (Lemma 6), Haussler-Long, "
                                                 "Sauer-Shelah, and Eq. 13's mask count log C(T,k)^(2 N d_N) (2m)^(N d_N)");
  list_option(growth, "--m", m, "points, integer >= 1");
  list_option(growth, "--d", d, "Natarajan (or VC) dimension, integer >= 0");
  list_option(growth, "--labels", labels, "number of classes, integer >= 2");
  output_option(growth, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  growth->callback([&exit_code] {
    check_output("--output", out);
    CsvTable t;
    t.columns = {"m", "d", "labels", "log_natarajan", "log_haussler_long", "log_sauer_shelah", "log_sauer_shelah_bound"};
    t.add_metadata("units", "natural logarithms of counts");
    for_each_point({{"--m", &m}, {"--d", &d}, {"--labels", &labels}}, [&](const std::vector<double>& x) {
      need_int(x[0], "--m", 1);
      need_int(x[1], "--d", 0);
      need_int(x[2], "--labels", 2);
      // The growth sums have min(d, m) + 1 terms (bounds/growth.cpp sums at most 1e7); found by the fuzzer.
      if (std::min(x[0], x[1]) > 1e7)
        bad_option("--d", fmt::format("min(d, m) must be at most 1e7 (the sums have min(d, m) + 1 terms), got d = {}, m = {}", x[1], x[0]));
      const double nan = std::nan("");
      t.add_row({x[0], x[1], x[2], bounds::log_natarajan_growth(x[0], x[1], x[2]), bounds::log_haussler_long(x[0], x[1], x[2]),
                 bounds::log_sauer_shelah(x[0], x[1]),
                 x[1] >= 1 && x[0] >= x[1] ? bounds::log_sauer_shelah_bound(x[0], x[1]) : nan});
    });
    emit_csv(t, out);
    exit_code = kExitOk;
  });

  // ---- bound covering ----
  static std::vector<double> P_attn{0}, P_exp{1e6}, L{1}, M{64}, ell{1}, kappa{1}, Rad{1}, M0{1}, res{0.01};
  auto* cov = root->add_subcommand("covering", "Covering-number bound of MoE Transformers (scaling paper, Lemma 3.7), each term, "
                                                "and the exact routing count L l log C(M, k)");
  list_option(cov, "--P-attn", P_attn, "attention / shared parameters, >= 0");
  list_option(cov, "--P-exp", P_exp, "parameters per expert, > 0");
  list_option(cov, "--L", L, "MoE layers, >= 1");
  list_option(cov, "--M", M, "experts per layer, >= 1");
  list_option(cov, "--k", k, "active experts per token, 1..M");
  list_option(cov, "--ell", ell, "tokens per input, >= 1");
  list_option(cov, "--kappa", kappa, "Lipschitz constant, > 0");
  list_option(cov, "--R", Rad, "parameter radius, > 0");
  list_option(cov, "--M0", M0, "output bound, > 0");
  list_option(cov, "--delta", res, "resolution, in (0, kappa R M0)");
  output_option(cov, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  cov->callback([&exit_code] {
    check_output("--output", out);
    const std::vector<Axis> axes{{"--P-attn", &P_attn, "params.P_attn"}, {"--P-exp", &P_exp, "params.P_exp"},
                                 {"--L", &L, "params.L"},             {"--M", &M, "params.M"},
                                 {"--k", &k, "params.k"},             {"--ell", &ell, "params.ell"},
                                 {"--kappa", &kappa, "params.kappa"}, {"--R", &Rad, "params.R"},
                                 {"--M0", &M0, "params.M0"},          {"--delta", &res, "params.delta"}};
    for_each_point(axes, [&](const std::vector<double>& x) {
                     struct {
                       double P_attn, P_exp, L, M, k, ell, kappa, R, M0;
                     } p{x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8]};
                     need(p.P_attn >= 0, "--P-attn", p.P_attn, ">= 0");
                     need(p.P_exp > 0, "--P-exp", p.P_exp, "> 0");
                     need(p.L >= 1, "--L", p.L, ">= 1");
                     need(p.M >= 1, "--M", p.M, ">= 1");
                     need(p.k >= 1 && p.k <= p.M, "--k", p.k, fmt::format("in 1..M = {}", p.M));
                     need(p.ell >= 1, "--ell", p.ell, ">= 1");
                     need(p.kappa > 0, "--kappa", p.kappa, "> 0");
                     need(p.R > 0, "--R", p.R, "> 0");
                     need(p.M0 > 0, "--M0", p.M0, "> 0");
                     need(x[9] > 0 && x[9] < p.kappa * p.R * p.M0, "--delta", x[9], fmt::format("in (0, kappa R M0 = {})", p.kappa * p.R * p.M0));
                   });
    CsvTable t = run_grid("scaling.covering", axes);
    t.add_metadata("source", "scaling paper (arXiv 2604.09175), Lemma 3.7, absolute constant taken as 1");
    emit_csv(t, out);
    exit_code = kExitOk;
  });

  // ---- bound patterns ----
  static std::vector<double> pm{16}, pd{2}, pT{8}, pk{2}, pdN{0};
  static std::int64_t routers = 100000;
  static std::int64_t seed = 1;
  auto* pat = root->add_subcommand("patterns", "Distinct top-k routing patterns of random linear routers on m Gaussian points "
                                                "(Monte-Carlo lower estimate of the growth function) vs Eq. 13 and the arrangement bound");
  list_option(pat, "--m", pm, "points, integer >= 1");
  list_option(pat, "--d", pd, "input dimension, integer >= 1");
  list_option(pat, "--T", pT, "experts, integer in 2..64");
  list_option(pat, "--k", pk, "active experts, integer in 1..T-1");
  list_option(pat, "--d-N", pdN, "Natarajan dimension for Eq. 13 (0: d T)");
  int_option(pat, "--routers", routers, 1, 100000000, "routers drawn")->capture_default_str();
  int_option(pat, "--seed", seed, 0, std::numeric_limits<std::int64_t>::max(), "random seed")->capture_default_str();
  output_option(pat, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  add_max_memory(pat);
  pat->callback([&exit_code] {
    check_output("--output", out);
    const std::vector<Axis> axes{{"--m", &pm, "params.m"}, {"--d", &pd, "params.d"}, {"--T", &pT, "params.T"},
                                 {"--k", &pk, "params.k"}, {"--d-N", &pdN, "params.d_N"}};
    for_each_point(axes, [&](const std::vector<double>& x) {
      need_int(x[0], "--m", 1, 1e6, "1e6");
      need_int(x[1], "--d", 1, 1e4, "1e4");
      need_int(x[2], "--T", 2, 64);
      need_int(x[3], "--k", 1, x[2] - 1, fmt::format("T-1 = {}", x[2] - 1));
      need(x[4] >= 0, "--d-N", x[4], ">= 0");
    });
    // bounds::count_routing_patterns holds the points (d m doubles), one 16-byte key per router, and
    // per thread a T x d router and T x m scores plus up to 256 m masks; ~2 T d m operations per router.
    double bytes = 0, worst_m = 0, worst_d = 0, worst_T = 0;
    for_each_point(axes, [&](const std::vector<double>& x) {
      const double b = 8 * x[1] * x[0] + 16.0 * static_cast<double>(routers) +
                       num_threads() * (8 * x[2] * (x[1] + x[0]) + 8 * 256 * x[0]);
      if (b > bytes) bytes = b, worst_m = x[0], worst_d = x[1], worst_T = x[2];
    });
    check_memory("--m", bytes, fmt::format("m = {}, d = {}, T = {}, {} routers", worst_m, worst_d, worst_T, routers));
    // One trial of bounds.patterns is one random router.
    emit_csv(run_grid("bounds.patterns", axes, "", routers, static_cast<std::uint64_t>(seed)), out);
    exit_code = kExitOk;
  });
}

void add_kstar(CLI::App& app, int& exit_code) {
  static std::string out, form = "definition5";
  static std::vector<double> N{4}, m{10000}, dN{2}, T{64}, a{1}, b{1}, delta{0.05};
  static bool curve = false;
  auto* cmd = app.add_subcommand("kstar", "Optimal number of active experts k* of the compositional trade-off E_approx + E_est "
                                          "(Sec. 4.3), over integers 1..T and reals [1, T]");
  list_option(cmd, "--N", N, "tasks, >= 1");
  list_option(cmd, "--m", m, "training samples, >= 1");
  list_option(cmd, "--d-N", dN, "router base complexity d_N, > 0");
  list_option(cmd, "--T", T, "experts, integer >= 1");
  list_option(cmd, "--a", a, "constant of E_approx = a N^2 / k, > 0");
  list_option(cmd, "--b", b, "constant of E_est, > 0");
  list_option(cmd, "--delta", delta, "confidence of Theorem 1 (form theorem1), in (0, 1)");
  cmd->add_option("--form", form, "estimation term: definition5 (as printed), definition5_e (e restored), theorem1 (Eq. 5's k-term)")
      ->check(CLI::IsMember({"definition5", "definition5_e", "theorem1"}))
      ->capture_default_str();
  cmd->add_flag("--curve", curve, "print E_approx, E_est and E_total for every k = 1..T instead of k*");
  output_option(cmd, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  add_max_memory(cmd);
  cmd->callback([&exit_code] {
    check_output("--output", out);
    const std::vector<Axis> axes{{"--N", &N, "params.N"}, {"--m", &m, "params.m"}, {"--d-N", &dN, "params.d_N"},
                                 {"--T", &T, "params.T"}, {"--a", &a, "params.a"},   {"--b", &b, "params.b"},
                                 {"--delta", &delta, "params.delta"}};
    for_each_point(axes, [&](const std::vector<double>& x) {
                     need(x[0] >= 1, "--N", x[0], ">= 1");
                     need(x[1] >= 1, "--m", x[1], ">= 1");
                     need(x[2] > 0, "--d-N", x[2], "> 0");
                     need_int(x[3], "--T", 1, 1e9, "1e9");
                     need(x[4] > 0, "--a", x[4], "> 0");
                     need(x[5] > 0, "--b", x[5], "> 0");
                     need(x[6] > 0 && x[6] < 1, "--delta", x[6], "in (0, 1)");
                     if (curve && x[3] > 1000000) bad_option("--T", "--curve prints one row per k: at most 1e6");
                   });
    if (curve) {
      // One row per k = 1..T at every grid point: the rows, the CSV text and its copy (~100 bytes a cell).
      double rows = 0;
      for_each_point(axes, [&](const std::vector<double>& x) { rows += x[3]; });
      const auto* study = catalogue::find_study("sparsity.tradeoff");
      check_memory("--T", rows * 100.0 * static_cast<double>(study ? study->columns.size() : 10),
                   fmt::format("--curve: {:.4g} rows", rows));
    }
    CsvTable t = run_grid(curve ? "sparsity.tradeoff" : "sparsity.kstar", axes, fmt::format("form = \"{}\"\n", form));
    t.add_metadata("source", "compositional paper (arXiv 2410.13964), Sec. 4.3; docs/sparsity.md");
    emit_csv(t, out);
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
