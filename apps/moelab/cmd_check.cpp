#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include <fmt/format.h>

#include <limits>

#include "commands.hpp"
#include "options.hpp"
#include "moelab/core/backend.hpp"
#include "moelab/catalogue/catalogue.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/core/csv.hpp"
#include "moelab/core/distributed.hpp"
#include "moelab/core/journal.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab::cli {

void add_check(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("check", "Check every registered claim against Monte-Carlo and give verdicts");
  static bool quick = false, full = false;
  static std::string only, out_dir = "results";
  static std::int64_t seed = 1;
  static double alpha = 0.01;
  static int threads = 0;
  static std::string backend = "auto";
  static std::string seeds;
  auto* q = cmd->add_flag("--quick", quick, "small budget, under 2 minutes on 2 cores (default)");
  cmd->add_flag("--full", full, "large budget for tighter evidence")->excludes(q);
  cmd->add_option("--only", only, "only claims whose id contains PATTERN (or matches a glob with *)");
  auto* one_seed = int_option(cmd, "--seed", seed, 0, std::numeric_limits<std::int64_t>::max(), "suite seed");
  static CLI::Option* seeds_opt = nullptr;
  seeds_opt = cmd->add_option("--seeds", seeds, "A..B: run the suite at every seed from A to B and write the verdict-stability table "
                                    "(stability.csv, stability.md) instead of check.csv")
      ->excludes(one_seed);
  real_option(cmd, "--alpha", alpha, real("", "").in(1e-12, 0.5), "family-wise error level over the registered claims (each test at alpha / claims)");
  cmd->add_option("--out-dir", out_dir, "where check.csv and check.md go");
  threads_option(cmd, threads, "OpenMP threads (0 = all)");
  cmd->add_option("--backend", backend, "cpu, cuda or auto (auto = cpu: verdicts from the CPU reference; cuda runs the claims "
                                         "that have a validated device path there, the others on the CPU; exit 2 without a usable device)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  static bool resume = false, no_journal = false, strict = false;
  cmd->add_flag("--strict", strict, "exit 1 also when a claim fails (by default the exit status says only whether a verdict "
                                    "changed against the documented ones, docs/claims.md)");
  cmd->add_flag("--resume", resume, "continue an interrupted check from its journal (<out-dir>/check.journal or "
                                    "stability.journal): only the claims it lacks run; the same bytes as an uninterrupted run");
  cmd->add_flag("--no-journal", no_journal, "keep no journal (an interrupted check then starts over)");
  cmd->callback([&exit_code] {
    // Every rank (under mpirun) checks the options; only rank 0 checks and writes the outputs.
    // agree_on_failure keeps the ranks in step: one message, one exit code.
    std::exception_ptr failure;
    std::vector<const claims::Claim*> selected;
    claims::CheckBudget budget;
    std::vector<std::uint64_t> list;
    try {
      std::string why;
      // check.csv must not depend on the machine: `auto` keeps the CPU reference; `cuda` is asked for
      // explicitly (bench/gpu_run.sh compares its verdicts with --backend cpu's).
      const BackendRequest request = *parse_backend(backend);
      if (request == BackendRequest::cuda) {
        if (!resolve_backend(request, CudaPath::validated, &why))
          bad_option("--backend", fmt::format("cannot run the claims on cuda: {}", why));
        budget.backend = Backend::cuda;
      }
      // The outputs are checked before any work.
      if (out_dir.empty()) bad_option("--out-dir", "must be a directory path, got ''");
      if (is_root())
        for (const char* f : {"/check.csv", "/check.md", "/stability.csv", "/stability.md"}) check_output("--out-dir", out_dir + f);
      selected = catalogue::claims().select(only);
      if (selected.empty()) throw InputError("", 0, "--only", fmt::format("no claim matches '{}' (see moelab list claims)", only));
      if (resume && no_journal) bad_option("--resume", "cannot be combined with --no-journal");
      if (threads > 0) set_num_threads(threads);
      budget.full = full;
      budget.seed = static_cast<std::uint64_t>(seed);
      list = {budget.seed};
      if (seeds_opt->count() > 0 && seeds.empty()) bad_option("--seeds", "must be A..B (e.g. 1..8), got ''");
      if (!seeds.empty()) {
        const auto dots = seeds.find("..");
        std::uint64_t a = 0, b = 0;
        const auto parse = [](const std::string& s, std::uint64_t& out) {
          if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
          out = std::stoull(s);
          return true;
        };
        if (dots == std::string::npos || !parse(seeds.substr(0, dots), a) || !parse(seeds.substr(dots + 2), b) || b < a ||
            b - a >= 1000)
          bad_option("--seeds", fmt::format("must be A..B with 0 <= A <= B < A + 1000 (decimal integers), got '{}'", seeds));
        list.clear();
        for (std::uint64_t s = a; s <= b; ++s) list.push_back(s);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    agree_on_failure(failure);
    const bool stability = !seeds.empty();
    claims::SuiteOptions options;
    options.show_progress = ::isatty(STDERR_FILENO) == 1;
    options.resume = resume;
    options.command = fmt::format("check {}{}{}{}", full ? "--full" : "--quick", only.empty() ? "" : " --only " + only,
                                  stability ? " --seeds " + seeds : "", budget.backend == Backend::cuda ? " --backend cuda" : "");
    if (!no_journal) options.journal = out_dir + (stability ? "/stability.journal" : "/check.journal");
    if (stability && is_root())
      fmt::print(stderr, "moelab: check --seeds: {} seeds x {} claims\n", list.size(), selected.size());
    std::vector<claims::SuiteResult> runs;
    try {
      runs = claims::run_suites(selected, budget, list, alpha, catalogue::claims().all().size(), options);
    } catch (const Interrupted& e) {
      if (options.journal.empty() || !is_root()) throw;
      throw Interrupted(fmt::format("{}; the claims completed so far are kept in '{}': rerun with --resume to finish them",
                                    e.what(), options.journal));
    }
    std::string printed;
    bool failed = false;
    try {
      if (is_root()) {
        if (stability) {
          const auto st = claims::verdict_stability(runs, list, budget);
          write_file_atomic(out_dir + "/stability.csv", st.table.to_string());
          write_file_atomic(out_dir + "/stability.md", st.markdown);
          printed = st.markdown + fmt::format("wrote {0}/stability.csv and {0}/stability.md\n", out_dir);
        } else {
          auto& result = runs.front();
          catalogue::annotate_documented(result);
          write_file_atomic(out_dir + "/check.csv", claims::suite_table(result, budget).to_string());
          write_file_atomic(out_dir + "/check.md", claims::suite_markdown(result, budget));
          printed = claims::suite_terminal(result, budget) + fmt::format("wrote {0}/check.csv and {0}/check.md\n", out_dir);
          // A paper claim that genuinely fails is a finding, not a failed run: exit 1 when a verdict
          // differs from the documented one (or, with --strict, when any claim fails).
          failed = claims::changed_count(result, budget) > 0;
          if (strict)
            for (const auto& o : result.outcomes) failed |= o.verdict == claims::Verdict::fails;
        }
        if (!options.journal.empty()) Journal::remove(options.journal);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    agree_on_failure(failure);
    // Every rank exits with rank 0's code (mpirun reports the first non-zero one).
    std::string code = failed ? "1" : "0";
    world().broadcast(code);
    fmt::print("{}", printed);
    exit_code = code == "1" ? kExitVerdictChanged : kExitOk;
  });
}

}  // namespace moelab::cli
