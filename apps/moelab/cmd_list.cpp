#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "commands.hpp"
#include "moelab/claims/claim.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::cli {

std::string scenario_dir() {
  namespace fs = std::filesystem;
  if (fs::is_directory("scenarios")) return "scenarios";
  const fs::path src = fs::path(MOELAB_SOURCE_DIR) / "scenarios";
  return fs::is_directory(src) ? src.string() : "scenarios";
}

void add_list(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List studies, claims and scenarios");
  static std::string what = "all";
  cmd->add_option("what", what, "studies | claims | scenarios | all")
      ->check(CLI::IsMember({"studies", "claims", "scenarios", "all"}));
  cmd->callback([&exit_code] {
    if (what == "all" || what == "studies") {
      fmt::print("studies:\n");
      for (const auto& s : studies()) {
        const CudaPath cuda = s->cuda_path();
        fmt::print("  {:<22} {}{}\n", s->name(), s->summary(),
                   cuda == CudaPath::none ? "" : fmt::format(" [cuda path: {}]", to_string(cuda)));
      }
    }
    if (what == "all" || what == "claims") {
      fmt::print("claims:\n");
      for (const auto& c : claims::registry().all())
        fmt::print("  {:<36} [{}] {}\n", c.id, c.source, c.statement);
    }
    if (what == "all" || what == "scenarios") {
      fmt::print("scenarios ({}):\n", scenario_dir());
      std::set<std::string> files;
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(scenario_dir(), ec))
        if (e.path().extension() == ".toml") files.insert(e.path().string());
      for (const auto& f : files) fmt::print("  {}\n", f);
    }
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
