// Every scenario shipped in scenarios/ loads and validates at every sweep point (study known, all
// values in their domains, no unknown key), and names a gnuplot script that exists. Nothing runs.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"
#include "moelab/catalogue/catalogue.hpp"

namespace fs = std::filesystem;

TEST_CASE("every shipped scenario validates and names an existing plot script", "[scenario]") {
  const fs::path root = MOELAB_SOURCE_DIR;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(root / "scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    if (entry.path().filename().string().rfind("zz_", 0) == 0) continue;  // temporaries of other tests
    INFO(entry.path().string());
    const auto sc = moelab::load_scenario(entry.path().string());
    const auto& study = moelab::study_for(sc, moelab::catalogue::studies());
    const auto points = moelab::prepare_scenario(study, sc);
    CHECK(points.size() == sc.points().size());
    REQUIRE_FALSE(sc.output_plot.empty());
    CHECK(fs::exists(root / sc.output_plot));
    ++count;
  }
  CHECK(count >= 12);
}
