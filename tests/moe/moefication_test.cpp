// MoEfication and block discovery (moefication.hpp): k-means and spectral clustering on planted
// structure (with a structureless control), the Fig. 1 picture, the activation-CSV reader's
// refusals, the studies' rows; [slow]: MoEfication of a trained network.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "moelab/core/distributions.hpp"
#include "moelab/moe/moefication.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/study.hpp"
#include "scenario/input_error_helpers.hpp"
#include "topic_test_support.hpp"

namespace moelab::moe {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;
using namespace moelab::moe;
using Catch::Matchers::Contains;

namespace {

const StudyDef& study(const std::string& name) { return test::find_study_in(test::topic_studies<&moe::add_studies>(), name); }

McBudget budget(std::int64_t trials) {
  McBudget b;
  b.trials = trials;
  b.seed = 2;
  return b;
}

/// Labels equal up to a renaming of the groups.
bool same_partition(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a.size(); ++j)
      if ((a[i] == a[j]) != (b[i] == b[j])) return false;
  return true;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "moe_test_" + name + ".csv";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("k-means separates well-separated clusters, deterministically", "[moe][moefication]") {
  // 3 clusters of 30 points at distance 10 with unit spread: Lloyd from k-means++ recovers them.
  const RandomStream rs(9, StreamTag::moe_test_data, 0);
  Eigen::MatrixXd X(2, 90);
  std::vector<int> truth(90);
  for (int i = 0; i < 90; ++i) {
    truth[static_cast<std::size_t>(i)] = i % 3;
    X(0, i) = 10.0 * (i % 3) + rs.normal(2 * static_cast<std::uint64_t>(i));
    X(1, i) = rs.normal(2 * static_cast<std::uint64_t>(i) + 1);
  }
  const auto lab = kmeans(X, 3, 4);
  CHECK(same_partition(lab, truth));
  CHECK(kmeans(X, 3, 4) == lab);
}

TEST_CASE("spectral clustering finds planted feature blocks, a structureless matrix shows no diagonal excess", "[moe][moefication]") {
  const Eigen::MatrixXd A = planted_activations(240, 4, 10, 0.5, 0.3, 17);
  const auto blocks = spectral_blocks(A, 4, 3);
  std::vector<int> truth(40);
  for (int j = 0; j < 40; ++j) truth[static_cast<std::size_t>(j)] = j / 10;
  CHECK(same_partition(blocks, truth));
  const BlockPicture p = block_picture(A, 4, 3, 16, 16);
  CHECK(p.diagonal_share == Approx(0.25).margin(0.01));  // 4 equal blocks, tokens evenly assigned
  // Expected share: in-block E|a| = sqrt(2/pi) + 0.5 = 1.298 on 1/4 of the entries, out-of-block
  // 0.3 sqrt(2/pi) = 0.239 on 3/4: 0.3245 / (0.3245 + 0.1796) = 0.644 when the blocks are found;
  // 9600 entries make the sampling error ~0.005, the margin 0.03 is 6 of those.
  CHECK(p.diagonal_mass == Approx(0.644).margin(0.03));
  CHECK(p.cells.rows() == 16);
  CHECK(p.cells.minCoeff() >= 0.0);
  CHECK(p.cells.maxCoeff() <= 100.0);
  // Control: iid activations (noise = 1, shift = 0: no block differs) put mass share ~ entry share.
  // 240 x 40 iid |N|: the clustering still returns 4 groups, but the mass on its diagonal exceeds the
  // entry share only by selection (tokens choose their largest group): measured excess < 0.1.
  const Eigen::MatrixXd N = planted_activations(240, 4, 10, 0.0, 1.0, 17);
  const BlockPicture q = block_picture(N, 4, 3, 16, 16);
  INFO("planted: " << p.diagonal_mass << " / " << p.diagonal_share << "; iid: " << q.diagonal_mass << " / " << q.diagonal_share);
  CHECK(q.diagonal_mass - q.diagonal_share < 0.1);
  CHECK(p.diagonal_mass - p.diagonal_share > 0.3);
}

TEST_CASE("activation CSV: a header is skipped, bad files are refused naming file and line", "[moe][moefication]") {
  const auto ok = write_temp("ok", "f1,f2,f3\n1,2,3\n4,5,6\n# comment\n7,8,9\n");
  const Eigen::MatrixXd A = read_activation_csv(ok);
  CHECK(A.rows() == 3);
  CHECK(A.cols() == 3);
  CHECK(A(2, 1) == 8.0);
  auto err = [](const std::string& path) { return test::expect_input_error([&] { (void)read_activation_csv(path); }); };
  const auto e1 = err(write_temp("ragged", "1,2,3\n4,5\n"));
  CHECK(e1.line() == 2);
  CHECK_THAT(std::string(e1.what()), Contains("columns"));
  CHECK_THAT(std::string(err(write_temp("word", "1,2\n3,x\n")).what()), Contains("'x' is not a number"));
  CHECK_THAT(std::string(err(write_temp("nan", "1,2\n3,nan\n")).what()), Contains("finite"));
  CHECK_THAT(std::string(err(write_temp("small", "1,2\n")).what()), Contains("at least 2 rows"));
  CHECK_THAT(std::string(err("moe_test_missing_file.csv").what()), Contains("cannot read"));
  for (const char* n : {"ok", "ragged", "word", "nan", "small"}) std::remove((std::string("moe_test_") + n + ".csv").c_str());
}

TEST_CASE("activation CSV: a first data row that does not parse is refused with line and column, not taken as a header",
          "[moe][moefication][hardening]") {
  auto err = [](const std::string& path) { return test::expect_input_error([&] { (void)read_activation_csv(path); }); };
  // 1e400 overflows, "x" is one bad cell: both once made the row a "header" that was dropped (exit 0).
  const auto big = err(write_temp("first_big", "1e400,2\n3,4\n5,6\n"));
  CHECK(big.line() == 1);
  CHECK_THAT(std::string(big.what()), Contains("column 1") && Contains("1e400"));
  const auto cell = err(write_temp("first_cell", "1,x\n3,4\n5,6\n"));
  CHECK(cell.line() == 1);
  CHECK_THAT(std::string(cell.what()), Contains("column 2") && Contains("'x' is not a number"));
  // A UTF-8 byte-order mark before numbers is skipped, and the row is kept (3 rows, not 2).
  const Eigen::MatrixXd bom = read_activation_csv(write_temp("bom", "\xEF\xBB\xBF" "1,2\n3,4\n5,6\n"));
  CHECK(bom.rows() == 3);
  CHECK(bom(0, 0) == 1.0);
  // ... and before a header: the header is still recognised by its names.
  CHECK(read_activation_csv(write_temp("bom_header", "\xEF\xBB\xBF" "a,b\n3,4\n5,6\n")).rows() == 2);
  for (const char* n : {"first_big", "first_cell", "bom", "bom_header"}) std::remove((std::string("moe_test_") + n + ".csv").c_str());
}

TEST_CASE("activation CSV: a FIFO, a device or a directory is refused unread, naming the key", "[moe][moefication][hardening]") {
  auto err = [](const std::string& path) { return test::expect_input_error([&] { (void)read_activation_csv(path); }); };
  const std::string fifo = "moe_test_fifo.csv";
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO with no writer once blocked the run forever; it is refused by its type, without opening it.
  const auto e = err(fifo);
  CHECK(e.key() == "params.activations");
  CHECK_THAT(std::string(e.what()), Contains("FIFO"));
  std::remove(fifo.c_str());
  CHECK_THAT(std::string(err("/dev/zero").what()), Contains("device"));  // once read until memory ran out
  std::filesystem::create_directories("moe_test_dir.csv");
  CHECK_THAT(std::string(err("moe_test_dir.csv").what()), Contains("is a directory"));  // once "got 0 x 0"
  std::filesystem::remove("moe_test_dir.csv");
}

TEST_CASE("moe.block_discovery: an empty activations path is refused, and a relative one is relative to the scenario file",
          "[moe][moefication][hardening]") {
  const auto& s = study("moe.block_discovery");
  const auto e = test::expect_input_error([&] { (void)run_study_text(s, "[params]\nactivations = \"\"\n", budget(1)); });
  CHECK(e.key() == "params.activations");
  CHECK_THAT(std::string(e.what()), Contains("empty"));
  // A scenario in its own directory naming "acts.csv": read from that directory, not the working one.
  const auto dir = std::filesystem::temp_directory_path() / "moe_test_relative";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "acts.csv") << "a,b,c,d\n1,0,0,0\n0,1,0,0\n1,0,0,0\n0,1,0,0\n";
  std::ofstream(dir / "s.toml") << "study = \"moe.block_discovery\"\n[params]\nactivations = \"acts.csv\"\nblocks = 2\n"
                                   "max_rows = 4\nmax_cols = 4\n";
  std::filesystem::remove("acts.csv");  // nothing of that name in the working directory
  const Scenario sc = load_scenario((dir / "s.toml").string());
  const CsvTable t = run_scenario(s, sc, budget(1));
  CHECK(!t.rows.empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("moe.block_discovery: a planted matrix gives a block-diagonal heat map, a bad file is refused before any row", "[moe][study]") {
  const auto& s = study("moe.block_discovery");
  test::check_declaration(s);
  const CsvTable t = run_study_text(s, "[params]\ntokens = 64\nblock_features = 4\nblocks = 4\nmax_rows = 8\nmax_cols = 8\n", budget(1));
  const TableView v(t);
  REQUIRE(v.size() == 64);
  double on = 0, off = 0;
  for (std::size_t i = 0; i < v.size(); ++i) (v.integer(i, "row_block") == v.integer(i, "col_block") ? on : off) += v.real(i, "percentile");
  CHECK(on / 16.0 > off / 48.0 + 20.0);  // diagonal cells' mean percentile far above the off-diagonal's
  const auto bad = write_temp("study_bad", "1,2\n3\n");
  const auto e = test::expect_input_error([&] { (void)run_study_text(s, "[params]\nactivations = \"" + bad + "\"\n", budget(1)); });
  CHECK_THAT(std::string(e.what()), Contains(bad));
  std::remove(bad.c_str());
}

TEST_CASE("moe.moefication rows: dense and moefied per sparsity and noise, same bytes twice", "[moe][study]") {
  const auto& s = study("moe.moefication");
  test::check_declaration(s);
  const std::string text =
      "[params]\nblocks = 2\nblock_dim = 3\nclasses = 3\nteacher_width = 4\nhidden = 8\nexperts = 4\nactive = [1, 4]\n"
      "sigmas = [0.2]\nsteps = 30\nbatch = 32\ncalibration = 128\ntest_samples = 256\n";
  const CsvTable t = run_study_text(s, text, budget(2));
  const TableView v(t);
  REQUIRE(v.size() == 6);  // (dense, s = 1, s = 4) x (sigma 0, 0.2)
  // s = E keeps every neuron: exactly the dense network.
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v.integer(i, "active") == 4) CHECK(v.real(i, "gain_vs_dense") == 0.0);
  CHECK(run_study_text(s, text, budget(2)).rows == t.rows);
  const auto e = test::expect_input_error([&] { (void)run_study_text(s, "[params]\nexperts = 4\nactive = [5]\nsigmas = [0.1]\n", budget(2)); });
  CHECK_THAT(std::string(e.what()), Contains("params.active"));
}
