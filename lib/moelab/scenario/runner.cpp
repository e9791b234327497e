#include "moelab/scenario/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"

namespace moelab {

const StudyDef& study_for(const Scenario& sc, const std::vector<StudyDef>& known) {
  for (const auto& s : known)
    if (s.name == sc.study) return s;
  std::string names;
  for (const auto& s : known) names += (names.empty() ? "" : ", ") + s.name;
  throw InputError(sc.path, 0, "study", fmt::format("unknown study '{}' (known: {})", sc.study, names));
}

RngKey point_key(std::uint64_t seed, const std::string& study, const SweepPoint& point) {
  RngKey k = RngKey::root(seed).with(study);
  for (const auto& [key, value] : point.coordinates) k = k.with(key + "=" + value);
  return k;
}

double machine_memory_bytes() {
  double bytes = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  // A container's limit (cgroup v2, then v1) is what the process can really get.
  for (const char* f : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(f);
    double limit = 0;
    if (in >> limit && limit > 0) bytes = std::min(bytes, limit);
  }
  return bytes > 0 ? bytes : 1e18;
}

std::string format_bytes(double b) {
  if (!(b < 1e30)) return fmt::format("{:.3g} bytes", b);
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000.0 && u < 6) b /= 1000.0, ++u;
  return u == 0 ? fmt::format("{:.0f} bytes", b) : fmt::format("{:.3g} {}", b, units[u]);
}

bool parse_memory_size(const std::string& text, double& bytes) {
  std::size_t end = 0;
  double x = 0;
  try {
    x = std::stod(text, &end);
  } catch (...) {
    return false;
  }
  std::string unit = text.substr(end);
  unit.erase(0, unit.find_first_not_of(' '));
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b') && unit != "b") unit.pop_back();
  double scale = 1;
  if (unit.empty()) scale = 1;
  else if (unit == "k" || unit == "K") scale = 1e3;
  else if (unit == "M") scale = 1e6;
  else if (unit == "G") scale = 1e9;
  else if (unit == "T") scale = 1e12;
  else if (unit == "Ki") scale = 1024.0;
  else if (unit == "Mi") scale = 1024.0 * 1024;
  else if (unit == "Gi") scale = 1024.0 * 1024 * 1024;
  else if (unit == "Ti") scale = 1024.0 * 1024 * 1024 * 1024;
  else return false;
  bytes = x * scale;
  return std::isfinite(bytes) && bytes > 0;
}

namespace {

// The frame's own memory per sweep point: the SweepPoint (coordinates, overrides), the prepared
// std::any and the rows (a CsvCell is 40 bytes, plus its CSV text and the string's copy). Checked:
// a 1e6-point sweep of sparsity.kstar (1 axis, 15 columns) peaked at 1.03 GB RSS against an
// estimate of 2.14 GB, so the estimate errs high by ~2x.
constexpr double kBytesPerPoint = 512, kBytesPerAxis = 192, kBytesPerCell = 96;
constexpr double kOpsPerSecond = 1e9;  // per thread, for the printed time estimate (order of magnitude)

std::any prepare_point(const StudyDef& study, const SweepPoint& pt, const std::string& path, Backend backend) {
  const ParamView view = pt.view(path);
  const PointParams params(view, study.params, backend);
  std::any point = study.prepare(params);
  view.check_all_used();
  return point;
}

std::vector<std::any> prepare_points(const StudyDef& study, const Scenario& sc, const std::vector<SweepPoint>& points,
                                     Backend backend) {
  std::vector<std::any> prepared;
  for (const auto& pt : points) {
    check_interrupted();
    prepared.push_back(prepare_point(study, pt, sc.path, backend));
  }
  return prepared;
}

/// Restores the default thread count when a run ends, also by an exception (bad input found late,
/// an interrupt), so that a later run in the same process (the Python module) is not affected.
struct ThreadCountScope {
  explicit ThreadCountScope(int threads) : active(threads > 0) {
    if (active) set_num_threads(threads);
  }
  ~ThreadCountScope() {
    if (active) set_num_threads(0);
  }
  bool active;
};

}  // namespace

std::vector<std::any> prepare_scenario(const StudyDef& study, const Scenario& sc) {
  return prepare_points(study, sc, sc.points(), Backend::cpu);
}

