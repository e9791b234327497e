#include "moelab/scenario/runner.hpp"

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab {

std::pair<const Study*, std::vector<std::unique_ptr<PreparedPoint>>> prepare_scenario(const Scenario& sc,
                                                                                      const McBudget& budget) {
  const Study* study = find_study(sc.study);
  if (!study) {
    std::string known;
    for (const auto& s : studies()) known += (known.empty() ? "" : ", ") + s->name();
    throw InputError(sc.path, 0, "study", fmt::format("unknown study '{}' (known: {})", sc.study, known));
  }
  std::vector<std::unique_ptr<PreparedPoint>> prepared;
  for (const auto& pt : sc.points()) {
    const ParamView view(pt.table, sc.path);
    prepared.push_back(study->prepare(view, budget));
    view.check_all_used();
  }
  return {study, std::move(prepared)};
}

CsvTable run_scenario(const Scenario& sc, const McBudget& budget) {
  // Validate everything first: a bad value at the last sweep point must not cost a long run.
  auto [study, prepared] = prepare_scenario(sc, budget);
  std::string why;
  const auto backend = resolve_backend(budget.backend, study->cuda_path(), &why);
  if (!backend)
    throw InputError(sc.path, 0, "monte_carlo.backend", fmt::format("cannot run study '{}' on cuda: {}", sc.study, why));
  std::size_t work = 0;
  for (const auto& p : prepared) work += p->work();
  CsvTable t;
  t.add_metadata("tool", fmt::format("moelab {}", kVersion));
  t.add_metadata("scenario", sc.path);
  t.add_metadata("study", sc.study);
  if (!sc.title.empty()) t.add_metadata("title", sc.title);
  t.add_metadata("seed", fmt::format("{}", budget.seed));
  t.add_metadata("trials", fmt::format("{}", budget.trials));
  const bool experimental = *backend == Backend::cuda && study->cuda_path() == CudaPath::experimental;
  t.add_metadata("backend", experimental ? "cuda (experimental path: not yet validated against the CPU on a device)"
                                         : to_string(*backend));
  if (experimental)
    fmt::print(stderr, "moelab: warning: study '{}' runs on an experimental CUDA path (not yet validated against the CPU "
                       "reference on a device); compare with --backend cpu before trusting it\n", sc.study);
  // Points see the resolved backend (cpu or cuda), never `auto`.
  McBudget run_budget = budget;
  run_budget.backend = *backend == Backend::cuda ? BackendRequest::cuda : BackendRequest::cpu;
  for (const auto& axis : sc.axes) t.add_metadata("sweep", axis.key);
  t.columns = study->columns();
  if (budget.threads > 0) set_num_threads(budget.threads);
  Progress progress(work, sc.name);
  for (auto& p : prepared) {
    check_interrupted();
    for (auto& row : p->run(run_budget, progress)) t.add_row(std::move(row));
  }
  progress.finish();
  if (budget.threads > 0) set_num_threads(0);
  for (auto& kv : study->summarize(t.rows)) t.add_metadata(kv.first, kv.second);
  return t;
}

}  // namespace moelab
