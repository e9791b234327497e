// End-to-end tests of the moelab executable: golden CSV, thread-count independence, exit codes and
// "no partial output" on bad input.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {
struct Result {
  int code;
  std::string out;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(MOELAB_EXE) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Golden comparison ignores the tool-version line only.
std::string normalise(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("# tool:", 0) != 0 && line.rfind("# scenario:", 0) != 0 && line.rfind("# Golden", 0) != 0)
      out += line + "\n";
  return out;
}

const fs::path kData = fs::path(MOELAB_SOURCE_DIR) / "tests" / "data";
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "moelab_cli_test";
  fs::create_directories(d);
  return d / name;
}
}  // namespace

TEST_CASE("the CLI's CSV of a small scenario matches the golden file", "[cli]") {
  const fs::path out = scratch("tiny.csv");
  const auto r = run("run " + (kData / "tiny_excess.toml").string() + " -o " + out.string());
  REQUIRE(r.code == 0);
  CHECK(normalise(slurp(out)) == normalise(slurp(kData / "tiny_excess.golden.csv")));
}

TEST_CASE("results are byte-identical for 1 and 2 threads", "[cli]") {
  const fs::path a = scratch("t1.csv"), b = scratch("t2.csv");
  REQUIRE(run("run " + (kData / "tiny_excess.toml").string() + " --threads 1 -o " + a.string()).code == 0);
  REQUIRE(run("run " + (kData / "tiny_excess.toml").string() + " --threads 2 -o " + b.string()).code == 0);
  CHECK(slurp(a) == slurp(b));
}

TEST_CASE("bad input exits with code 2, names the key, and writes nothing", "[cli]") {
  const fs::path bad = scratch("bad.toml"), out = scratch("never.csv");
  fs::remove(out);
  std::ofstream(bad) << "study = \"noisy.excess_risk\"\n[model]\nk = 2\nblock_size = 3\nsigma2 = -1\n"
                        "[sweep]\n\"params.n\" = [10]\n";
  const auto r = run("run " + bad.string() + " -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("model.sigma2") != std::string::npos);
  CHECK(r.out.find("bad.toml:5") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("an existing output survives a failed run untouched", "[cli]") {
  const fs::path bad = scratch("bad2.toml"), out = scratch("keep.csv");
  std::ofstream(out) << "precious\n";
  std::ofstream(bad) << "study = \"noisy.excess_risk\"\n[model]\nk = 2\nblock_size = 3\nsigma2 = 1\n"
                        "[sweep]\n\"params.n\" = [10, 0]\n";
  const auto r = run("run " + bad.string() + " -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.n") != std::string::npos);
  CHECK(slurp(out) == "precious\n");
}

TEST_CASE("usage errors exit with 2 and --help / --version with 0", "[cli]") {
  CHECK(run("--version").code == 0);
  CHECK(run("run --help").code == 0);
  CHECK(run("check --help").code == 0);
  CHECK(run("list claims").code == 0);
  CHECK(run("run").code == 2);
  CHECK(run("frobnicate").code == 2);
  CHECK(run("check --only no-such-claim").code == 2);
  CHECK(run("run /nonexistent/x.toml").code == 2);
}
