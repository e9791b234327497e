// End-to-end tests of the moelab executable: golden CSV, thread-count independence, exit codes and
// "no partial output" on bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "moelab/core/backend.hpp"
#include "cli/process.hpp"

namespace fs = std::filesystem;
using namespace moelab::test_cli;

namespace {
// Golden comparison ignores the tool-version line only.
std::string normalise(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("# tool:", 0) != 0 && line.rfind("# scenario:", 0) != 0 && line.rfind("# Golden", 0) != 0)
      out += line + "\n";
  return out;
}

// Numbers are compared to 1e-10 relative, everything else (header, columns, text cells, row count)
// byte for byte. The golden file is moelab's own output on one machine; on another the numbers may
// differ in the last bits, for two documented reasons: OpenBLAS picks its kernels by CPU at run time
// (an AMD EPYC with AVX-512 and the machine that wrote the file differ by 2-4e-16 relative here), and
// the sanitizer build (-O1) does not contract a * b + c into fused multiply-adds as Release does. Each
// changes roundings of one ulp (1.1e-16); through the Cholesky solves and trial sums of this tiny
// scenario that stays far below 1e-10, while any change of the method moves the numbers by far more.
// Byte identity on one machine (threads, ranks, resume) is tested separately.
bool same_number_or_text(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* ea = nullptr;
  char* eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (ea == a.c_str() || *ea != '\0' || eb == b.c_str() || *eb != '\0') return false;
  return std::abs(x - y) <= 1e-10 * std::max(std::abs(x), std::abs(y));
}

bool golden_equal(const std::string& got, const std::string& want) {
  std::istringstream gi(got), wi(want);
  std::string gl, wl;
  while (true) {
    const bool g = static_cast<bool>(std::getline(gi, gl)), w = static_cast<bool>(std::getline(wi, wl));
    if (g != w) return false;
    if (!g) return true;
    if (gl == wl) continue;
    std::istringstream gc(gl), wc(wl);
    std::string a, b;
    while (true) {
      const bool ga = static_cast<bool>(std::getline(gc, a, ',')), wb = static_cast<bool>(std::getline(wc, b, ','));
      if (ga != wb) return false;
      if (!ga) break;
      if (!same_number_or_text(a, b)) return false;
    }
  }
}

const fs::path kData = fs::path(MOELAB_SOURCE_DIR) / "tests" / "data";
fs::path scratch(const std::string& name) { return scratch_in("moelab_cli_test", name); }
}  // namespace

TEST_CASE("the CLI's CSV of a small scenario matches the golden file", "[cli]") {
  const fs::path out = scratch("tiny.csv");
  const auto r = run("run " + (kData / "tiny_excess.toml").string() + " -o " + out.string());
  REQUIRE(r.code == 0);
  const std::string got = normalise(slurp(out)), want = normalise(slurp(kData / "tiny_excess.golden.csv"));
  INFO(got);
  CHECK(golden_equal(got, want));
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

TEST_CASE("trained.sraven_difficulty: alpha <= 1 and a profile that does not fit R exit with 2 naming the key", "[cli]") {
  // App. A.5 asks alpha > 1; a list of inverse difficulties needs one entry per rule (R = 8 here).
  const fs::path bad = scratch("bad_difficulty.toml"), out = scratch("never_difficulty.csv");
  fs::remove(out);
  const std::string head = "study = \"trained.sraven_difficulty\"\n[params]\nM = 2\nsteps = 1\nk_list = [1]\n";
  std::ofstream(bad) << head << "difficulty_alphas = [2, 1]\n";
  auto r = run("run " + bad.string() + " -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.difficulty_alphas") != std::string::npos);
  CHECK(r.out.find("> 1") != std::string::npos);
  std::ofstream(bad) << head << "difficulty_alphas = [2]\ndifficulty_profile = \"list\"\ndifficulty_D = [1, 2, 3]\n";
  r = run("run " + bad.string() + " -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.difficulty_D") != std::string::npos);
  CHECK(r.out.find("R = 8") != std::string::npos);
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
  CHECK(run("describe no.such_study").code == 2);
}

