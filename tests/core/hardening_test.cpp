// core pieces of the hardening: printable messages, output paths checked before any work,
// stale temporaries of killed runs removed, thread counts capped to what the runtime can create.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"

using namespace moelab;
namespace fs = std::filesystem;

namespace {
fs::path scratch_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "moelab_core_hardening" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("printable keeps UTF-8 and escapes control characters and invalid bytes", "[core][hardening]") {
  CHECK(printable("plain text, 1.5e3") == "plain text, 1.5e3");
  CHECK(printable("\xce\xbb = 2 \xe2\x89\xa4 3") == "\xce\xbb = 2 \xe2\x89\xa4 3");  // lambda, <=
  CHECK(printable(std::string("a\x01\xff\xfe" "b\n", 6)) == "a\\x01\\xff\\xfeb\\x0a");
  CHECK(printable("\xc0\x80") == "\\xc0\\x80");          // overlong NUL
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable("\xe2\x89") == "\\xe2\\x89");          // truncated sequence
  const InputError e(std::string("f\x1b[2J"), 3, "k\xff", "bad \x07 value");
  CHECK(std::string(e.what()) == "f\\x1b[2J:3: key 'k\\xff': bad \\x07 value");
}

TEST_CASE("output paths are checked before any work", "[core][hardening]") {
  const fs::path d = scratch_dir("paths");
  CHECK(output_path_problem((d / "a.csv").string()).empty());
  CHECK(output_path_problem((d / "new" / "deeper" / "a.csv").string()).empty());  // created on write
  CHECK_THAT(output_path_problem(""), Catch::Contains("must be a file path"));
  CHECK_THAT(output_path_problem(d.string()), Catch::Contains("is a directory"));
  CHECK_THAT(output_path_problem((d / ".").string()), Catch::Contains("is a directory"));
  CHECK_THAT(output_path_problem("/dev/null"), Catch::Contains("not a regular file"));
  std::ofstream(d / "file") << "x";
  CHECK_THAT(output_path_problem((d / "file" / "a.csv").string()), Catch::Contains("is not a directory"));
}

TEST_CASE("temporaries left by a killed writer are removed by the next write, live ones are kept", "[core][hardening]") {
  const fs::path d = scratch_dir("stale");
  const fs::path target = d / "out.csv";
  // pid 4194305 is above the kernel's largest pid_max (2^22), so no process has it.
  std::ofstream(d / ".out.csv.tmp.4194305.AbCdEf") << "partial";
  const std::string live = ".out.csv.tmp." + std::to_string(::getpid()) + ".XyZ123";
  std::ofstream(d / live) << "in progress";
  std::ofstream(d / ".other.csv.tmp.4194305.AbCdEf") << "someone else's";
  write_file_atomic(target.string(), "a,b\n1,2\n");
  CHECK_FALSE(fs::exists(d / ".out.csv.tmp.4194305.AbCdEf"));
  CHECK(fs::exists(d / live));
  CHECK(fs::exists(d / ".other.csv.tmp.4194305.AbCdEf"));
  int left = 0;
  for (const auto& e : fs::directory_iterator(d)) left += e.path().filename().string().rfind(".out.csv.tmp.", 0) == 0;
  CHECK(left == 1);  // only the live one: the write's own temporary was renamed
}

TEST_CASE("thread counts are capped to what the runtime can create", "[core][hardening]") {
  const int cap = max_threads();
  CHECK(cap >= 1);
  CHECK(cap <= 4096);
  set_num_threads(65536);
  CHECK(num_threads() <= cap);
  std::atomic<int> sum{0};
  parallel_for(100, [&](std::size_t i) { sum += static_cast<int>(i); });
  CHECK(sum == 4950);
  set_num_threads(0);
}

TEST_CASE("closest_name suggests a misspelled name and nothing for an unrelated one", "[core][hardening]") {
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("moe.teacher_student", "moe.teacher_student") == 0);
  const std::vector<std::string> studies{"noisy.excess_risk", "moe.teacher_student", "spectra.esd"};
  CHECK(closest_name("moe.teacher_studnet", studies, 4) == "moe.teacher_student");  // a transposition: distance 2
  CHECK(closest_name("spectra.eds", studies, 2) == "spectra.esd");
  CHECK(closest_name("bounds.theorem1", studies, 4).empty());
  CHECK(closest_name("x", {}, 4).empty());
}
