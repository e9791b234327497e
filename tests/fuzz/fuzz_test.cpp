// Deterministic mutation fuzzing of the two places where moelab reads untrusted text:
//   * the scenario parser and validation (parse_scenario -> study_for -> prepare_scenario: TOML,
//     sweeps, budgets, every study's declared parameters and its own checks), in process;
//   * the command-line option parsers of every subcommand, through the real executable (a crash or
//     an exit code other than 0 / 2 is a finding, and so is a run still going after kHangLimit (60 s):
//     it is killed and reported as a hang naming the command line; runs over 3 s are only counted).
// The corpus is every shipped scenario (scenarios/, tests/data/) and a list of valid command lines;
// mutations are drawn from a splitmix64 stream seeded by the iteration, so run N is reproducible.
// A finding is written to $MOELAB_FUZZ_OUT (default <build>/fuzz-findings) and fails the test.
//   fast suite:  [fuzz]           a few hundred inputs of each kind (seconds)
//   make fuzz:   [.fuzz_long]     MOELAB_FUZZ_SECONDS (default 60) split over both targets
// Clang's libFuzzer can drive the same scenario target: see docs/hardening.md.
#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/catalogue/catalogue.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/moefication.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace moelab;

namespace {

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

// Values that broke moelab before or sit at the edges of the types it reads.
const std::vector<std::string> kInteresting = {
    "0", "-1", "1", "2", "3", "64", "65", "65536", "2147483647", "2147483648", "4294967296", "4294967336",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999", "1e9", "1e12",
    "1e400", "-1e400", "nan", "inf", "-inf", "+inf", "0.0", "-0.0", "1e-320", "0.5", "1.0", "\"\"", "\"x\"", "[]",
    "[1,2]", "{}", "true", "false", "1979-05-27", "\"\\u0000\"", "'''a'''"};
const std::vector<std::string> kTomlTokens = {
    "\n", "=", "[", "]", "{", "}", ",", ".", "\"", "#", "[sweep]\n", "[params]\n", "[model]\n", "[monte_carlo]\n",
    "[output]\n", "\"params.n\" = [1, 2]\n", "\"params.m\" = {from = 1, to = 1e9, steps = 3}\n", "threads = 65536\n",
    "trials = 1\n", "seed = -1\n", "backend = \"cuda\"\n", "csv = \"\"\n", "study = \"noisy.risk\"\n",
    "[model.covariance]\nkind = \"diagonal\"\nvalues = [1, 0]\n", "spacing = \"log\"\n", "integer = true\n",
    // Round 2: deep dotted keys, device and FIFO paths, control characters in metadata.
    "[" + std::string("a") + [] { std::string d; for (int i = 0; i < 2000; ++i) d += ".a"; return d; }() + "]\n",
    "activations = \"/dev/zero\"\n", "activations = \"\"\n", "activations = \".\"\n", "title = \"a\\nb\"\n"};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> scenario_corpus() {
  std::vector<std::string> out;
  for (const char* dir : {"scenarios", "tests/data"}) {
    const fs::path d = fs::path(MOELAB_SOURCE_DIR) / dir;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());  // directory order is not deterministic
    for (const auto& f : files) out.push_back(slurp(f));
  }
  return out;
}

