// `moelab bound` and `moelab kstar`: the learning-theory closed forms of bounds/, sparsity/ and scaling/
// as CSV. Every numeric option takes one value or a comma-separated list; the rows are the cartesian
// product of the lists (first option slowest), so one query prints one row with all its terms and a grid
// prints a table. The options of a study-backed command (bound theorem1, covering, patterns; kstar) are
// the study's declared parameters: their help is the declaration's doc and domain (what `moelab describe`
// prints) and their values are checked by the study's own validation, so a bad value gets the message a
// scenario would get, naming the option. Formulas and conventions: docs/bounds.md, docs/sparsity.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "moelab/bounds/growth.hpp"
#include "moelab/catalogue/catalogue.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/core/parallel.hpp"
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

/// The number of points of the cartesian grid; exit 2 when above 1e7. Counted in double: a product of
/// list lengths can exceed 2^64 and must not wrap to a small grid.
double checked_grid_size(const std::vector<Axis>& axes) {
  double size = 1;
  for (const auto& a : axes) size *= static_cast<double>(a.values->size());
  if (size > 1e7) bad_option(axes.front().name, fmt::format("the grid has {:.4g} points (at most 1e7)", size));
  return size;
}

/// Calls body(point) for every point of the cartesian product of the axes (first axis slowest).
void for_each_point(const std::vector<Axis>& axes, const std::function<void(const std::vector<double>&)>& body) {
  std::vector<std::size_t> idx(axes.size(), 0);
  const auto total = static_cast<std::size_t>(checked_grid_size(axes));
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

const StudyDef& study_named(const std::string& name) {
  const StudyDef* study = catalogue::find_study(name);
  MOELAB_EXPECT(study != nullptr, "the CLI names a registered study");
  return *study;
}

const ParamDecl& declared(const StudyDef& study, const std::string& key) {
  const auto it = std::find_if(study.params.begin(), study.params.end(), [&](const ParamDecl& p) { return p.key == key; });
  MOELAB_EXPECT(it != study.params.end(), "a CLI option sets a parameter its study declares");
  return *it;
}

/// The list option `flag` for the study parameter `key`: its help is the declaration's doc, domain and
/// unit (as `moelab describe` prints them); its values are checked by the study (run_grid).
Axis study_option(CLI::App* cmd, const std::string& study, const std::string& flag, std::vector<double>& v,
                  const std::string& key) {
  const ParamDecl& d = declared(study_named(study), key);
  real_list_option(cmd, flag, v, fmt::format("{}; {}{}", d.doc, d.domain_text(), d.unit_text.empty() ? "" : ", unit: " + d.unit_text));
  return Axis{flag, &v, key};
}

/// The study's rows over the cartesian grid of `axes` (first slowest), computed by the study itself
/// (one implementation for `moelab run` and these commands). `fixed` adds TOML lines to [params].
/// Every point is validated by the study (declared domains, then its cross-key rules) before
/// `before_run` (e.g. a memory estimate) and before any work; an InputError about "params.x" is
/// reported against the option that set it, with the scenario's reason.
CsvTable run_grid(const std::string& study_name, const std::vector<Axis>& axes, const std::string& fixed = "",
                  std::int64_t trials = 1, std::uint64_t seed = 1, const std::function<void()>& before_run = {}) {
  const StudyDef& study = study_named(study_name);
  (void)checked_grid_size(axes);
  const auto value = [&](const std::string& key, double x) {
    // An integer parameter gets a TOML integer when x is one; anything else stays a float, which the
    // study refuses with the scenario's own message (never rounded to a neighbouring integer).
    if (declared(study, key).type == ParamType::integer && x == std::floor(x) && std::abs(x) < 9.2e18)
      return fmt::format("{}", static_cast<std::int64_t>(x));
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
    (void)prepare_scenario(study, sc);
    if (before_run) before_run();
    return run_scenario(study, sc, b);
  } catch (const InputError& e) {
    for (const auto& a : axes)
      if (!a.key.empty() && (e.key() == a.key || e.key() == "sweep.\"" + a.key + "\"")) bad_option(a.name, e.reason());
    throw;
  }
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
  static std::vector<Axis> thm_axes;
  const std::string tstudy = "bounds.theorem1";
  thm_axes = {study_option(thm, tstudy, "--m", m, "params.m"), study_option(thm, tstudy, "--T", T, "params.T"),
              study_option(thm, tstudy, "--k", k, "params.k"), study_option(thm, tstudy, "--N", N, "params.N"),
              study_option(thm, tstudy, "--d-N", dN, "params.d_N"), study_option(thm, tstudy, "--C", C, "params.C"),
              study_option(thm, tstudy, "--rademacher", R, "params.rademacher"),
              study_option(thm, tstudy, "--delta", delta, "params.delta"),
              study_option(thm, tstudy, "--max-gate-weight", wmax, "params.max_gate_weight")};
  static const Axis scale_axis = study_option(thm, tstudy, "--rademacher-scale", Rs, "params.rademacher_scale");
  output_option(thm, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  thm->callback([&exit_code] {
    check_output("--output", out);
    std::vector<Axis> axes = thm_axes;
    if (!Rs.empty()) axes[6] = scale_axis;  // R_m(H) = scale / sqrt(m) instead of --rademacher
    CsvTable t = run_grid("bounds.theorem1", axes);
    t.add_metadata("source", "compositional paper (arXiv 2410.13964), Theorem 1 / Eq. 5, 17, 18; docs/bounds.md");
    emit_csv(t, out);
    exit_code = kExitOk;
  });

  // ---- bound growth ----
  auto* growth = root->add_subcommand("growth", "Growth-function bounds in log space: Natarajan (Lemma 6), Haussler-Long, "
                                                 "Sauer-Shelah, and Eq. 13's mask count log C(T,k)^(2 N d_N) (2m)^(N d_N)");
  real_list_option(growth, "--m", m, "points, integer >= 1");
  real_list_option(growth, "--d", d, "Natarajan (or VC) dimension, integer >= 0");
  real_list_option(growth, "--labels", labels, "number of classes, integer >= 2");
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
  static std::vector<Axis> cov_axes;
  const std::string cstudy = "scaling.covering";
  cov_axes = {study_option(cov, cstudy, "--P-attn", P_attn, "params.P_attn"),
              study_option(cov, cstudy, "--P-exp", P_exp, "params.P_exp"),
              study_option(cov, cstudy, "--L", L, "params.L"),
              study_option(cov, cstudy, "--M", M, "params.M"),
              study_option(cov, cstudy, "--k", k, "params.k"),
              study_option(cov, cstudy, "--ell", ell, "params.ell"),
              study_option(cov, cstudy, "--kappa", kappa, "params.kappa"),
              study_option(cov, cstudy, "--R", Rad, "params.R"),
              study_option(cov, cstudy, "--M0", M0, "params.M0"),
              study_option(cov, cstudy, "--delta", res, "params.delta")};
  output_option(cov, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  cov->callback([&exit_code] {
    check_output("--output", out);
    CsvTable t = run_grid("scaling.covering", cov_axes);
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
  static std::vector<Axis> pat_axes;
  const std::string pstudy = "bounds.patterns";
  pat_axes = {study_option(pat, pstudy, "--m", pm, "params.m"), study_option(pat, pstudy, "--d", pd, "params.d"),
              study_option(pat, pstudy, "--T", pT, "params.T"), study_option(pat, pstudy, "--k", pk, "params.k"),
              study_option(pat, pstudy, "--d-N", pdN, "params.d_N")};
  int_option(pat, "--routers", routers, 1, 100000000, "routers drawn")->capture_default_str();
  int_option(pat, "--seed", seed, 0, std::numeric_limits<std::int64_t>::max(), "random seed")->capture_default_str();
  output_option(pat, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  add_max_memory(pat);
  pat->callback([&exit_code] {
    check_output("--output", out);
    const std::vector<Axis>& axes = pat_axes;
    // bounds::count_routing_patterns holds the points (d m doubles), one 16-byte key per router, and
    // per thread a T x d router and T x m scores plus up to 256 m masks; ~2 T d m operations per router.
    const auto memory = [&] {
      double bytes = 0, worst_m = 0, worst_d = 0, worst_T = 0;
      for_each_point(axes, [&](const std::vector<double>& x) {
        const double b = 8 * x[1] * x[0] + 16.0 * static_cast<double>(routers) +
                         num_threads() * (8 * x[2] * (x[1] + x[0]) + 8 * 256 * x[0]);
        if (b > bytes) bytes = b, worst_m = x[0], worst_d = x[1], worst_T = x[2];
      });
      check_memory("--m", bytes, fmt::format("m = {}, d = {}, T = {}, {} routers", worst_m, worst_d, worst_T, routers));
    };
    // One trial of bounds.patterns is one random router.
    emit_csv(run_grid("bounds.patterns", axes, "", routers, static_cast<std::uint64_t>(seed), memory), out);
    exit_code = kExitOk;
  });
}

void add_kstar(CLI::App& app, int& exit_code) {
  static std::string out, form = "definition5", difficulty = "uniform", profile = "index";
  static std::vector<double> N{4}, m{10000}, dN{2}, T{64}, a{1}, b{1}, delta{0.05}, alpha{2}, gamma{1}, D{};
  static bool curve = false;
  auto* cmd = app.add_subcommand("kstar", "Optimal number of active experts k* of the compositional trade-off E_approx + E_est "
                                          "(Sec. 4.3), over integers 1..T and reals [1, T]");
  // sparsity.kstar and sparsity.tradeoff (--curve) declare the same parameters but for T's bound; their
  // *_difficulty twins add the task-difficulty parameters (App. A.5). Any --difficulty* option selects
  // the twin, so a command without them prints what it always printed.
  static std::vector<Axis> axes, difficulty_axes;
  const std::string kstudy = "sparsity.kstar", dstudy = "sparsity.kstar_difficulty";
  axes = {study_option(cmd, kstudy, "--N", N, "params.N"),     study_option(cmd, kstudy, "--m", m, "params.m"),
          study_option(cmd, kstudy, "--d-N", dN, "params.d_N"), study_option(cmd, kstudy, "--T", T, "params.T"),
          study_option(cmd, kstudy, "--a", a, "params.a"),     study_option(cmd, kstudy, "--b", b, "params.b"),
          study_option(cmd, kstudy, "--delta", delta, "params.delta")};
  difficulty_axes = {study_option(cmd, dstudy, "--difficulty-alpha", alpha, "params.difficulty_alpha"),
                     study_option(cmd, dstudy, "--difficulty-gamma", gamma, "params.difficulty_gamma")};
  cmd->add_option("--form", form, "estimation term: definition5 (as printed), definition5_e (e restored), theorem1 (Eq. 5's k-term)")
      ->check(CLI::IsMember({"definition5", "definition5_e", "theorem1"}))
      ->capture_default_str();
  const auto& dd = declared(study_named(dstudy), "params.difficulty");
  cmd->add_option("--difficulty", difficulty, fmt::format("{}; {}", dd.doc, dd.domain_text()))
      ->check(CLI::IsMember({"uniform", "powerlaw"}))
      ->capture_default_str();
  const auto& dp = declared(study_named(dstudy), "params.difficulty_profile");
  cmd->add_option("--difficulty-profile", profile, fmt::format("{}; {}", dp.doc, dp.domain_text()))
      ->check(CLI::IsMember({"index", "power", "list"}))
      ->capture_default_str();
  real_list_option(cmd, "--difficulty-D", D, declared(study_named(dstudy), "params.difficulty_D").doc + " (one list, not a grid)");
  cmd->add_flag("--curve", curve,
                fmt::format("print E_approx, E_est and E_total for every k = 1..T instead of k* (sparsity.tradeoff: T {})",
                            declared(study_named("sparsity.tradeoff"), "params.T").domain_text()));
  output_option(cmd, "-o,--output", out, "write the CSV here (atomically) instead of stdout");
  add_max_memory(cmd);
  cmd->callback([cmd, &exit_code] {
    check_output("--output", out);
    const bool with_difficulty = cmd->count("--difficulty") + cmd->count("--difficulty-alpha") + cmd->count("--difficulty-gamma") +
                                     cmd->count("--difficulty-profile") + cmd->count("--difficulty-D") > 0;
    const std::string study = std::string(curve ? "sparsity.tradeoff" : "sparsity.kstar") + (with_difficulty ? "_difficulty" : "");
    std::vector<Axis> grid = axes;
    std::string fixed = fmt::format("form = \"{}\"\n", form);
    if (with_difficulty) {
      grid.insert(grid.end(), difficulty_axes.begin(), difficulty_axes.end());
      fixed += fmt::format("difficulty = \"{}\"\ndifficulty_profile = \"{}\"\n", difficulty, profile);
      if (!D.empty()) {
        std::vector<std::string> vs;
        for (double x : D) vs.push_back(fmt::format("{:.17g}", x));
        fixed += fmt::format("difficulty_D = [{}]\n", fmt::join(vs, ", "));
      }
    }
    const auto memory = [&] {
      if (!curve) return;
      // One row per k = 1..T at every grid point: the rows, the CSV text and its copy (~100 bytes a cell).
      double rows = 0;
      for_each_point(grid, [&](const std::vector<double>& x) { rows += x[3]; });
      check_memory("--T", rows * 100.0 * static_cast<double>(study_named(study).columns.size()),
                   fmt::format("--curve: {:.4g} rows", rows));
    };
    CsvTable t;
    try {
      t = run_grid(study, grid, fixed, 1, 1, memory);
    } catch (const InputError& e) {
      // Keys set through `fixed` (not axes): report them against their option.
      static const std::pair<const char*, const char*> kFixed[] = {
          {"params.difficulty_D", "--difficulty-D"}, {"params.difficulty_profile", "--difficulty-profile"}, {"params.difficulty", "--difficulty"}};
      for (const auto& [key, flag] : kFixed)
        if (e.key() == key) bad_option(flag, e.reason());
      throw;
    }
    t.add_metadata("source", with_difficulty ? "compositional paper (arXiv 2410.13964), Sec. 4.3 and App. A.5; docs/sparsity.md"
                                             : "compositional paper (arXiv 2410.13964), Sec. 4.3; docs/sparsity.md");
    emit_csv(t, out);
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