CsvTable run_scenario(const StudyDef& study, const Scenario& sc, const McBudget& budget) {
  // Validate everything first: a bad value at the last sweep point must not cost a long run.
  // The backend is resolved first so that points can check limits that depend on it.
  std::string why;
  const auto backend = resolve_backend(budget.backend, study.cuda, &why);
  if (!backend)
    throw InputError(sc.path, 0, "monte_carlo.backend", fmt::format("cannot run study '{}' on cuda: {}", sc.study, why));
  const std::int64_t trials = study.trial_unit.empty() ? 0 : budget.trials;
  if (!study.trial_unit.empty() && trials < study.min_trials)
    throw InputError(sc.path, 0, "monte_carlo.trials",
                     fmt::format("study '{}' needs at least {} {} per point, got {}", study.name, study.min_trials,
                                 study.trial_unit, trials));
  if (budget.threads > max_threads())
    throw InputError(sc.path, 0, "monte_carlo.threads",
                     fmt::format("must be at most {} (what this process can run), got {}", max_threads(), budget.threads));
  const ThreadCountScope thread_scope(budget.threads);
  const double limit = budget.max_memory > 0 ? budget.max_memory : machine_memory_bytes();
  const char* limit_name = budget.max_memory > 0 ? "the limit set by --max-memory / [monte_carlo] max_memory"
                                                 : "this machine's memory";
  RunEstimate est;
  double n_points = 1;
  for (const auto& axis : sc.axes) n_points *= static_cast<double>(axis.values.size());
  est.frame_bytes = n_points * (kBytesPerPoint + kBytesPerAxis * static_cast<double>(sc.axes.size()) +
                                kBytesPerCell * static_cast<double>(study.columns.size()));
  const auto refuse = [&](const std::string& what) {
    throw InputError(sc.path, 0, "monte_carlo.max_memory",
                     fmt::format("the run would need about {} ({}), more than {} ({}); lower the budget or the sizes, "
                                 "or raise --max-memory if the estimate is too high",
                                 format_bytes(est.peak()), what, limit_name, format_bytes(limit)));
  };
  if (est.peak() > limit) refuse(fmt::format("{:.3g} sweep points", n_points));
  const auto points = sc.points();
  const std::vector<std::any> prepared = prepare_points(study, sc, points, *backend);
  est.modelled = static_cast<bool>(study.cost);
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    const StudyCost c = study.cost ? study.cost(prepared[i], trials) : StudyCost{};
    const double bytes = c.bytes + static_cast<double>(trials) * study.result_bytes_per_trial;
    if (bytes > est.point_bytes || !(bytes == bytes)) est.point_bytes = bytes, est.worst_point = i;
    est.work += c.work;
  }
  const auto where = [&] {
    std::string at = fmt::format("{} trials", trials);
    for (const auto& [k, v] : points[est.worst_point].coordinates) at += fmt::format(", {} = {}", k, v);
    return at;
  };
  if (!(est.peak() <= limit)) refuse(fmt::format("largest point: {}", where()));
  const double seconds = est.work / (kOpsPerSecond * std::max(1, num_threads()));
  if (seconds > 10 || est.peak() > 1e9)
    fmt::print(stderr, "moelab: estimate for {}: about {} of memory{}\n", sc.study, format_bytes(est.peak()),
               est.modelled ? fmt::format(", {:.3g} operations (~{:.0f} s on {} threads at {:g} op/s each)", est.work, seconds,
                                          num_threads(), kOpsPerSecond)
                            : std::string(" (the study declares no cost model: its own memory is not counted)"));
  std::size_t work = 0;
  for (const auto& p : prepared) work += study.work(p, trials);
  CsvTable t;
  t.add_metadata("tool", fmt::format("moelab {}", kVersion));
  t.add_metadata("scenario", sc.path);
  t.add_metadata("study", sc.study);
  if (!sc.title.empty()) t.add_metadata("title", sc.title);
  t.add_metadata("seed", fmt::format("{}", budget.seed));
  t.add_metadata("trials", study.trial_unit.empty() ? std::string("none (deterministic)")
                                                    : fmt::format("{} {} per point", budget.trials, study.trial_unit));
  const bool experimental = *backend == Backend::cuda && study.cuda == CudaPath::experimental;
  t.add_metadata("backend", experimental ? "cuda (experimental path: not yet validated against the CPU on a device)"
                                         : to_string(*backend));
  if (experimental)
    fmt::print(stderr, "moelab: warning: study '{}' runs on an experimental CUDA path (not yet validated against the CPU "
                       "reference on a device); compare with --backend cpu before trusting it\n", sc.study);
  for (const auto& axis : sc.axes) t.add_metadata("sweep", axis.key);
  t.columns = study.column_names();
  Progress progress(work, sc.name);
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    check_interrupted();
    RunContext ctx{point_key(budget.seed, study.name, points[i]), trials, *backend, &progress};
    RowSink rows(study.columns);
    study.run(prepared[i], ctx, rows);
    for (auto& row : rows.take()) t.add_row(std::move(row));
  }
  progress.finish();
  if (study.summarize)
    for (auto& kv : study.summarize(TableView(t))) t.add_metadata(kv.first, kv.second);
  return t;
}

CsvTable run_study_text(const StudyDef& study, const std::string& toml_text, const McBudget& budget) {
  const Scenario sc = parse_scenario(fmt::format("study = \"{}\"\n{}", study.name, toml_text), "<" + study.name + ">");
  return run_scenario(study, sc, budget);
}

}  // namespace moelab