/// One mutation of `text` (1-4 edits): byte flips, inserted/erased ranges, numbers replaced by
/// interesting values, TOML tokens inserted, splices with another corpus entry.
std::string mutate(std::string text, const std::vector<std::string>& corpus, Rng& r) {
  const int edits = 1 + static_cast<int>(r.below(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = r.below(text.size() + 1);
    switch (r.below(7)) {
      case 0:
        if (!text.empty()) text[std::min(at, text.size() - 1)] ^= static_cast<char>(1u << r.below(8));
        break;
      case 1: text.insert(at, 1, static_cast<char>(r.below(256))); break;
      case 2: text.erase(at, r.below(16)); break;
      case 3: {  // replace the number nearest to `at` by an interesting value
        const std::size_t b = text.find_first_of("0123456789", at);
        if (b == std::string::npos) break;
        std::size_t end = text.find_first_not_of("0123456789.eE+-_", b);
        if (end == std::string::npos) end = text.size();
        text.replace(b, end - b, kInteresting[r.below(kInteresting.size())]);
        break;
      }
      case 4: text.insert(at, kTomlTokens[r.below(kTomlTokens.size())]); break;
      case 5: text.insert(at, kInteresting[r.below(kInteresting.size())]); break;
      case 6: {  // splice: a line range of another corpus entry
        const std::string& other = corpus[r.below(corpus.size())];
        const std::size_t from = r.below(other.size());
        text.insert(at, other.substr(from, r.below(200)));
        break;
      }
    }
  }
  return text;
}

struct Findings {
  fs::path dir;
  int count = 0;
  void record(const std::string& kind, const std::string& input, const std::string& what) {
    ++count;
    fs::create_directories(dir);
    const fs::path f = dir / fmt::format("{}-{}.txt", kind, count);
    std::ofstream(f, std::ios::binary) << input;
    UNSCOPED_INFO(kind << " finding " << f.string() << ": " << printable(what));
  }
};

Findings findings() {
  const char* env = std::getenv("MOELAB_FUZZ_OUT");
  return Findings{env ? fs::path(env) : fs::path(MOELAB_BINARY_DIR) / "fuzz-findings"};
}

/// The scenario target: parse, find the study, validate every point (nothing runs). Only
/// InputError may come out; an internal check or any other exception is a finding.
void scenario_target(const std::string& text, Findings& f) {
  try {
    const Scenario sc = parse_scenario(text, "fuzz.toml");
    const StudyDef& study = study_for(sc, catalogue::studies());
    double points = 1;
    for (const auto& a : sc.axes) points *= static_cast<double>(a.values.size());
    if (points <= 2000) (void)prepare_scenario(study, sc);
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    f.record("scenario", text, e.what());
  }
}

// ---- the CLI target ----

const std::vector<std::vector<std::string>> kCommandLines = {
    {"spectrum", "mp", "--c", "0.5", "--sigma2", "1", "--points", "5"},
    {"spectrum", "tw", "--beta", "1", "--from", "-4", "--to", "2", "--points", "5"},
    {"spectrum", "tw", "--beta", "4", "--quantile", "0.5"},
    {"spectrum", "spike", "--ell", "4", "--c", "0.5", "--sigma2", "1"},
    {"spectrum", "ipn", "--lambda", "4", "--c", "0.5", "--sigma2", "1"},
    {"spectrum", "ds", "--atoms", "0,1", "--weights", "0.5,0.5", "--c", "0.5", "--points", "5"},
    {"bound", "theorem1", "--m", "100,1000", "--T", "8", "--k", "2", "--N", "1", "--delta", "0.05"},
    {"bound", "growth", "--m", "10", "--d", "2", "--labels", "3"},
    {"bound", "covering", "--P-exp", "1000", "--M", "8", "--k", "2", "--delta", "0.01"},
    {"bound", "patterns", "--m", "8", "--d", "2", "--T", "4", "--k", "1", "--routers", "50", "--seed", "3"},
    {"kstar", "--N", "4", "--m", "1000", "--T", "8", "--form", "theorem1"},
    {"kstar", "--curve", "--T", "8", "--a", "1", "--b", "2"},
    {"describe", "spectra.tw"},
    {"list", "studies"},
    {"run", "SCENARIO", "--trials", "2", "--threads", "1", "--seed", "5"},
};
const std::vector<std::string> kFlags = {"--c", "--sigma2", "--points", "--beta", "--from", "--to", "--quantile", "--ell",
                                         "--lambda", "--atoms", "--weights", "--m", "--T", "--k", "--N", "--d-N", "--C",
                                         "--delta", "--d", "--labels", "--routers", "--seed", "--trials", "--threads",
                                         "--max-memory", "--backend", "--form", "--curve", "--convention", "--help"};

std::vector<std::string> mutate_args(std::vector<std::string> a, Rng& r) {
  const int edits = 1 + static_cast<int>(r.below(3));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = 1 + r.below(a.size());  // keep the subcommand
    switch (r.below(6)) {
      case 0:
        if (at < a.size()) a[at] = kInteresting[r.below(kInteresting.size())];
        break;
      case 1: a.insert(a.begin() + static_cast<long>(std::min(at, a.size())), kFlags[r.below(kFlags.size())]); break;
      case 2:
        if (at < a.size()) a.erase(a.begin() + static_cast<long>(at));
        break;
      case 3:  // an item list with an interesting value inside
        if (at < a.size()) a[at] = a[at] + "," + kInteresting[r.below(kInteresting.size())];
        break;
      case 4:
        if (at < a.size() && !a[at].empty()) a[at][r.below(a[at].size())] ^= static_cast<char>(1u << r.below(7));
        break;
      case 5:
        a.insert(a.begin() + static_cast<long>(std::min(at, a.size())), kFlags[r.below(kFlags.size())]);
        a.insert(a.begin() + static_cast<long>(std::min(at + 1, a.size())), kInteresting[r.below(kInteresting.size())]);
        break;
    }
  }
  return a;
}

