#include "moelab/scenario/runner.hpp"

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

namespace {

std::any prepare_point(const StudyDef& study, const SweepPoint& pt, const std::string& path, Backend backend) {
  const ParamView view = pt.view(path);
  const PointParams params(view, study.params, backend);
  std::any point = study.prepare(params);
  view.check_all_used();
  return point;
}

}  // namespace

std::vector<std::any> prepare_scenario(const StudyDef& study, const Scenario& sc) {
  std::vector<std::any> prepared;
  for (const auto& pt : sc.points()) prepared.push_back(prepare_point(study, pt, sc.path, Backend::cpu));
  return prepared;
}

CsvTable run_scenario(const StudyDef& study, const Scenario& sc, const McBudget& budget) {
  // Validate everything first: a bad value at the last sweep point must not cost a long run.
  // The backend is resolved first so that points can check limits that depend on it.
  std::string why;
  const auto backend = resolve_backend(budget.backend, study.cuda, &why);
  if (!backend)
    throw InputError(sc.path, 0, "monte_carlo.backend", fmt::format("cannot run study '{}' on cuda: {}", sc.study, why));
  const auto points = sc.points();
  std::vector<std::any> prepared;
  for (const auto& pt : points) prepared.push_back(prepare_point(study, pt, sc.path, *backend));
  const std::int64_t trials = study.trial_unit.empty() ? 0 : budget.trials;
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
  if (budget.threads > 0) set_num_threads(budget.threads);
  Progress progress(work, sc.name);
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    check_interrupted();
    RunContext ctx{point_key(budget.seed, study.name, points[i]), trials, *backend, &progress};
    RowSink rows(study.columns);
    study.run(prepared[i], ctx, rows);
    for (auto& row : rows.take()) t.add_row(std::move(row));
  }
  progress.finish();
  if (budget.threads > 0) set_num_threads(0);
  if (study.summarize)
    for (auto& kv : study.summarize(TableView(t))) t.add_metadata(kv.first, kv.second);
  return t;
}

CsvTable run_study_text(const StudyDef& study, const std::string& toml_text, const McBudget& budget) {
  const Scenario sc = parse_scenario(fmt::format("study = \"{}\"\n{}", study.name, toml_text), "<" + study.name + ">");
  return run_scenario(study, sc, budget);
}

}  // namespace moelab