TEST_CASE("describe prints every study's declared parameters and columns", "[cli]") {
  for (const char* study : {"noisy.excess_risk", "spectra.spike", "bounds.theorem1", "routing.balance"}) {
    INFO(study);
    const auto r = run(std::string("describe ") + study);
    CHECK(r.code == 0);
    CHECK(r.out.find("parameters:") != std::string::npos);
    CHECK(r.out.find("columns:") != std::string::npos);
  }
  const auto r = run("describe spectra.spike");
  CHECK(r.out.find("params.ell") != std::string::npos);
  CHECK(r.out.find("real > 0; default (required)") != std::string::npos);
  CHECK(r.out.find("trials: random matrices per point") != std::string::npos);
  CHECK(r.out.find("overlap_limit") != std::string::npos);
}

TEST_CASE("spectrum prints closed forms as CSV", "[cli][spectrum]") {
  // MP(c = 1/4, 1): edges (1 -+ 1/2)^2 = 0.25 and 2.25, exact in binary.
  auto r = run("spectrum mp --c 0.25 --points 3");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("# edges: 0.25 2.25") != std::string::npos);
  CHECK(r.out.find("x,density,cdf\n0.25,0,0\n1.25,") != std::string::npos);
  // BBP at c = 1/2, ell = 4: limit 4 (1 + 0.5/3) = 14/3, overlap (1 - 1/18)/(1 + 1/6) = 17/21.
  r = run("spectrum spike --ell 4 --c 0.5");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(",4.666666666666667,0.809523809523809") != std::string::npos);
  // TW2 median (Bornemann 2010: -1.8039...); the quantile row has the 0.5 probability first.
  r = run("spectrum tw --beta 2 --quantile 0.5");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("0.5,-1.80") != std::string::npos);
}

