#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include <limits>
#include <optional>

#include "commands.hpp"
#include "options.hpp"
#include "moelab/core/csv.hpp"
#include "moelab/core/distributed.hpp"
#include "moelab/core/journal.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/catalogue/catalogue.hpp"

namespace moelab::cli {

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a scenario file and write its CSV");
  static std::string path, out, max_memory;
  static std::int64_t trials = 0, seed = -1;
  static int threads = -1;
  static std::string backend;
  cmd->add_option("scenario", path, "scenario TOML file")->required();
  auto* out_opt = output_option(cmd, "-o,--output", out, "CSV output path (default: the scenario's [output] csv)");
  int_option(cmd, "--trials", trials, 1, 1000000000000000, "Monte-Carlo trials per sweep point (overrides the scenario)");
  int_option(cmd, "--seed", seed, 0, std::numeric_limits<std::int64_t>::max(), "random seed (overrides the scenario)");
  threads_option(cmd, threads, "OpenMP threads (0 = all); results do not depend on it");
  cmd->add_option("--max-memory", max_memory, "refuse a run whose estimated memory exceeds this (e.g. 8G, 512M; default: the "
                                              "machine's memory)")
      ->check(CLI::Validator([](std::string& s) {
        double b = 0;
        return parse_memory_size(s, b) ? std::string() : "must be a size such as 8G, 512M, 64KiB or a number of bytes > 0, got '" + printable(s) + "'";
      }, "SIZE"));
  cmd->add_option("--backend", backend, "cpu, cuda or auto (overrides the scenario; auto = cuda when a device and a CUDA path exist)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  static bool resume = false, no_journal = false;
  cmd->add_flag("--resume", resume, "continue an interrupted run from its journal (<output>.journal): only the missing sweep "
                                    "points run, and the CSV has the same bytes as an uninterrupted run");
  cmd->add_flag("--no-journal", no_journal, "keep no journal (a run interrupted then starts over)");
  cmd->callback([&exit_code, out_opt] {
    // Every rank (under mpirun) reads the scenario and checks the options; only rank 0 checks and
    // writes the output. agree_on_failure keeps the ranks in step: one message, one exit code.
    std::exception_ptr failure;
    std::optional<Scenario> sc;
    std::string target;
    const StudyDef* study = nullptr;
    McBudget b;
    try {
      sc.emplace(load_scenario(path));
      // The output is checked before any work: a bad path must not cost the run.
      target = out_opt->count() > 0 ? out : sc->output_csv;
      if (is_root()) {
        if (out_opt->count() > 0) check_output("--output", target);
        else check_output("output.csv", target, sc->path);
      }
      study = &study_for(*sc, catalogue::studies());
      b = sc->budget;
      if (trials > 0) b.trials = trials;
      if (seed >= 0) b.seed = static_cast<std::uint64_t>(seed);
      if (threads >= 0) b.threads = threads;
      if (!max_memory.empty()) (void)parse_memory_size(max_memory, b.max_memory);
      if (!backend.empty()) {
        b.backend = *parse_backend(backend);
        std::string why;
        if (!resolve_backend(b.backend, study->cuda, &why))
          bad_option("--backend", fmt::format("cannot run study '{}' on cuda: {}", sc->study, why));
      }
      if (resume && no_journal) bad_option("--resume", "cannot be combined with --no-journal");
      if (target == "-" && resume) bad_option("--resume", "cannot be combined with -o - (a run to stdout keeps no journal)");
    } catch (...) {
      failure = std::current_exception();
    }
    agree_on_failure(failure);
    RunOptions options;
    const bool to_stdout = target == "-";  // the CSV on stdout, messages on stderr, no journal
    if (!no_journal && !to_stdout) options.journal = target + ".journal";
    options.resume = resume;
    CsvTable table;
    try {
      table = run_scenario(*study, *sc, b, options);
    } catch (const Interrupted& e) {
      if (options.journal.empty() || !is_root()) throw;
      throw Interrupted(fmt::format("{}; the sweep points completed so far are kept in '{}': rerun with --resume to "
                                    "finish them", e.what(), options.journal));
    }
    try {
      if (is_root() && to_stdout) {
        std::fputs(table.to_string().c_str(), stdout);
        if (std::fflush(stdout) != 0) throw RuntimeFailure("cannot write the CSV to stdout");
      } else if (is_root()) {
        write_file_atomic(target, table.to_string());
        if (!options.journal.empty()) Journal::remove(options.journal);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    agree_on_failure(failure);
    if (!is_root()) {
      exit_code = kExitOk;
      return;
    }
    if (to_stdout) {
      exit_code = kExitOk;
      return;
    }
    fmt::print("wrote {} ({} rows)\n", target, table.rows.size());
    for (const auto& [k, v] : table.metadata)
      if (k.rfind("fit_", 0) == 0) fmt::print("  {}: {}\n", k, v);
    if (!sc->output_plot.empty()) {
      // Absolute paths, so the hint works from any directory.
      namespace fs = std::filesystem;
      std::error_code ec;
      const std::string csv = fs::absolute(target, ec).lexically_normal().string();
      fmt::print("plot: gnuplot -e \"csv='{}'; png='{}'\" {}\n", csv, csv.substr(0, csv.size() - 4) + ".png",
                 data_path(sc->output_plot));
    }
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
