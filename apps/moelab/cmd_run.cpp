#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/catalogue/catalogue.hpp"

namespace moelab::cli {

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a scenario file and write its CSV");
  static std::string path, out;
  static std::int64_t trials = 0, seed = -1;
  static int threads = -1;
  static std::string backend;
  cmd->add_option("scenario", path, "scenario TOML file")->required();
  cmd->add_option("-o,--output", out, "CSV output path (default: the scenario's [output] csv)");
  cmd->add_option("--trials", trials, "Monte-Carlo trials per sweep point (overrides the scenario)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", seed, "random seed (overrides the scenario)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", threads, "OpenMP threads (0 = all); results do not depend on it")->check(CLI::NonNegativeNumber);
  cmd->add_option("--backend", backend, "cpu, cuda or auto (overrides the scenario; auto = cuda when a device and a CUDA path exist)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->callback([&exit_code] {
    const Scenario sc = load_scenario(path);
    const StudyDef& study = study_for(sc, catalogue::studies());
    McBudget b = sc.budget;
    if (trials > 0) b.trials = trials;
    if (seed >= 0) b.seed = static_cast<std::uint64_t>(seed);
    if (threads >= 0) b.threads = threads;
    if (!backend.empty()) {
      b.backend = *parse_backend(backend);
      std::string why;
      if (!resolve_backend(b.backend, study.cuda, &why))
        bad_option("--backend", fmt::format("cannot run study '{}' on cuda: {}", sc.study, why));
    }
    const CsvTable table = run_scenario(study, sc, b);
    const std::string target = out.empty() ? sc.output_csv : out;
    write_file_atomic(target, table.to_string());
    fmt::print("wrote {} ({} rows)\n", target, table.rows.size());
    for (const auto& [k, v] : table.metadata)
      if (k.rfind("fit_", 0) == 0) fmt::print("  {}: {}\n", k, v);
    if (!sc.output_plot.empty()) fmt::print("plot: gnuplot -e \"csv='{}'; png='{}'\" {}\n", target,
                                            target.substr(0, target.size() - 4) + ".png", sc.output_plot);
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
