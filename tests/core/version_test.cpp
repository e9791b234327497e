// The revision probe (cmake/MoelabGitRevision.cmake -> moelab::git_revision(), in every CSV's `# tool:`
// line): moelab's own revision or "unknown", never the revision of a repository that merely encloses
// the source folder (a GPU run of a tree unpacked inside another checkout printed that checkout's
// commit). The script is run here on folders built for the purpose: a repository, a plain folder
// inside it, and the same folder with a .moelab-revision stamp.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <string>

#include "moelab/core/version.hpp"

namespace fs = std::filesystem;

namespace {

int shell(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

/// The revision the probe script writes for source folder `src`.
std::string probe(const fs::path& src, const fs::path& out) {
  const std::string cmd = "cmake -DSRC='" + src.string() + "' -DOUT='" + out.string() + "' -P '" MOELAB_SOURCE_DIR "/cmake/MoelabGitRevision.cmake'";
  REQUIRE(shell(cmd) == 0);
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  std::smatch m;
  const std::string text = ss.str();
  REQUIRE(std::regex_search(text, m, std::regex("return \"([^\"]*)\";")));
  return m[1].str();
}

}  // namespace

TEST_CASE("the compiled-in revision is a 12-digit commit (maybe -dirty or -stamp) or unknown", "[core][version]") {
  const std::string rev = moelab::git_revision();
  CAPTURE(rev);
  CHECK(std::regex_match(rev, std::regex("unknown|[0-9a-f]{12}(-dirty)?|[0-9a-f]+(-dirty)?-stamp")));
  CHECK(moelab::tool_provenance().find(rev) != std::string::npos);
}

TEST_CASE("the revision probe reports its own repository, never an enclosing one", "[core][version]") {
  if (shell("git --version") != 0 || shell("cmake --version") != 0) {
    WARN("git or cmake not on PATH: the probe script cannot be run here");
    return;
  }
  const fs::path root = fs::temp_directory_path() / ("moelab_version_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path outer = root / "outer", inner = outer / "unpacked_source";
  fs::create_directories(inner);
  REQUIRE(shell("git -C '" + outer.string() + "' init -q") == 0);
  REQUIRE(shell("git -C '" + outer.string() + "' -c user.email=t@t -c user.name=t commit -q --allow-empty -m enclosing") == 0);
  std::string outer_head;
  {
    FILE* p = ::popen(("git -C '" + outer.string() + "' rev-parse --short=12 HEAD").c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[64] = {};
    if (std::fgets(buf, sizeof buf, p) != nullptr) outer_head = buf;
    ::pclose(p);
    while (!outer_head.empty() && (outer_head.back() == '\n' || outer_head.back() == '\r')) outer_head.pop_back();
  }
  REQUIRE(outer_head.size() == 12);
  SECTION("the repository's own top level: its commit") { CHECK(probe(outer, root / "a.cpp") == outer_head); }
  SECTION("a plain folder inside another checkout: unknown (the control: git alone would name the enclosing commit)") {
    CHECK(probe(inner, root / "b.cpp") == "unknown");
  }
  SECTION("the same folder with a .moelab-revision stamp: the stamp, marked as such") {
    std::ofstream(inner / ".moelab-revision") << "a8b58eeef334\n";
    CHECK(probe(inner, root / "c.cpp") == "a8b58eeef334-stamp");
  }
  SECTION("a stamp that is not a revision is ignored") {
    std::ofstream(inner / ".moelab-revision") << "\"; evil(); \"\n";
    CHECK(probe(inner, root / "d.cpp") == "unknown");
  }
  fs::remove_all(root);
}