TEST_CASE("spectrum rejects bad input with exit code 2 and writes nothing", "[cli][spectrum]") {
  const fs::path out = scratch("ds_bad.csv");
  fs::remove(out);
  auto r = run("spectrum ds --atoms 0,2 --weights 0.5,0.4 -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("--weights") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  r = run("spectrum ds --atoms 1,2 --weights 0.5,0.5 --c 2");  // c > 1 needs mass >= 1/2 at 0
  CHECK(r.code == 2);
  CHECK(r.out.find("1 - 1/c") != std::string::npos);
  CHECK(run("spectrum tw --beta 3").code == 2);
  CHECK(run("spectrum mp --c -1").code == 2);
  CHECK(run("spectrum tw --beta 2 --convention unscaled").code == 2);
}

TEST_CASE("spectra studies run from a scenario and reject bad parameters", "[cli][spectrum]") {
  const fs::path toml = scratch("esd.toml"), out = scratch("esd.csv");
  fs::remove(out);
  std::ofstream(toml) << "study = \"spectra.esd\"\n[params]\nM = 20\nc = 0.5\nlaw = \"rademacher\"\nbins = 10\n"
                      << "[monte_carlo]\ntrials = 3\nseed = 1\n";
  auto r = run("run " + toml.string() + " -o " + out.string());
  REQUIRE(r.code == 0);
  const std::string csv = slurp(out);
  CHECK(csv.find("c,M,N,law,x,empirical_density,limit_bin_density,limit_density,ks_distance_mean,trials") != std::string::npos);
  CHECK(csv.find("0.5,20,40,rademacher,") != std::string::npos);

  const fs::path bad = scratch("bad_spectra.toml"), bad_out = scratch("bad_spectra.csv");
  fs::remove(bad_out);
  std::ofstream(bad) << "study = \"spectra.esd\"\n[params]\nM = 20\nc = 0.5\nN = 40\n";
  r = run("run " + bad.string() + " -o " + bad_out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.N") != std::string::npos);
  std::ofstream(bad) << "study = \"spectra.tw\"\n[params]\nn = 40\np = 20\nbeta = 3\n";
  r = run("run " + bad.string() + " -o " + bad_out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.beta") != std::string::npos);
  std::ofstream(bad) << "study = \"spectra.spike\"\n[params]\nM = 20\nc = 0.5\nell = 4\nlaw = \"cauchy\"\n";
  r = run("run " + bad.string() + " -o " + bad_out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("params.law") != std::string::npos);
  CHECK_FALSE(fs::exists(bad_out));
}

namespace {
/// The last field of the first CSV line of `out` that starts with `prefix`.
double last_field(const std::string& out, const std::string& prefix) {
  const auto at = out.find("\n" + prefix);
  REQUIRE(at != std::string::npos);
  const auto end = out.find('\n', at + 1);
  const auto line = out.substr(at + 1, end - at - 1);
  return std::stod(line.substr(line.rfind(',') + 1));
}
}  // namespace

TEST_CASE("bound and kstar answer one query with its terms, or a grid", "[cli][theory]") {
  // Theorem 1 as printed with T = k = 1, d_N = 0: 4 C R + 2 sqrt(log(2/delta) / 2m); delta = 2/e, m = 2,
  // R = 1/4 gives 1 + 2 sqrt(1/4) = 2.
  auto r = run("bound theorem1 --m 2 --T 1 --k 1 --d-N 0 --rademacher 0.25 --delta 0.7357588823428847");
  REQUIRE(r.code == 0);
  CHECK(std::abs(last_field(r.out, "printed,") - 2.0) < 1e-12);
  CHECK(r.out.find("\nensemble_averaged,") != std::string::npos);
  // Definition 5 as printed: k* = T always (docs/sparsity.md).
  r = run("kstar --T 16 --N 3 --m 500");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\ndefinition5,3,500,2,16,1,1,0.05,16,") != std::string::npos);
  // A grid is the cartesian product: 2 x 3 rows after the header.
  r = run("kstar --N 1,2 --m 10,100,1000 --form theorem1");
  REQUIRE(r.code == 0);
  {
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind('#', 0) != 0) lines.push_back(line);
    REQUIRE(lines.size() == 1 + 6);  // header, rows (metadata lines start with '#')
    // First option slowest: N = 1 with m = 10, 100, 1000, then N = 2.
    CHECK(lines[1].rfind("theorem1,1,10,", 0) == 0);
    CHECK(lines[3].rfind("theorem1,1,1000,", 0) == 0);
    CHECK(lines[4].rfind("theorem1,2,10,", 0) == 0);
  }
  // Growth functions: C(4, 0) + C(4, 1) = 5 labelings for VC dimension 1 on 4 points.
  r = run("bound growth --m 4 --d 1 --labels 2");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(",1.6094379124341") != std::string::npos);  // log 5
}

TEST_CASE("kstar --difficulty is the scenario of sparsity.kstar_difficulty byte for byte", "[cli][theory]") {
  // The rows (not the `source` metadata) of the command and of `moelab run` on the same point.
  const auto rows = [](const std::string& text) {
    std::string r;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.rfind('#', 0) != 0) r += line + "\n";
    return r;
  };
  const auto cli = run("kstar --N 8 --m 1e4 --T 64 --a 0.01 --form theorem1 --difficulty powerlaw --difficulty-alpha 1.5,3");
  REQUIRE(cli.code == 0);
  const fs::path toml = scratch("difficulty.toml"), out = scratch("difficulty.csv");
  std::ofstream(toml) << "study = \"sparsity.kstar_difficulty\"\n[params]\nN = 8\nm = 1e4\nd_N = 2\nT = 64\na = 0.01\n"
                         "form = \"theorem1\"\ndifficulty = \"powerlaw\"\ndifficulty_alpha = 1.5\n"
                         "[sweep]\n\"params.difficulty_alpha\" = [1.5, 3.0]\n";
  const auto scenario = run("run " + toml.string() + " -o " + out.string());
  REQUIRE(scenario.code == 0);
  std::ifstream in(out);
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(rows(cli.out) == rows(csv));
  CHECK(rows(cli.out).find(",powerlaw,1.5,index,") != std::string::npos);
  // Without a --difficulty option the command is the plain study (its columns, unchanged).
  const auto plain = run("kstar --N 8 --m 1e4 --T 64 --a 0.01 --form theorem1");
  REQUIRE(plain.code == 0);
  CHECK(plain.out.find("difficulty") == std::string::npos);
  // Bad difficulty values name the option, exit 2.
  auto r = run("kstar --difficulty powerlaw --difficulty-alpha 1");
  CHECK(r.code == 2);
  CHECK(r.out.find("--difficulty-alpha") != std::string::npos);
  r = run("kstar --difficulty powerlaw --N 2.5");
  CHECK(r.code == 2);
  CHECK(r.out.find("--N") != std::string::npos);
  r = run("kstar --difficulty powerlaw --N 3 --difficulty-profile list --difficulty-D 1,2");
  CHECK(r.code == 2);
  CHECK(r.out.find("--difficulty-D") != std::string::npos);
  CHECK(run("kstar --difficulty steep").code == 2);
}

