// Running the moelab executable from the CLI tests: one place for the process plumbing that
// cli_test, resume_test and hardening_test share (popen for a command's output and exit code,
// posix_spawn + a signal for interrupted runs, scratch files).
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace moelab::test_cli {

namespace fs = std::filesystem;

struct Result {
  int code;         ///< exit code, or -1 when the process did not exit normally
  std::string out;  ///< everything the command wrote to stdout (and stderr where redirected)
};

/// Runs `cmd` through the shell and collects its stdout.
inline Result run_shell(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs the moelab executable with `args` (shell syntax), stdout and stderr together.
inline Result run(const std::string& args) { return run_shell(std::string(MOELAB_EXE) + " " + args + " 2>&1"); }

/// The file's bytes ("" when it does not exist).
inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A path `name` in the scratch folder `suite` under the system's temporary directory (created).
inline fs::path scratch_in(const std::string& suite, const std::string& name) {
  const fs::path d = fs::temp_directory_path() / suite;
  fs::create_directories(d);
  return d / name;
}

/// Writes `text` to `name` in the scratch folder `suite` (replacing it); returns the path.
inline fs::path write_in(const std::string& suite, const std::string& name, const std::string& text) {
  const fs::path p = scratch_in(suite, name);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  return p;
}

/// A refused input: exit 2, the message names `what`, no internal error and no source path, one
/// readable message (shorter than `max_chars`: never a 309-digit bound or a whole file echoed).
inline void require_refused(const Result& r, const std::string& what, std::size_t max_chars = 600) {
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.find(what) != std::string::npos);
  CHECK(r.out.find("internal") == std::string::npos);
  CHECK(r.out.find(".cpp") == std::string::npos);
  CHECK(r.out.size() < max_chars);
}

/// A one-point spectra.tw scenario that runs in milliseconds (n = 40, p = 20, 10 trials).
inline constexpr const char* kTinyTw = "study = \"spectra.tw\"\n[params]\nn = 40\np = 20\n[monte_carlo]\ntrials = 10\n";

/// Starts moelab with `args`, its stdout and stderr to /dev/null when `quiet`; returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, bool quiet = true) {
  std::vector<std::string> all{MOELAB_EXE};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (quiet) {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, MOELAB_EXE, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(spawned == 0);
  return pid;
}

/// Starts moelab with `args` (quiet) and sends `sig` after `delay`, or after `wait_for` exists and
/// then `delay` (at most 60 s of waiting: a fixed delay races with start-up on a loaded machine).
/// Returns true when the signal interrupted it (it did not exit 0).
inline bool run_and_kill(const std::vector<std::string>& args, std::chrono::microseconds delay, int sig,
                         const fs::path& wait_for = {}) {
  const pid_t pid = spawn(args);
  if (!wait_for.empty())
    for (int i = 0; i < 6000 && !fs::exists(wait_for); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(delay);
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace moelab::test_cli