struct CliOutcome {
  int code = -1;      // exit code, or -signal
  bool slow = false;  // over 3 s: counted, not a finding (a mutated size may ask for real work)
  bool hung = false;  // still running after kHangLimit: killed, a finding
};

// A run that has not exited after this long is a hang (a finding). Each corpus command line asks for a
// small job: the fast suite's 60 runs take ~0.16 s each on the loaded 2-core machine (process start
// included), and no run has exceeded 3 s. 60 s is ~400x that, so a loaded machine (or a sanitizer
// build, ~10x slower) does not turn a correct run into a finding, while a real hang (a blocking open
// of a planted FIFO, an endless loop on a mutated size) is still caught within one ctest run. A
// mutated size that legitimately asks for a minute of work is reported too: a command accepting such
// a request without a refusal is worth a look.
constexpr auto kHangLimit = std::chrono::seconds(60);

/// Runs the executable in `cwd` (so a mutated -o lands there), output discarded, killed after kHangLimit.
CliOutcome run_exe(const std::vector<std::string>& args, const fs::path& cwd) {
  const std::string exe = std::string(MOELAB_BINARY_DIR) + "/bin/moelab";
  std::vector<char*> argv{const_cast<char*>(exe.c_str())};
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  pid_t pid = 0;
  CliOutcome o;
  if (::posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ) != 0) return o;
  posix_spawn_file_actions_destroy(&fa);
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > kHangLimit) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      o.slow = o.hung = true;
      return o;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  o.slow = std::chrono::steady_clock::now() - t0 > std::chrono::seconds(3);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return o;
}

struct CliStats {
  int runs = 0, ok = 0, refused = 0, slow = 0, hung = 0;
};

void cli_target(std::uint64_t iteration, const std::vector<std::string>& corpus, Findings& f, CliStats& st) {
  Rng r{iteration * 0x2545F4914F6CDD1Dull + 17};
  auto args = mutate_args(kCommandLines[r.below(kCommandLines.size())], r);
  const fs::path cwd = f.dir.parent_path() / "fuzz-cwd";
  fs::create_directories(cwd);
  for (auto& a : args) {
    if (a != "SCENARIO") continue;
    // `run` takes a mutated scenario with a small budget.
    const fs::path sc = cwd / "fuzz.toml";
    std::ofstream(sc, std::ios::binary) << mutate(corpus[r.below(corpus.size())], corpus, r);
    a = sc.string();
  }
  // Round 2: a hostile file at the journal's path of `run` (a FIFO, a link to /dev/zero,
  // a link to a file of the user's, a directory), sometimes with --resume. Each must be refused at
  // once: a hang or a changed victim is a finding.
  const fs::path journal = cwd / "out.csv.journal", victim = cwd / "victim.txt";
  std::error_code ec;
  fs::remove_all(journal, ec);
  int shape = 0;
  if (std::find(args.begin(), args.end(), "run") != args.end()) {
    args.insert(args.end(), {"--max-memory", "2G", "-o", (cwd / "out.csv").string()});
    shape = static_cast<int>(r.below(8));  // 0-3: nothing planted
    std::ofstream(victim, std::ios::trunc) << "precious\n";
    if (shape == 4) ::mkfifo(journal.c_str(), 0600);
    if (shape == 5) fs::create_symlink("/dev/zero", journal, ec);
    if (shape == 6) fs::create_symlink(victim, journal, ec);
    if (shape == 7) fs::create_directories(journal, ec);
    if (shape >= 4) {
      args.erase(std::remove(args.begin(), args.end(), std::string("--no-journal")), args.end());
      if (r.below(2) == 0) args.push_back("--resume");
    }
  }
  const CliOutcome o = run_exe(args, cwd);
  ++st.runs;
  if (shape >= 4 && (o.hung || slurp(victim) != "precious\n")) {
    std::string line;
    for (const auto& a : args) line += "'" + a + "' ";
    f.record("journal", line + fmt::format("\n--- journal shape {} ---\n", shape) + slurp(cwd / "fuzz.toml"),
             o.hung ? "a hang with a planted journal" : "the journal link's target was changed");
  }
  fs::remove_all(journal, ec);
  st.slow += o.slow;
  if (o.hung) {
    ++st.hung;
    if (shape < 4) {  // a planted journal's hang is recorded above
      std::string line;
      for (const auto& a : args) line += "'" + a + "' ";
      const std::string what = fmt::format("no exit within {} s: killed (a hang): moelab {}", kHangLimit.count(), line);
      if (args.size() > 1 && args[0] == "run") line += "\n--- scenario ---\n" + slurp(cwd / "fuzz.toml");
      f.record("cli", line, what);
    }
  } else if (o.code == 0) ++st.ok;
  else if (o.code == 2) ++st.refused;
  else {
    std::string line;
    for (const auto& a : args) line += "'" + a + "' ";
    if (args.size() > 1 && args[0] == "run") line += "\n--- scenario ---\n" + slurp(cwd / "fuzz.toml");
    f.record("cli", line, fmt::format("exit {}", o.code));
  }
}

