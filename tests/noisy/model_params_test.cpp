#include "moelab/noisy/model_params.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>  // getpid

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/linalg/covariance.hpp"
#include "scenario/input_error_helpers.hpp"

using moelab::ParamView;
using moelab::noisy::Model;
using moelab::noisy::parse_model;
using moelab::test::expect_input_error;

namespace {

Model model_from(const std::string& text, const std::string& file = "m.toml") {
  const toml::table t = toml::parse(text, std::string_view(file));
  const ParamView v(t, file);
  Model m = parse_model(v);
  v.check_all_used();
  return m;
}

std::string model_error(const std::string& text, const std::string& file = "m.toml") {
  return expect_input_error([&] { model_from(text, file); }).what();
}

/// A scratch directory holding a scenario path and its data files.
/// A scratch folder of this process: CTest runs each TEST_CASE as its own process, two at a time, so a
/// folder shared by name was removed by one test while another was still reading it (a flaky failure).
struct ScratchDir {
  std::filesystem::path dir;
  ScratchDir() : dir(std::filesystem::temp_directory_path() / ("moelab_model_params_test_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  std::string scenario() const { return (dir / "s.toml").string(); }
};

}  // namespace

TEST_CASE("equal blocks, uniform p, identity covariance and a seeded random beta*", "[noisy][model_params]") {
  const Model m = model_from("[model]\nk = 3\nblock_size = 2\nsigma2 = 0.5\n[model.beta]\nseed = 9\nscale = 2\n");
  REQUIRE(m.k() == 3);
  CHECK(m.d() == 6);
  CHECK(m.sigma2 == 0.5);
  for (int i = 0; i < 3; ++i) {
    CHECK(m.block_size(i) == 2);
    CHECK(m.p[static_cast<std::size_t>(i)] == 1.0 / 3.0);
    CHECK(m.sigma[static_cast<std::size_t>(i)] == Eigen::MatrixXd::Identity(2, 2));
  }
  // beta* ~ N(0, scale^2 / d): draw j of the beta_star stream, scaled.
  const moelab::RandomStream rs(9, moelab::StreamTag::beta_star, 0);
  const Eigen::VectorXd b = m.beta_full();
  for (int j = 0; j < 6; ++j) CHECK(b(j) == 2.0 / std::sqrt(6.0) * rs.normal(static_cast<std::uint64_t>(j)));
  // Same seed, same beta*; different seed, different beta*.
  CHECK(model_from("[model]\nk = 3\nblock_size = 2\nsigma2 = 0.5\n[model.beta]\nseed = 9\nscale = 2\n").beta_full() == b);
  CHECK(model_from("[model]\nk = 3\nblock_size = 2\nsigma2 = 0.5\n[model.beta]\nseed = 10\nscale = 2\n").beta_full() != b);
}

TEST_CASE("block_sizes, d, explicit p, toeplitz covariance and given or ones beta*", "[noisy][model_params]") {
  const Model m = model_from(
      "[model]\nblock_sizes = [3, 1]\nd = 4\np = [0.75, 0.25]\nsigma2 = 2\n"
      "[model.covariance]\nkind = \"toeplitz\"\nrho = 0.5\nscale = 3\n"
      "[model.beta]\nkind = \"given\"\nvalues = [1, 2, 3, 4]\n");
  REQUIRE(m.k() == 2);
  CHECK(m.block_size(0) == 3);
  CHECK(m.block_size(1) == 1);
  CHECK(m.p == std::vector<double>{0.75, 0.25});
  CHECK(m.sigma[0] == moelab::toeplitz_covariance(3, 0.5, 3.0));
  CHECK(m.sigma[1] == moelab::toeplitz_covariance(1, 0.5, 3.0));
  CHECK(m.beta_star[0] == Eigen::Vector3d(1, 2, 3));
  CHECK(m.beta_star[1](0) == 4.0);

  const Model ones = model_from("[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.beta]\nkind = \"ones\"\nscale = 4\n");
  CHECK(ones.beta_full() == Eigen::VectorXd::Constant(4, 2.0));
}

TEST_CASE("diagonal covariance: one value per coordinate or one block's diagonal for equal blocks", "[noisy][model_params]") {
  const Model full = model_from(
      "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\nkind = \"diagonal\"\nvalues = [1, 2, 3, 4]\n");
  CHECK(full.sigma[1] == moelab::diagonal_covariance({3.0, 4.0}));
  const Model shared = model_from(
      "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\nkind = \"diagonal\"\nvalues = [5, 6]\n");
  CHECK(shared.sigma[0] == moelab::diagonal_covariance({5.0, 6.0}));
  CHECK(shared.sigma[1] == moelab::diagonal_covariance({5.0, 6.0}));
}

TEST_CASE("[model] errors: k, block sizes, d", "[noisy][model_params][errors]") {
  CHECK(model_error("[model]\nk = 0\nblock_size = 2\nsigma2 = 1\n") == "m.toml:2: key 'model.k': must be >= 1, got 0");
  CHECK(model_error("[model]\nk = 2.0\nblock_size = 2\nsigma2 = 1\n") ==
        "m.toml:2: key 'model.k': must be an integer, got float 2.0");
  CHECK(model_error("[model]\nk = 2\nblock_size = 0\nsigma2 = 1\n") ==
        "m.toml:3: key 'model.block_size': must be >= 1, got 0");
  CHECK(model_error("[model]\nblock_size = 2\nsigma2 = 1\n") ==
        "m.toml:1: key 'model.k': is required with block_size (the number of equal blocks)");
  CHECK(model_error("[model]\nk = 2\nsigma2 = 1\n") ==
        "m.toml:1: key 'model.block_size': is required: give block_size (with k, equal blocks) or block_sizes (one "
        "size per expert)");
  CHECK(model_error("[model]\nk = 2\nblock_size = 2\nblock_sizes = [2, 2]\nsigma2 = 1\n") ==
        "m.toml:4: key 'model.block_sizes': give either block_size (equal blocks) or block_sizes, not both");
  // Block sizes that do not add up.
  CHECK(model_error("[model]\nblock_sizes = [3, 4]\nd = 8\nsigma2 = 1\n") ==
        "m.toml:3: key 'model.d': block sizes add up to 7, but d = 8");
  CHECK(model_error("[model]\nk = 2\nblock_size = 3\nd = 5\nsigma2 = 1\n") ==
        "m.toml:4: key 'model.d': block sizes add up to 6, but d = 5");
  CHECK(model_error("[model]\nk = 3\nblock_sizes = [3, 4]\nsigma2 = 1\n") ==
        "m.toml:3: key 'model.block_sizes': has 2 entries, but k = 3");
  CHECK(model_error("[model]\nblock_sizes = [3,\n  0]\nsigma2 = 1\n") ==
        "m.toml:3: key 'model.block_sizes': entry [1] must be >= 1, got 0");
  CHECK(model_error("[model]\nblock_sizes = [3, 2.5]\nsigma2 = 1\n") ==
        "m.toml:2: key 'model.block_sizes': entry [1] must be an integer, got float 2.5");
  CHECK(model_error("model = 3\n") == "m.toml:1: key 'model': must be a table ([model])");
}

TEST_CASE("[model] errors: sigma2 and p", "[noisy][model_params][errors]") {
  const std::string head = "[model]\nk = 2\nblock_size = 2\n";  // lines 1-3
  CHECK(model_error(head + "sigma2 = -1\n") == "m.toml:4: key 'model.sigma2': must be > 0, got -1");
  CHECK(model_error(head + "sigma2 = 0\n") == "m.toml:4: key 'model.sigma2': must be > 0, got 0");
  CHECK(model_error(head + "sigma2 = \"one\"\n") == "m.toml:4: key 'model.sigma2': must be a number, got string \"one\"");
  CHECK(model_error(head) == "m.toml:1: key 'model.sigma2': required key is missing");
  // p not a probability vector.
  CHECK(model_error(head + "sigma2 = 1\np = [1.5,\n     -0.5]\n") ==
        "m.toml:6: key 'model.p': entry [1] must be > 0, got -0.5");
  CHECK(model_error(head + "sigma2 = 1\np = [0.2, 0.3, 0.5]\n") == "m.toml:5: key 'model.p': has 3 entries, but k = 2");
  CHECK(model_error(head + "sigma2 = 1\np = [0.5, 0.6]\n") ==
        "m.toml:5: key 'model.p': must add up to 1 (tolerance 1e-9), got sum 1.1");
  CHECK(model_error(head + "sigma2 = 1\np = \"equal\"\n") ==
        "m.toml:5: key 'model.p': must be one of \"uniform\", got \"equal\"");
  // Within the 1e-9 tolerance: 10 significant digits.
  const Model m = model_from("[model]\nk = 3\nblock_size = 1\nsigma2 = 1\np = [0.3333333333, 0.3333333333, 0.3333333334]\n");
  CHECK(m.p[2] == 0.3333333334);
  CHECK(model_from(head + "sigma2 = 1\np = \"uniform\"\n").p == std::vector<double>{0.5, 0.5});
}

TEST_CASE("[model.covariance] errors: not SPD, bad diagonal, |rho| >= 1, wrong lengths", "[noisy][model_params][errors]") {
  const std::string head = "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\n";  // table at line 5
  CHECK(model_error(head + "kind = \"diagonal\"\nvalues = [1, 2, 0, 4]\n") ==
        "m.toml:7: key 'model.covariance.values': entry [2] must be > 0 (a covariance diagonal), got 0");
  CHECK(model_error(head + "kind = \"diagonal\"\nvalues = [1, 2, 3]\n") ==
        "m.toml:7: key 'model.covariance.values': has 3 entries, but d = 4 (or give 2, one block's diagonal)");
  CHECK(model_error(head + "kind = \"toeplitz\"\nrho = 1\n") ==
        "m.toml:7: key 'model.covariance.rho': must satisfy |rho| < 1 (else the Toeplitz matrix is not positive "
        "definite), got 1");
  CHECK(model_error(head + "kind = \"toeplitz\"\nrho = -1.5\n") ==
        "m.toml:7: key 'model.covariance.rho': must satisfy |rho| < 1 (else the Toeplitz matrix is not positive "
        "definite), got -1.5");
  CHECK(model_error(head + "kind = \"toeplitz\"\n") == "m.toml:5: key 'model.covariance.rho': required key is missing");
  CHECK(model_error(head + "kind = \"gaussian\"\n") ==
        "m.toml:6: key 'model.covariance.kind': must be one of \"identity\", \"diagonal\", \"toeplitz\", \"file\", got "
        "\"gaussian\"");
  CHECK(model_error(head + "scale = -2\n") == "m.toml:6: key 'model.covariance.scale': must be > 0, got -2");
  CHECK(model_error(head + "kind = \"diagonal\"\nvalues = [1, 2]\nscale = 2\n") ==
        "m.toml:8: key 'model.covariance.scale': is not used with kind = \"diagonal\" (only with identity, toeplitz)");
  CHECK(model_error(head + "rho = 0.5\n") ==
        "m.toml:6: key 'model.covariance.rho': is not used with kind = \"identity\" (only with toeplitz)");
}

TEST_CASE("covariance from a file: one shared block or the full block-diagonal matrix", "[noisy][model_params]") {
  const ScratchDir scratch;
  scratch.write("block.txt", "# a 2 x 2 block\n2, 0.5\n0.5 1\n");
  scratch.write("full.txt", "2 1 0\n1 2 0\n\n0 0 3\n");
  const std::string file = scratch.scenario();
  const Model shared = model_from(
      "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\nkind = \"file\"\npath = \"block.txt\"\n", file);
  Eigen::Matrix2d expected;
  expected << 2, 0.5, 0.5, 1;
  CHECK(shared.sigma[0] == expected);
  CHECK(shared.sigma[1] == expected);
  const Model full = model_from(
      "[model]\nblock_sizes = [2, 1]\nsigma2 = 1\n[model.covariance]\nkind = \"file\"\npath = \"full.txt\"\n", file);
  Eigen::Matrix2d top;
  top << 2, 1, 1, 2;
  CHECK(full.sigma[0] == top);
  CHECK(full.sigma[1](0, 0) == 3.0);
}

TEST_CASE("covariance file errors name the data file and its line, or the key", "[noisy][model_params][errors]") {
  const ScratchDir scratch;
  const std::string file = scratch.scenario();
  auto data = [&](const std::string& name) { return (scratch.dir / name).lexically_normal().string(); };
  const std::string head = "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\nkind = \"file\"\n";  // path at line 7
  auto err = [&](const std::string& name, const std::string& contents) {
    scratch.write(name, contents);
    return model_error(head + "path = \"" + name + "\"\n", file);
  };
  // Not SPD: symmetric with a negative eigenvalue; and not symmetric.
  const std::string not_pd = err("not_pd.txt", "1 2\n2 1\n");
  CHECK(not_pd.rfind(file + ":5: key 'model.covariance': Sigma_0 (block 0 of 2, 0-based) is not symmetric positive "
                            "definite: ", 0) == 0);
  CHECK(not_pd.find("not positive definite") != std::string::npos);
  const std::string not_sym = err("not_sym.txt", "1 0.5\n0 1\n");
  CHECK(not_sym.find("key 'model.covariance': Sigma_0") != std::string::npos);
  CHECK(not_sym.find("not symmetric") != std::string::npos);
  // The second block of a full matrix is the bad one.
  CHECK(err("second.txt", "1 0 0 0\n0 1 0 0\n0 0 1 3\n0 0 3 1\n").find("Sigma_1 (block 1 of 2, 0-based)") !=
        std::string::npos);
  // Malformed data file: the message names the data file and line.
  CHECK(err("bad.txt", "1 0\n0 x1\n") == data("bad.txt") + ":2: cannot read \"x1\" as a finite number (matrix file of "
                                                "'model.covariance.path')");
  CHECK(err("ragged.txt", "1 0\n0\n") == data("ragged.txt") + ":2: row has 1 numbers, but the first row (line 1) has 2 "
                                                "(matrix file of 'model.covariance.path')");
  CHECK(err("rect.txt", "1 0 0\n0 1 0\n") == data("rect.txt") + ":2: 2 rows of 3 numbers: not a square matrix (matrix "
                                                    "file of 'model.covariance.path')");
  CHECK(err("offblock.txt", "1 0 0 0\n0 1 0.1 0\n0 0.1 1 0\n0 0 0 1\n") ==
        data("offblock.txt") + ":2: entry (1, 2) = 0.1 lies outside the diagonal blocks (sizes 2, 2) and must be 0 (matrix "
               "file of 'model.covariance.path')");
  CHECK(err("three.txt", "1 0 0\n0 1 0\n0 0 1\n") ==
        file + ":7: key 'model.covariance.path': '" + data("three.txt") +
            "' holds a 3 x 3 matrix, but the blocks have sizes 2, 2 (give one 2 x 2 block or the full 4 x 4 "
            "matrix)");
  // Unreadable.
  CHECK(model_error(head + "path = \"missing.txt\"\n", file) ==
        file + ":7: key 'model.covariance.path': cannot read file '" + data("missing.txt") + "'");
}

TEST_CASE("unknown keys in [model], [model.covariance] and [model.beta] are caught by check_all_used", "[noisy][model_params][errors]") {
  CHECK(model_error("[model]\nk = 2\nblock_size = 2\nsigma = 1\nsigma2 = 1\n") ==
        "m.toml:4: key 'model.sigma': unknown key (did you mean 'model.sigma2'?)");
  CHECK(model_error("[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.covariance]\nkind = \"identity\"\nscal = 2\n") ==
        "m.toml:7: key 'model.covariance.scal': unknown key (did you mean 'model.covariance.scale'?)");
  CHECK(model_error("[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.beta]\nsed = 2\n") ==
        "m.toml:6: key 'model.beta.sed': unknown key (did you mean 'model.beta.seed'?)");
}

TEST_CASE("[model.beta] errors", "[noisy][model_params][errors]") {
  const std::string head = "[model]\nk = 2\nblock_size = 2\nsigma2 = 1\n[model.beta]\n";
  CHECK(model_error(head + "kind = \"given\"\nvalues = [1, 2, 3]\n") ==
        "m.toml:7: key 'model.beta.values': has 3 entries, but d = 4");
  CHECK(model_error(head + "seed = -1\n") == "m.toml:6: key 'model.beta.seed': must be >= 0, got -1");
  CHECK(model_error(head + "kind = \"ones\"\nseed = 3\n") ==
        "m.toml:7: key 'model.beta.seed': is not used with kind = \"ones\" (only with random)");
}

TEST_CASE("parse_model works under another prefix", "[noisy][model_params]") {
  const toml::table t = toml::parse("[teacher]\nk = 1\nblock_size = 3\nsigma2 = 0.25\n", std::string_view("m.toml"));
  const ParamView v(t, "m.toml");
  const Model m = parse_model(v, "teacher");
  CHECK(m.d() == 3);
  CHECK(m.sigma2 == 0.25);
  CHECK_NOTHROW(v.check_all_used());
}