TEST_CASE("bound and kstar reject bad input with exit code 2 and write nothing", "[cli][theory]") {
  const fs::path out = scratch("kstar_bad.csv");
  fs::remove(out);
  auto r = run("kstar --T 8,10.5 -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("--T") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  r = run("bound theorem1 --T 4 --k 5");
  CHECK(r.code == 2);
  CHECK(r.out.find("--k") != std::string::npos);
  CHECK(run("bound covering --delta 2").code == 2);
  CHECK(run("bound patterns --T 65").code == 2);
  CHECK(run("kstar --form nonsense").code == 2);
}

TEST_CASE("bound and kstar refuse a bad value with the message a scenario gets, naming the option", "[cli][theory]") {
  // The options of bound theorem1 / covering / patterns and kstar are the studies' declared parameters,
  // checked by the studies themselves: the CLI's message is the scenario's, with the option for the key.
  struct Case {
    std::string args, option, toml, key;
  };
  const std::vector<Case> cases{
      {"bound patterns --T 65", "--T", "study = \"bounds.patterns\"\n[params]\nm = 16\nd = 2\nT = 65\nk = 2\n", "params.T"},
      {"bound theorem1 --T 4 --k 5", "--k", "study = \"bounds.theorem1\"\n[params]\nm = 10000.0\nT = 4.0\nk = 5.0\n", "params.k"},
      {"bound covering --delta 2", "--delta",
       "study = \"scaling.covering\"\n[params]\nP_exp = 1e6\nM = 64.0\nk = 4.0\ndelta = 2.0\n", "params.delta"},
      {"kstar --delta 1", "--delta", "study = \"sparsity.kstar\"\n[params]\nN = 4.0\nm = 1e4\nT = 64\ndelta = 1.0\n", "params.delta"},
      {"kstar --T 10.5", "--T", "study = \"sparsity.kstar\"\n[params]\nN = 4.0\nm = 1e4\nT = 10.5\n", "params.T"},
  };
  // "... key 'X': reason" -> reason
  const auto reason = [](const std::string& out, const std::string& key) {
    const std::string tag = "key '" + key + "': ";
    const auto at = out.find(tag);
    REQUIRE(at != std::string::npos);
    return out.substr(at + tag.size(), out.find('\n', at) - at - tag.size());
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto cli = run(c.args);
    const fs::path toml = scratch("bad_value.toml"), out = scratch("bad_value.csv");
    std::ofstream(toml) << c.toml;
    fs::remove(out);
    const auto scenario = run("run " + toml.string() + " -o " + out.string());
    INFO(cli.out << scenario.out);
    CHECK(cli.code == 2);
    CHECK(scenario.code == 2);
    CHECK_FALSE(fs::exists(out));
    CHECK(reason(cli.out, c.option) == reason(scenario.out, c.key));
  }
}

TEST_CASE("run --backend auto runs on the CPU where CUDA cannot run and cuda is refused, never a silent fallback", "[cli][backend]") {
  const fs::path out = scratch("backend.csv");
  fs::remove(out);
  const std::string scenario = std::string(MOELAB_SOURCE_DIR) + "/scenarios/sparsity_kstar_regimes.toml";
  auto r = run("run " + scenario + " --backend auto -o " + out.string());
  REQUIRE(r.code == 0);
  std::ifstream in(out);
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(csv.find("# backend: cpu\n") != std::string::npos);  // this study has no CUDA path
  fs::remove(out);
  r = run("run " + scenario + " --backend cuda -o " + out.string());
  CHECK(r.code == 2);
  CHECK(r.out.find("--backend") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // check --backend cuda needs a usable device (then claims without a device path run on the CPU).
  CHECK(run("check --backend cuda --only remark3 --no-journal --out-dir " + scratch("check_cuda").string()).code ==
        (moelab::cuda_backend_available() ? 0 : 2));
  CHECK(run("run " + scenario + " --backend gpu").code == 2);
}