/// The activation CSV reader (moe.block_discovery's `params.activations`) in process: mutated CSV
/// text, then the hostile file shapes; only InputError may come out.
void activation_target(std::uint64_t iteration, Findings& f) {
  static const std::vector<std::string> kCsv = {"f1,f2,f3\n1,2,3\n4,5,6\n", "1,2\n3,4\n", "\xEF\xBB\xBF" "a,b\n1e-3,2\n3,4\n",
                                                "# c\n0.5, 1.5\n2.5, -3\n\n4,5\n"};
  static const std::vector<std::string> kCells = {"1e400", "-1e400", "nan", "inf", "", " ", "x", "1,", ",", "\r", "\xEF\xBB\xBF",
                                                  "0x1p3", "1e-400", "\"1\"", "#", "\n", "99999999999999999999"};
  Rng r{iteration * 0x9E3779B97F4A7C15ull + 5};
  std::string text = kCsv[r.below(kCsv.size())];
  for (int e = 0, edits = 1 + static_cast<int>(r.below(4)); e < edits; ++e) {
    const std::size_t at = r.below(text.size() + 1);
    switch (r.below(3)) {
      case 0: text.insert(at, kCells[r.below(kCells.size())]); break;
      case 1: text.erase(at, r.below(4)); break;
      default: text.insert(at, 1, static_cast<char>(r.below(256))); break;
    }
  }
  const fs::path p = f.dir.parent_path() / "fuzz-activations.csv";
  fs::create_directories(p.parent_path());
  std::string path = p.string();
  std::error_code ec;
  fs::remove_all(p, ec);
  switch (iteration % 16) {  // 1 in 16 each: a FIFO, a device, a directory; else the mutated text
    case 13: ::mkfifo(p.c_str(), 0600); break;
    case 14: path = "/dev/zero"; break;
    case 15: fs::create_directories(p, ec); break;
    default: std::ofstream(p, std::ios::binary) << text;
  }
  try {
    (void)moe::read_activation_csv(path);
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    f.record("activations", text, e.what());
  }
  fs::remove_all(p, ec);
}

struct Budget {
  std::uint64_t scenario_iterations;
  std::uint64_t cli_iterations;
  double seconds;  // 0: iterations only
};

void fuzz(const Budget& b) {
  const auto corpus = scenario_corpus();
  REQUIRE(corpus.size() >= 10);
  Findings f = findings();
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::uint64_t n = 0;
  // Every corpus entry as is, then mutants.
  for (const auto& c : corpus) scenario_target(c, f);
  for (; b.seconds > 0 ? elapsed() < b.seconds / 2 : n < b.scenario_iterations; ++n) {
    Rng r{n};
    scenario_target(mutate(corpus[r.below(corpus.size())], corpus, r), f);
  }
  const std::uint64_t activations = b.seconds > 0 ? 2000 : 300;
  for (std::uint64_t a = 0; a < activations; ++a) activation_target(a, f);
  const double scenario_seconds = elapsed();
  CliStats st;
  const bool have_exe = fs::exists(fs::path(MOELAB_BINARY_DIR) / "bin" / "moelab");
  std::uint64_t m = 0;
  for (; have_exe && (b.seconds > 0 ? elapsed() < b.seconds : m < b.cli_iterations); ++m) cli_target(m, corpus, f, st);
  WARN(fmt::format("fuzz: {} scenario inputs and {} activation CSVs in {:.1f} s, {} command lines ({} ok, {} refused with exit 2, {} over 3 s, {} hung) in "
                   "{:.1f} s{}; findings: {}",
                   n + corpus.size(), activations, scenario_seconds, st.runs, st.ok, st.refused, st.slow, st.hung, elapsed() - scenario_seconds,
                   have_exe ? "" : " (no bin/moelab: CLI target skipped)", f.count));
  CHECK(f.count == 0);
}

}  // namespace

TEST_CASE("mutated scenarios and command lines give exit 0 or a clean InputError, never a crash", "[fuzz]") {
  fuzz({3000, 60, 0});
}

TEST_CASE("long fuzz run: MOELAB_FUZZ_SECONDS (default 60) over both targets", "[.fuzz_long]") {
  const char* env = std::getenv("MOELAB_FUZZ_SECONDS");
  fuzz({0, 0, env ? std::atof(env) : 60.0});
}
