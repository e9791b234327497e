#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "moelab/catalogue/catalogue.hpp"
#include "moelab/core/error.hpp"

namespace moelab::cli {

std::string data_path(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return fs::absolute(relative, ec).lexically_normal().string();
  // <prefix>/bin/moelab -> <prefix>/share/moelab, for an install under any --prefix.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = ec ? fs::path() : exe.parent_path().parent_path() / "share" / "moelab";
  for (const fs::path& root : {beside, fs::path(MOELAB_DATA_DIR), fs::path(MOELAB_SOURCE_DIR)}) {
    if (root.empty()) continue;
    const fs::path p = root / relative;
    if (fs::exists(p, ec)) return p.lexically_normal().string();
  }
  return relative;
}

std::string scenario_dir() { return data_path("scenarios"); }

void add_list(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List studies, claims and scenarios");
  static std::string what = "all";
  cmd->add_option("what", what, "studies | claims | scenarios | all")
      ->check(CLI::IsMember({"studies", "claims", "scenarios", "all"}));
  cmd->callback([&exit_code] {
    // Names are padded to the longest one, so the descriptions line up.
    if (what == "all" || what == "studies") {
      const auto& studies = catalogue::studies();
      std::size_t w = 0;
      for (const auto& s : studies) w = std::max(w, s.name.size());
      fmt::print("studies ({}):\n", studies.size());
      for (const auto& s : studies) {
        const CudaPath cuda = s.cuda;
        fmt::print("  {:<{}}  {}{}\n", s.name, w, s.summary,
                   cuda == CudaPath::none ? "" : fmt::format(" [cuda path: {}]", to_string(cuda)));
      }
    }
    if (what == "all" || what == "claims") {
      const auto& all = catalogue::claims().all();
      std::size_t w = 0;
      for (const auto& c : all) w = std::max(w, c.id.size());
      fmt::print("claims ({}):\n", all.size());
      for (const auto& c : all) {
        const auto documented = catalogue::documented_verdict(c.id);
        fmt::print("  {:<{}}  {:<12}  [{}] {}\n", c.id, w, documented ? claims::to_string(*documented) : "-", c.source,
                   c.statement);
      }
    }
    if (what == "all" || what == "scenarios") {
      std::set<std::string> files;
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(scenario_dir(), ec))
        if (e.path().extension() == ".toml") files.insert(e.path().string());
      fmt::print("scenarios ({}, in {}):\n", files.size(), scenario_dir());
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
      std::vector<std::string> known;
      for (const auto& st : catalogue::studies()) known.push_back(st.name);
      const std::string near = closest_name(name, known, 4);
      bad_option("study", fmt::format("unknown study '{}'{} (known: {})", name,
                                      near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), fmt::join(known, ", ")));
    }
    fmt::print("{}", describe_study(*s));
    exit_code = kExitOk;
  });
}

}  // namespace moelab::cli
