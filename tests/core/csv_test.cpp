#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"

using namespace moelab;

TEST_CASE("CSV doubles round-trip exactly", "[core][csv]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < 10000; ++i) {
    const double x = u(rng) * std::pow(10.0, static_cast<double>(i % 40) - 20.0);
    CHECK(std::strtod(format_cell(x).c_str(), nullptr) == x);
  }
  CHECK(format_cell(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_cell(std::int64_t{12}) == "12");
  CHECK(format_cell(std::string("a,b")) == "\"a,b\"");
}

TEST_CASE("CSV has metadata lines, a header and rows, and parses back", "[core][csv]") {
  CsvTable t;
  t.add_metadata("tool", "moelab");
  t.columns = {"n", "estimator", "value"};
  t.add_row({std::int64_t{10}, std::string("dense"), 0.25});
  const std::string s = t.to_string();
  CHECK(s == "# tool: moelab\nn,estimator,value\n10,dense,0.25\n");
  const CsvTable back = parse_csv(s);
  CHECK(back.metadata.size() == 1);
  CHECK(back.columns == t.columns);
  CHECK(std::get<std::string>(back.rows[0][1]) == "dense");
}

TEST_CASE("atomic writes replace the whole file and leave no temporary behind", "[core][csv]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "moelab_csv_test";
  fs::remove_all(dir);
  const std::string path = (dir / "out.csv").string();
  write_file_atomic(path, "first\n");
  write_file_atomic(path, "second\n");
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == "second\n");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
  fs::remove_all(dir);
}

TEST_CASE("an unwritable target is a runtime failure that leaves nothing behind", "[core][csv]") {
  CHECK_THROWS_AS(write_file_atomic("/proc/moelab_nonexistent/x.csv", "x"), RuntimeFailure);
}
