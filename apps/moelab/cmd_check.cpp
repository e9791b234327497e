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
  cmd->add_option("--seeds", seeds, "A..B: run the suite at every seed from A to B and write the verdict-stability table "
                                    "(stability.csv, stability.md) instead of check.csv")
      ->excludes(one_seed);
  real_option(cmd, "--alpha", alpha, real("", "").in(1e-12, 0.5), "family-wise error level (Holm)");
  cmd->add_option("--out-dir", out_dir, "where check.csv and check.md go");
  threads_option(cmd, threads, "OpenMP threads (0 = all)");
  cmd->add_option("--backend", backend, "cpu, cuda or auto (claims run on the CPU reference; cuda is refused until they have a "
                                         "CUDA path)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  cmd->callback([&exit_code] {
    std::string why;
    if (!resolve_backend(*parse_backend(backend), CudaPath::none, &why))
      bad_option("--backend", fmt::format("cannot run the claims on cuda: {}", why));
    // The outputs are checked before any work (issue 16).
    if (out_dir.empty()) bad_option("--out-dir", "must be a directory path, got ''");
    for (const char* f : {"/check.csv", "/check.md", "/stability.csv", "/stability.md"}) check_output("--out-dir", out_dir + f);
    const auto selected = catalogue::claims().select(only);
    if (selected.empty()) throw InputError("", 0, "--only", fmt::format("no claim matches '{}' (see moelab list claims)", only));
    if (threads > 0) set_num_threads(threads);
    claims::CheckBudget budget;
    budget.full = full;
    budget.seed = static_cast<std::uint64_t>(seed);
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
      std::vector<claims::SuiteResult> runs;
      std::vector<std::uint64_t> list;
      for (std::uint64_t s = a; s <= b; ++s) {
        budget.seed = s;
        fmt::print(stderr, "moelab: check --seeds: seed {} ({} of {})\n", s, s - a + 1, b - a + 1);
        runs.push_back(claims::run_suite(selected, budget, alpha, ::isatty(STDERR_FILENO) == 1));
        list.push_back(s);
      }
      const auto st = claims::verdict_stability(runs, list, budget);
      write_file_atomic(out_dir + "/stability.csv", st.table.to_string());
      write_file_atomic(out_dir + "/stability.md", st.markdown);
      fmt::print("{}", st.markdown);
      fmt::print("wrote {0}/stability.csv and {0}/stability.md\n", out_dir);
      exit_code = kExitOk;
      return;
    }
    const auto result = claims::run_suite(selected, budget, alpha, ::isatty(STDERR_FILENO) == 1);
    write_file_atomic(out_dir + "/check.csv", claims::suite_table(result, budget).to_string());
    write_file_atomic(out_dir + "/check.md", claims::suite_markdown(result, budget));
    fmt::print("{}", claims::suite_terminal(result));
    fmt::print("wrote {0}/check.csv and {0}/check.md\n", out_dir);
    bool failed = false;
    for (const auto& o : result.outcomes) failed |= o.verdict == claims::Verdict::fails;
    exit_code = failed ? kExitClaimFailed : kExitOk;
  });
}

}  // namespace moelab::cli
