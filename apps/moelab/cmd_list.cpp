#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "commands.hpp"
#include "moelab/catalogue/catalogue.hpp"

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
      for (const auto& s : catalogue::studies()) {
        const CudaPath cuda = s.cuda;
        fmt::print("  {:<22} {}{}\n", s.name, s.summary,
                   cuda == CudaPath::none ? "" : fmt::format(" [cuda path: {}]", to_string(cuda)));
      }
    }
    if (what == "all" || what == "claims") {
      fmt::print("claims:\n");
      for (const auto& c : catalogue::claims().all())
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

void add_describe(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("describe", "Print a study's parameters (type, domain, default, unit) and columns");
  static std::string name;
  cmd->add_option("study", name, "a study name (moelab list studies)")->required();
  cmd->callback([&exit_code] {
    const StudyDef* s = catalogue::find_study(name);
    if (s == nullptr) {
      std::string known;
      for (const auto& st : catalogue::studies()) known += (known.empty() ? "" : ", ") + st.name;
      bad_option("study", fmt::format("unknown study '{}' (known: {})", name, known));
    }
    fmt::print("{}", describe_study(*s));
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
